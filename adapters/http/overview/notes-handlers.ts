import { HttpApiBuilder } from "@effect/platform"
import { Notes } from "@roster/application"
import { Effect } from "effect"
import { toNote } from "../shared/note-schemas.js"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf, pageRequestOf } from "./pages.js"

export const NotesHandlersLive = HttpApiBuilder.group(OverviewApi, "notes", (handlers) =>
  Effect.map(Notes, (notes) =>
    handlers
      .handle("list", ({ path, urlParams }) =>
        respond((caller) => notes.listPage(caller, path.id, pageRequestOf(urlParams)), (page) => listOf(page, toNote)))
      .handle("create", ({ path, payload }) =>
        respond((caller) => notes.create(caller, path.id, payload.body), (note) => dataOf(toNote(note))))
      .handle("get", ({ path }) => respond((caller) => notes.get(caller, path.id, path.note_id), (note) => dataOf(toNote(note))))
      .handle("update", ({ path, payload }) =>
        respond((caller) => notes.update(caller, path.id, path.note_id, payload.body), (note) => dataOf(toNote(note))))
      .handle("delete", ({ path }) => respond((caller) => notes.remove(caller, path.id, path.note_id)))))
