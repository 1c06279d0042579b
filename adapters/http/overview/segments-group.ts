import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Segment, segmentRules, UpdateSegmentRequest } from "../shared/segment-schemas.js"
import { segmentEndpoints, segmentScopes } from "../shared/segment-endpoints.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single, Subscriber } from "./schemas.js"

export const SegmentListParams = Schema.Struct(pageParams).annotations(strictInput)

const segments = segmentEndpoints("id")
const SegmentData = Single(Segment, "SegmentData")
const SegmentPreview = NumberedList(Subscriber, "SegmentPreview").annotations({
  description: "`meta.total`: how many subscribers match now; `data`: one numbered page of them by id"
})

export const SegmentsGroup = HttpApiGroup.make("segments")
  .add(
    HttpApiEndpoint.get("list", "/segments")
      .setUrlParams(SegmentListParams)
      .addSuccess(NumberedList(Segment, "SegmentList"))
      .pipe(envelopes.describe({
        ...segments.list,
        description: `One numbered page of the organization's segments, oldest first. ${segmentScopes.read}`
      }))
  )
  .add(envelopes.declare(segments.create).addSuccess(withStatus(SegmentData, 201, "CreatedSegmentData")))
  .add(envelopes.declare(segments.get).addSuccess(SegmentData))
  .add(
    HttpApiEndpoint.patch("update", segments.address)
      .setPath(segments.path)
      .setPayload(UpdateSegmentRequest)
      .addSuccess(SegmentData)
      .pipe(envelopes.describe(segments.update))
  )
  .add(envelopes.declare(segments.delete))
  .add(
    segments.preview.endpoint
      .setUrlParams(SegmentListParams)
      .addSuccess(SegmentPreview)
      .pipe(envelopes.describe(segments.preview.description))
  )
  .add(
    segments.previewFilter.endpoint
      .setUrlParams(SegmentListParams)
      .addSuccess(SegmentPreview)
      .pipe(envelopes.describe(segments.previewFilter.description))
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Segments")
  .annotate(OpenApi.Description, segmentRules)
