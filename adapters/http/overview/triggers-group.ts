import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { TriggerView, triggerRules, UpdateTriggerRequest } from "../shared/trigger-schemas.js"
import { triggerEndpoints, triggerScopes } from "../shared/trigger-endpoints.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"

export const TriggerListParams = Schema.Struct(pageParams).annotations(strictInput)

const triggers = triggerEndpoints("id")
const TriggerData = Single(TriggerView, "EmailTriggerData")
const { read, write } = triggerScopes

export const TriggersGroup = HttpApiGroup.make("triggers")
  .add(
    HttpApiEndpoint.get("list", "/email-triggers")
      .setUrlParams(TriggerListParams)
      .addSuccess(NumberedList(TriggerView, "EmailTriggerList"))
      .pipe(envelopes.describe(triggers.list))
  )
  .add(
    envelopes.declare({ ...triggers.create, description: write })
      .addSuccess(withStatus(TriggerData, 201, "CreatedEmailTriggerData"))
  )
  .add(envelopes.declare({ ...triggers.get, description: read }).addSuccess(TriggerData))
  .add(
    HttpApiEndpoint.patch("update", triggers.address)
      .setPath(triggers.path)
      .setPayload(UpdateTriggerRequest)
      .addSuccess(TriggerData)
      .pipe(envelopes.describe({ ...triggers.update, description: write }))
  )
  .add(envelopes.declare({ ...triggers.delete, description: write }))
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Email triggers")
  .annotate(OpenApi.Description, triggerRules)
