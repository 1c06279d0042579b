import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { sequenceEndpoints } from "../shared/sequence-endpoints.js"
import { EnrollmentView, SequenceFiguresView, SequenceView, sequenceRules, UpdateSequenceRequest } from "../shared/sequence-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"

export const SequenceListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)

const sequences = sequenceEndpoints("sequence_id")

export const SequencesGroup = HttpApiGroup.make("sequences")
  .add(problems.declare(sequences.create).addSuccess(withStatus(SequenceView, 201, "CreatedSequence")))
  .add(
    HttpApiEndpoint.get("list", "/sequences")
      .setUrlParams(SequenceListParams)
      .addSuccess(Page(SequenceView, "SequenceList"))
      .pipe(problems.describe(sequences.list))
  )
  .add(problems.declare(sequences.get).addSuccess(SequenceView))
  .add(
    HttpApiEndpoint.put("update", sequences.address)
      .setPath(sequences.path)
      .setPayload(UpdateSequenceRequest)
      .addSuccess(SequenceView)
      .pipe(problems.describe(sequences.update))
  )
  .add(problems.declare(sequences.delete))
  .add(problems.declare(sequences.activate).addSuccess(SequenceView))
  .add(problems.declare(sequences.pause).addSuccess(SequenceView))
  .add(problems.declare(sequences.enroll).addSuccess(withStatus(EnrollmentView, 201, "CreatedSequenceEnrollment")))
  .add(problems.declare(sequences.unenroll).addSuccess(EnrollmentView))
  .add(
    HttpApiEndpoint.get("enrollments", `${sequences.address}/enrollments`)
      .setPath(sequences.path)
      .setUrlParams(SequenceListParams)
      .addSuccess(Page(EnrollmentView, "SequenceEnrollmentList"))
      .pipe(problems.describe(sequences.enrollments))
  )
  .add(problems.declare(sequences.figures).addSuccess(SequenceFiguresView))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Sequences")
  .annotate(OpenApi.Description, sequenceRules)
