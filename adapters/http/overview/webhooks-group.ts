import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { CreatedWebhookEndpointData, WebhookEndpointList, WebhookListParams, WebhookPath } from "./schemas.js"
import { withoutBody } from "../shared/action-body.js"
import { webhookEndpoints as webhooks, webhookTerms } from "../shared/webhook-endpoints.js"
import { envelopes } from "./errors.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"

const { guard, scope } = webhookTerms

export const WebhooksGroup = HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("list", "/webhooks")
      .setUrlParams(WebhookListParams)
      .addSuccess(WebhookEndpointList)
      .pipe(envelopes.describe({
        ...webhooks.list,
        description: `One numbered page of the organization's endpoints, oldest first, without the signing secrets. ${scope}`
      }))
  )
  .add(
    envelopes.declare({
      ...webhooks.create,
      description: "Registers an `active` endpoint for the event kinds given (every kind when `events` is left out) " +
        "and answers it with its `signing_secret`, this once: keep it to verify the `webhook-signature` of " +
        `deliveries. ${guard} An organization may have 50 endpoints. ${scope}`
    }).addSuccess(CreatedWebhookEndpointData)
  )
  .add(
    HttpApiEndpoint.del("delete", "/webhooks/:id")
      .setPath(WebhookPath)
      .pipe(withoutBody)
      .pipe(envelopes.describe({
        ...webhooks.delete,
        description: `Deletes the endpoint with its deliveries; nothing more is sent to it. ${scope}`
      }))
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Webhooks")
  .annotate(
    OpenApi.Description,
    "Endpoints of other systems that hear of the organization's subscriber and tag events. Each delivery is a POST of " +
      "`{id, type, created_at, organization_id, data}` signed the Standard Webhooks way (`webhook-id`, " +
      "`webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with the " +
      "endpoint's `whsec_` secret). A failed delivery is tried again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and " +
      "10 h; an attempt must be answered 2xx within 10 seconds and redirects are not followed; a 429 waits at least " +
      "its `Retry-After`; a 410, or five days of failures, disables the endpoint."
  )
