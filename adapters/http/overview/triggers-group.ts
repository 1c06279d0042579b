import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { TriggerId } from "@roster/domain"
import { Schema } from "effect"
import { CreateTriggerRequest, TriggerView, triggerRules, UpdateTriggerRequest } from "../shared/trigger-schemas.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"
import { triggerEndpoints as triggers, triggerScopes } from "../shared/trigger-endpoints.js"
import { envelopes } from "./errors.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"

const { read, write } = triggerScopes

export const TriggerPath = Schema.Struct({ id: IdInput(TriggerId, "the trigger's id") })
export const TriggerListParams = Schema.Struct(pageParams).annotations(strictInput)

const TriggerData = Single(TriggerView, "EmailTriggerData")

export const TriggersGroup = HttpApiGroup.make("triggers")
  .add(
    HttpApiEndpoint.get("list", "/email-triggers")
      .setUrlParams(TriggerListParams)
      .addSuccess(NumberedList(TriggerView, "EmailTriggerList"))
      .pipe(envelopes.describe(triggers.list))
  )
  .add(
    HttpApiEndpoint.post("create", "/email-triggers")
      .setPayload(CreateTriggerRequest)
      .addSuccess(withStatus(TriggerData, 201, "CreatedEmailTriggerData"))
      .pipe(envelopes.describe({
        ...triggers.create,
        description: write
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/email-triggers/:id")
      .setPath(TriggerPath)
      .addSuccess(TriggerData)
      .pipe(envelopes.describe({
        ...triggers.get,
        description: read
      }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/email-triggers/:id")
      .setPath(TriggerPath)
      .setPayload(UpdateTriggerRequest)
      .addSuccess(TriggerData)
      .pipe(envelopes.describe({
        ...triggers.update,
        description: write
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/email-triggers/:id")
      .setPath(TriggerPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(envelopes.describe({
        ...triggers.delete,
        description: write
      }))
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Email triggers")
  .annotate(OpenApi.Description, triggerRules)
