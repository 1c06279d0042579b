import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { TriggerView, triggerRules, UpdateTriggerRequest } from "../shared/trigger-schemas.js"
import { triggerEndpoints } from "../shared/trigger-endpoints.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"

export const TriggerListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)

const triggers = triggerEndpoints("trigger_id")

export const TriggersGroup = HttpApiGroup.make("triggers")
  .add(problems.declare(triggers.create).addSuccess(withStatus(TriggerView, 201, "CreatedEmailTrigger")))
  .add(
    HttpApiEndpoint.get("list", "/email-triggers")
      .setUrlParams(TriggerListParams)
      .addSuccess(Page(TriggerView, "EmailTriggerList"))
      .pipe(problems.describe(triggers.list))
  )
  .add(problems.declare(triggers.get).addSuccess(TriggerView))
  .add(
    HttpApiEndpoint.put("update", triggers.address)
      .setPath(triggers.path)
      .setPayload(UpdateTriggerRequest)
      .addSuccess(TriggerView)
      .pipe(problems.describe(triggers.update))
  )
  .add(problems.declare(triggers.delete))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Email triggers")
  .annotate(OpenApi.Description, triggerRules)
