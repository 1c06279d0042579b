import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { sequenceEndpoints, sequenceScopes } from "../shared/sequence-endpoints.js"
import { EnrollmentView, SequenceFiguresView, SequenceView, sequenceRules, UpdateSequenceRequest } from "../shared/sequence-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"

export const SequenceListParams = Schema.Struct(pageParams).annotations(strictInput)

const sequences = sequenceEndpoints("id")
const SequenceData = Single(SequenceView, "SequenceData")
const EnrollmentData = Single(EnrollmentView, "SequenceEnrollmentData")
const { read, write } = sequenceScopes

export const SequencesGroup = HttpApiGroup.make("sequences")
  .add(
    HttpApiEndpoint.get("list", "/sequences")
      .setUrlParams(SequenceListParams)
      .addSuccess(NumberedList(SequenceView, "SequenceList"))
      .pipe(envelopes.describe(sequences.list))
  )
  .add(envelopes.declare({ ...sequences.create, description: write }).addSuccess(withStatus(SequenceData, 201, "CreatedSequenceData")))
  .add(envelopes.declare({ ...sequences.get, description: read }).addSuccess(SequenceData))
  .add(
    HttpApiEndpoint.patch("update", sequences.address)
      .setPath(sequences.path)
      .setPayload(UpdateSequenceRequest)
      .addSuccess(SequenceData)
      .pipe(envelopes.describe({ ...sequences.update, description: write }))
  )
  .add(envelopes.declare({ ...sequences.delete, description: write }))
  .add(envelopes.declare({ ...sequences.activate, description: write }).addSuccess(SequenceData))
  .add(envelopes.declare({ ...sequences.pause, description: write }).addSuccess(SequenceData))
  .add(envelopes.declare({ ...sequences.enroll, description: write }).addSuccess(withStatus(EnrollmentData, 201, "CreatedSequenceEnrollmentData")))
  .add(envelopes.declare({ ...sequences.unenroll, description: write }).addSuccess(EnrollmentData))
  .add(
    HttpApiEndpoint.get("enrollments", `${sequences.address}/enrollments`)
      .setPath(sequences.path)
      .setUrlParams(SequenceListParams)
      .addSuccess(NumberedList(EnrollmentView, "SequenceEnrollmentList"))
      .pipe(envelopes.describe({ ...sequences.enrollments, description: read }))
  )
  .add(envelopes.declare({ ...sequences.figures, description: read }).addSuccess(Single(SequenceFiguresView, "SequenceFiguresData")))
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Sequences")
  .annotate(OpenApi.Description, sequenceRules)
