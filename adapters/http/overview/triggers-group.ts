import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { TriggerId } from "@roster/domain"
import { Schema } from "effect"
import { CreateTriggerRequest, TriggerView, triggerRules, UpdateTriggerRequest } from "../shared/trigger-schemas.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

export const TriggerPath = Schema.Struct({ id: IdInput(TriggerId, "the trigger's id") })
export const TriggerListParams = Schema.Struct(pageParams).annotations(strictInput)

const TriggerData = Single(TriggerView, "EmailTriggerData")
const read = "Scope `triggers:read`."
const write = "Scope `triggers:write`."

export const TriggersGroup = HttpApiGroup.make("triggers")
  .add(
    HttpApiEndpoint.get("list", "/email-triggers")
      .setUrlParams(TriggerListParams)
      .addSuccess(NumberedList(TriggerView, "EmailTriggerList"))
      .annotateContext(OpenApi.annotations({ summary: "List email triggers", description: `Oldest first. ${read}` }))
  )
  .add(
    HttpApiEndpoint.post("create", "/email-triggers")
      .setPayload(CreateTriggerRequest)
      .addSuccess(withStatus(TriggerData, 201, "CreatedEmailTriggerData"))
      .annotateContext(OpenApi.annotations({ summary: "Create an email trigger", description: write }))
  )
  .add(
    HttpApiEndpoint.get("get", "/email-triggers/:id")
      .setPath(TriggerPath)
      .addSuccess(TriggerData)
      .annotateContext(OpenApi.annotations({ summary: "Get an email trigger", description: read }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/email-triggers/:id")
      .setPath(TriggerPath)
      .setPayload(UpdateTriggerRequest)
      .addSuccess(TriggerData)
      .annotateContext(OpenApi.annotations({ summary: "Update an email trigger", description: write }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/email-triggers/:id")
      .setPath(TriggerPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({ summary: "Delete an email trigger", description: write }))
  )
  .middleware(OverviewAuthentication)
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Email triggers")
  .annotate(OpenApi.Description, triggerRules)
