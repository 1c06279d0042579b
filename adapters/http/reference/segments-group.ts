import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Segment, segmentRules, UpdateSegmentRequest } from "../shared/segment-schemas.js"
import { segmentEndpoints, segmentScopes } from "../shared/segment-endpoints.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"
import { Subscriber } from "./subscriber-schemas.js"

export const SegmentListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)

const segments = segmentEndpoints("segment_id")
const SegmentPreview = Page(Subscriber, "SegmentPreview").annotations({
  description: "`total`: how many subscribers match now; `items`: one page of them by id, each with their tags"
})

export const SegmentsGroup = HttpApiGroup.make("segments")
  .add(problems.declare(segments.create).addSuccess(withStatus(Segment, 201, "CreatedSegment")))
  .add(
    HttpApiEndpoint.get("list", "/segments")
      .setUrlParams(SegmentListParams)
      .addSuccess(Page(Segment, "SegmentList"))
      .pipe(problems.describe({
        ...segments.list,
        description: `One page of the organization's segments, oldest first. ${segmentScopes.read}`
      }))
  )
  .add(problems.declare(segments.get).addSuccess(Segment))
  .add(
    HttpApiEndpoint.put("update", segments.address)
      .setPath(segments.path)
      .setPayload(UpdateSegmentRequest)
      .addSuccess(Segment)
      .pipe(problems.describe(segments.update))
  )
  .add(problems.declare(segments.delete))
  .add(
    segments.preview.endpoint
      .setUrlParams(SegmentListParams)
      .addSuccess(SegmentPreview)
      .pipe(problems.describe(segments.preview.description))
  )
  .add(
    segments.previewFilter.endpoint
      .setUrlParams(SegmentListParams)
      .addSuccess(SegmentPreview)
      .pipe(problems.describe(segments.previewFilter.description))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Segments")
  .annotate(OpenApi.Description, segmentRules)
