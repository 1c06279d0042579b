import { HttpApiBuilder } from "@effect/platform"
import { Notes } from "@roster/application"
import { Effect } from "effect"
import { toNote } from "../shared/note-schemas.js"
import { respond } from "../shared/respond.js"
import { ReferenceApi } from "./api.js"
import { pageOf } from "./pagination.js"

export const NotesHandlersLive = HttpApiBuilder.group(ReferenceApi, "notes", (handlers) =>
  Effect.map(Notes, (notes) =>
    handlers
      .handle("create", ({ path, payload }) => respond((caller) => notes.create(caller, path.subscriber_id, payload.body), toNote))
      .handle("list", ({ path, urlParams }) =>
        respond((caller) => notes.list(caller, path.subscriber_id, urlParams), pageOf(toNote)))
      .handle("get", ({ path }) => respond((caller) => notes.get(caller, path.subscriber_id, path.note_id), toNote))
      .handle("update", ({ path, payload }) =>
        respond((caller) => notes.update(caller, path.subscriber_id, path.note_id, payload.body), toNote))
      .handle("delete", ({ path }) => respond((caller) => notes.remove(caller, path.subscriber_id, path.note_id)))))
