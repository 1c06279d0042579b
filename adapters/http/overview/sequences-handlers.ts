import { HttpApiBuilder } from "@effect/platform"
import { Sequences } from "@roster/application"
import type { Enrollment, Sequence } from "@roster/domain"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { toEnrollmentView, toFiguresView, toNewSequence, toSequenceChanges, toSequenceView } from "../shared/sequence-schemas.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf, pageRequestOf } from "./pages.js"

const view = (sequence: Sequence) => dataOf(toSequenceView(sequence))
const enrollmentView = (enrollment: Enrollment) => dataOf(toEnrollmentView(enrollment))

export const SequencesHandlersLive = HttpApiBuilder.group(OverviewApi, "sequences", (handlers) =>
  Effect.map(Sequences, (sequences) =>
    handlers
      .handle("list", ({ urlParams }) =>
        respond((caller) => sequences.listPage(caller, pageRequestOf(urlParams)), (page) => listOf(page, toSequenceView)))
      .handle("create", ({ payload }) => respond((caller) => sequences.create(caller, toNewSequence(payload)), view))
      .handle("get", ({ path }) => respond((caller) => sequences.get(caller, path.id), view))
      .handle("update", ({ path, payload }) => respond((caller) => sequences.update(caller, path.id, toSequenceChanges(payload)), view))
      .handle("delete", ({ path }) => respond((caller) => sequences.remove(caller, path.id)))
      .handle("activate", ({ path }) => respond((caller) => sequences.activate(caller, path.id), view))
      .handle("pause", ({ path }) => respond((caller) => sequences.pause(caller, path.id), view))
      .handle("enroll", ({ path, payload }) => respond((caller) => sequences.enroll(caller, path.id, payload.subscriber_id), enrollmentView))
      .handle("unenroll", ({ path }) => respond((caller) => sequences.unenroll(caller, path.id, path.subscriber_id), enrollmentView))
      .handle("enrollments", ({ path, urlParams }) =>
        respond((caller) => sequences.enrollmentsPage(caller, path.id, pageRequestOf(urlParams)), (page) => listOf(page, toEnrollmentView)))
      .handle("figures", ({ path }) => respond((caller) => sequences.figures(caller, path.id), (figures) => dataOf(toFiguresView(figures))))))
