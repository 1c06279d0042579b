import { HttpApiBuilder } from "@effect/platform"
import { Sequences } from "@roster/application"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { toEnrollmentView, toFiguresView, toNewSequence, toSequenceChanges, toSequenceView } from "../shared/sequence-schemas.js"
import { ReferenceApi } from "./api.js"
import { pageOf } from "./pagination.js"

export const SequencesHandlersLive = HttpApiBuilder.group(ReferenceApi, "sequences", (handlers) =>
  Effect.map(Sequences, (sequences) =>
    handlers
      .handle("create", ({ payload }) => respond((caller) => sequences.create(caller, toNewSequence(payload)), toSequenceView))
      .handle("list", ({ urlParams }) => respond((caller) => sequences.list(caller, urlParams), pageOf(toSequenceView)))
      .handle("get", ({ path }) => respond((caller) => sequences.get(caller, path.sequence_id), toSequenceView))
      .handle("update", ({ path, payload }) =>
        respond((caller) => sequences.update(caller, path.sequence_id, toSequenceChanges(payload)), toSequenceView))
      .handle("delete", ({ path }) => respond((caller) => sequences.remove(caller, path.sequence_id)))
      .handle("activate", ({ path }) => respond((caller) => sequences.activate(caller, path.sequence_id), toSequenceView))
      .handle("pause", ({ path }) => respond((caller) => sequences.pause(caller, path.sequence_id), toSequenceView))
      .handle("enroll", ({ path, payload }) =>
        respond((caller) => sequences.enroll(caller, path.sequence_id, payload.subscriber_id), toEnrollmentView))
      .handle("unenroll", ({ path }) =>
        respond((caller) => sequences.unenroll(caller, path.sequence_id, path.subscriber_id), toEnrollmentView))
      .handle("enrollments", ({ path, urlParams }) =>
        respond((caller) => sequences.enrollments(caller, path.sequence_id, urlParams), pageOf(toEnrollmentView)))
      .handle("figures", ({ path }) => respond((caller) => sequences.figures(caller, path.sequence_id), toFiguresView))))
