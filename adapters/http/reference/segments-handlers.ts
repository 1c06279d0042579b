import { HttpApiBuilder } from "@effect/platform"
import { Segments } from "@roster/application"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { toSegment } from "../shared/segment-schemas.js"
import { ReferenceApi } from "./api.js"
import { pageOf, paged } from "./pagination.js"
import { toSubscriber } from "./subscribers-handlers.js"

export const SegmentsHandlersLive = HttpApiBuilder.group(ReferenceApi, "segments", (handlers) =>
  Effect.map(Segments, (segments) =>
    handlers
      .handle("create", ({ payload }) => respond((caller) => segments.create(caller, payload), toSegment))
      .handle("list", ({ urlParams }) => respond((caller) => paged(segments.list(caller, urlParams)), pageOf(toSegment)))
      .handle("get", ({ path }) => respond((caller) => segments.get(caller, path.segment_id), toSegment))
      .handle("update", ({ path, payload }) =>
        respond((caller) => segments.update(caller, path.segment_id, payload), toSegment))
      .handle("delete", ({ path }) => respond((caller) => segments.remove(caller, path.segment_id)))
      .handle("preview", ({ path, urlParams }) =>
        respond((caller) => paged(segments.preview(caller, path.segment_id, urlParams)), pageOf(toSubscriber)))
      .handle("previewFilter", ({ payload, urlParams }) =>
        respond((caller) => paged(segments.previewFilter(caller, payload.filter, urlParams)), pageOf(toSubscriber)))))
