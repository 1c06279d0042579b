import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./authentication.js"
import { problems } from "./problems.js"
import { WebhookEndpoint } from "../shared/webhook-endpoint-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import {
  CreatedWebhookEndpoint,
  GlobalWebhookStats,
  RegeneratedWebhookEndpoint,
  RetriedWebhookDelivery,
  UpdateWebhookRequest,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookDeliveryListParams,
  WebhookDeliveryPath,
  WebhookEndpointList,
  WebhookEventTypeList,
  WebhookPath,
  WebhookStats,
  WebhookTestResult
} from "./webhook-schemas.js"
import { NoFields, optionalBody, withoutBody } from "../shared/action-body.js"
import { webhookEndpoints as webhooks, webhookTerms } from "../shared/webhook-endpoints.js"

const { scope } = webhookTerms

/** How deliveries go out, told once for the group and where it matters on the endpoints. */
const deliveries = `Every event of a kind an active endpoint listens to becomes a delivery to it, sent at least once:
a POST of \`application/json\` with the body \`{id, type, created_at, organization_id, data}\` (\`id\` is the event's id,
\`created_at\` when it happened, \`data\` the resource as the API shows it).

Deliveries are signed the Standard Webhooks way (https://www.standardwebhooks.com): the headers \`webhook-id\` (the
event's id, the same on every attempt, so receivers can drop repeats), \`webhook-timestamp\` (Unix seconds of this
attempt) and \`webhook-signature\`, a space-separated list of \`v1,<base64 HMAC-SHA256 of "id.timestamp.body">\` keyed
with the base64 after \`whsec_\` in the endpoint's signing secret. After a secret is regenerated, the old one signs
beside the new one for 24 hours, so receivers can switch without losing a message. Any Standard Webhooks library
verifies them.

An attempt succeeds when the endpoint answers 2xx within 10 seconds; redirects are not followed (3xx is a failure).
The first attempt goes out at once; after a failure the next ones follow 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h
later (each wait give or take 10 %), eight attempts over about 28 hours; after a 429 the next waits at least its
\`Retry-After\`. A 410 Gone ends the delivery and disables
the endpoint; so do five days of failed attempts without a success. Every attempt is recorded with its status code,
duration and error, and response bodies are never kept. Finished deliveries and their attempts are kept for 30 days.`

export const WebhooksGroup = HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("eventTypes", "/webhooks/event-types")
      .addSuccess(WebhookEventTypeList)
      .pipe(problems.describe(webhooks.eventTypes))
  )
  .add(
    HttpApiEndpoint.get("globalStats", "/webhooks/stats/global")
      .addSuccess(GlobalWebhookStats)
      .pipe(problems.describe(webhooks.globalStats))
  )
  .add(problems.declare(webhooks.create).addSuccess(CreatedWebhookEndpoint))
  .add(
    HttpApiEndpoint.get("list", "/webhooks")
      .addSuccess(WebhookEndpointList)
      .pipe(problems.describe(webhooks.list))
  )
  .add(
    HttpApiEndpoint.get("get", "/webhooks/:webhook_id")
      .setPath(WebhookPath)
      .addSuccess(WebhookEndpoint)
      .pipe(problems.describe(webhooks.get))
  )
  .add(
    HttpApiEndpoint.put("update", "/webhooks/:webhook_id")
      .setPath(WebhookPath)
      .setPayload(UpdateWebhookRequest)
      .addSuccess(WebhookEndpoint)
      .pipe(problems.describe(webhooks.update))
  )
  .add(
    HttpApiEndpoint.del("delete", "/webhooks/:webhook_id")
      .setPath(WebhookPath)
      .pipe(withoutBody)
      .pipe(problems.describe(webhooks.delete))
  )
  .add(
    HttpApiEndpoint.post("test", "/webhooks/:webhook_id/test")
      .setPath(WebhookPath)
      .setPayload(NoFields)
      .addSuccess(WebhookTestResult)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(webhooks.test))
  )
  .add(
    HttpApiEndpoint.post("regenerateSecret", "/webhooks/:webhook_id/regenerate-secret")
      .setPath(WebhookPath)
      .setPayload(NoFields)
      .addSuccess(RegeneratedWebhookEndpoint)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(webhooks.regenerateSecret))
  )
  .add(
    HttpApiEndpoint.get("listDeliveries", "/webhooks/:webhook_id/deliveries")
      .setPath(WebhookPath)
      .setUrlParams(WebhookDeliveryListParams)
      .addSuccess(WebhookDeliveryList)
      .pipe(problems.describe(webhooks.listDeliveries))
  )
  .add(
    HttpApiEndpoint.get("getDelivery", "/webhooks/:webhook_id/deliveries/:delivery_id")
      .setPath(WebhookDeliveryPath)
      .addSuccess(WebhookDelivery)
      .pipe(problems.describe(webhooks.getDelivery))
  )
  .add(
    HttpApiEndpoint.post("retryDelivery", "/webhooks/:webhook_id/deliveries/:delivery_id/retry")
      .setPath(WebhookDeliveryPath)
      .setPayload(NoFields)
      .addSuccess(RetriedWebhookDelivery)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(webhooks.retryDelivery))
  )
  .add(
    HttpApiEndpoint.get("stats", "/webhooks/:webhook_id/stats")
      .setPath(WebhookPath)
      .addSuccess(WebhookStats)
      .pipe(problems.describe(webhooks.stats))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Webhooks")
  .annotate(
    OpenApi.Description,
    `Endpoints of other systems that hear of the organization's subscriber and tag events. ${scope}\n\n${deliveries}`
  )
