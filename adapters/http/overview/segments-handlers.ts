import { HttpApiBuilder } from "@effect/platform"
import { type SegmentPreview, Segments } from "@roster/application"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { toSegment } from "../shared/segment-schemas.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf, pageRequestOf } from "./pages.js"
import { toSubscriber } from "./subscribers-handlers.js"

/** A preview read by page number, in the list envelope. */
const previewList = (preview: SegmentPreview) =>
  listOf({
    items: preview.items,
    total: preview.total,
    page: preview.page?.page ?? 1,
    perPage: preview.page?.perPage ?? preview.items.length,
    totalPages: preview.page?.totalPages ?? 0
  }, toSubscriber)

export const SegmentsHandlersLive = HttpApiBuilder.group(OverviewApi, "segments", (handlers) =>
  Effect.map(Segments, (segments) =>
    handlers
      .handle("list", ({ urlParams }) =>
        respond((caller) => segments.listPage(caller, pageRequestOf(urlParams)), (page) => listOf(page, toSegment)))
      .handle("create", ({ payload }) => respond((caller) => segments.create(caller, payload), (s) => dataOf(toSegment(s))))
      .handle("get", ({ path }) => respond((caller) => segments.get(caller, path.id), (s) => dataOf(toSegment(s))))
      .handle("update", ({ path, payload }) =>
        respond((caller) => segments.update(caller, path.id, payload), (s) => dataOf(toSegment(s))))
      .handle("delete", ({ path }) => respond((caller) => segments.remove(caller, path.id)))
      .handle("preview", ({ path, urlParams }) =>
        respond((caller) => segments.preview(caller, path.id, pageRequestOf(urlParams)), previewList))
      .handle("previewFilter", ({ payload, urlParams }) =>
        respond((caller) => segments.previewFilter(caller, payload.filter, pageRequestOf(urlParams)), previewList))))
