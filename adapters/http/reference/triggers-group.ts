import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { TriggerId } from "@roster/domain"
import { Schema } from "effect"
import { CreateTriggerRequest, TriggerView, triggerRules, UpdateTriggerRequest } from "../shared/trigger-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"
import { NoFields, optionalBody } from "../shared/action-body.js"
import { triggerEndpoints as triggers } from "../shared/trigger-endpoints.js"

export const TriggerPath = Schema.Struct({ trigger_id: IdInput(TriggerId, "the trigger's id") })
export const TriggerListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)
export const TriggersGroup = HttpApiGroup.make("triggers")
  .add(
    HttpApiEndpoint.post("create", "/email-triggers")
      .setPayload(CreateTriggerRequest)
      .addSuccess(withStatus(TriggerView, 201, "CreatedEmailTrigger"))
      .pipe(problems.describe(triggers.create))
  )
  .add(
    HttpApiEndpoint.get("list", "/email-triggers")
      .setUrlParams(TriggerListParams)
      .addSuccess(Page(TriggerView, "EmailTriggerList"))
      .pipe(problems.describe(triggers.list))
  )
  .add(
    HttpApiEndpoint.get("get", "/email-triggers/:trigger_id")
      .setPath(TriggerPath)
      .addSuccess(TriggerView)
      .pipe(problems.describe(triggers.get))
  )
  .add(
    HttpApiEndpoint.put("update", "/email-triggers/:trigger_id")
      .setPath(TriggerPath)
      .setPayload(UpdateTriggerRequest)
      .addSuccess(TriggerView)
      .pipe(problems.describe(triggers.update))
  )
  .add(
    HttpApiEndpoint.del("delete", "/email-triggers/:trigger_id")
      .setPath(TriggerPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(triggers.delete))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Email triggers")
  .annotate(OpenApi.Description, triggerRules)
