import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { TriggerId } from "@roster/domain"
import { Schema } from "effect"
import { CreateTriggerRequest, TriggerView, triggerRules, UpdateTriggerRequest } from "../shared/trigger-schemas.js"
import { API_ROUTE_ERRORS, BODY_ERRORS, POST_ERRORS } from "../shared/wire-errors.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

export const TriggerPath = Schema.Struct({ trigger_id: IdInput(TriggerId, "the trigger's id") })
export const TriggerListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)

const read = "Scope `triggers:read`."
const write = "Scope `triggers:write`."

export const TriggersGroup = HttpApiGroup.make("triggers")
  .add(
    HttpApiEndpoint.post("create", "/email-triggers")
      .setPayload(CreateTriggerRequest)
      .addSuccess(withStatus(TriggerView, 201, "CreatedEmailTrigger"))
      .pipe(problems.endpoint("not_found", ...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Create an email trigger",
        description: `404 for a template or tag the organization does not have. ${write}`
      }))
  )
  .add(
    HttpApiEndpoint.get("list", "/email-triggers")
      .setUrlParams(TriggerListParams)
      .addSuccess(Page(TriggerView, "EmailTriggerList"))
      .annotateContext(OpenApi.annotations({ summary: "List email triggers", description: `Oldest first. ${read}` }))
  )
  .add(
    HttpApiEndpoint.get("get", "/email-triggers/:trigger_id")
      .setPath(TriggerPath)
      .addSuccess(TriggerView)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({ summary: "Get an email trigger", description: `With its firings. ${read}` }))
  )
  .add(
    HttpApiEndpoint.put("update", "/email-triggers/:trigger_id")
      .setPath(TriggerPath)
      .setPayload(UpdateTriggerRequest)
      .addSuccess(TriggerView)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Update an email trigger",
        description: `Fields left out stay; \`status: paused\` stops it. ${write}`
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/email-triggers/:trigger_id")
      .setPath(TriggerPath)
      .setPayload(NoFields)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Delete an email trigger",
        description: `Its waiting emails are not sent; emails it sent stay. ${write}`
      }))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Email triggers")
  .annotate(OpenApi.Description, triggerRules)
