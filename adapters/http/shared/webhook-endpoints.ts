import { HttpApiEndpoint } from "@effect/platform"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { CreateWebhookRequest } from "./webhook-endpoint-schemas.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"

const scope = "Scope `webhooks:manage`."
const guard = "A URL whose host is, or resolves to, a loopback, private, link-local or cloud-metadata address is 400 " +
  "`validation_error` on `url` (unless the operator set `WEBHOOK_ALLOW_PRIVATE_TARGETS`)."

/** The webhook endpoints as every wire form describes them. */
export const webhookEndpoints = {
  eventTypes: endpointDescription({
    summary: "List the event kinds",
    description: "Every event kind an endpoint can listen to, with what it means. Any authenticated caller.",
    errors: []
  }),
  globalStats: endpointDescription({
    summary: "Get the organization's webhook figures",
    description: "The attempts of every endpoint of the organization over the last 7 days: how many, how many " +
      "succeeded and failed, the success rate, the median and 95th-percentile durations and the last success and " +
      `failure; with how many endpoints are active and disabled and how many deliveries are waiting. ${scope}`,
    errors: []
  }),
  create: sharedEndpoint({
    endpoint: HttpApiEndpoint.post("create", "/webhooks").setPayload(CreateWebhookRequest),
    summary: "Create a webhook endpoint",
    description: "Registers an `active` endpoint for the event kinds given (every kind when `events` is left out) " +
      "and answers it with its `signing_secret`, this once: keep it to verify the `webhook-signature` of " +
      `deliveries. ${guard} An organization may have 50 endpoints. ${scope}`,
    errors: POST_ERRORS
  }),
  list: endpointDescription({
    summary: "List webhook endpoints",
    description: `Every endpoint of the organization, oldest first, without the signing secrets. ${scope}`,
    errors: []
  }),
  get: endpointDescription({
    summary: "Get a webhook endpoint",
    description: `The endpoint, without its signing secret. ${scope}`,
    errors: ["not_found"]
  }),
  update: endpointDescription({
    summary: "Update a webhook endpoint",
    description: "Changes the URL, event kinds, description or status; fields left out stay as they are. " +
      "`status: disabled` pauses deliveries (they wait, pending), `status: active` resumes an endpoint however it " +
      `was disabled and sends what waited. ${guard} ${scope}`,
    errors: ["not_found", ...BODY_ERRORS]
  }),
  delete: endpointDescription({
    summary: "Delete a webhook endpoint",
    description: `Deletes the endpoint with its deliveries and their attempts; nothing more is sent to it. ${scope}`,
    errors: ["not_found", ...BODY_ERRORS]
  }),
  test: endpointDescription({
    summary: "Send a test event",
    description: "Sends one `webhook.test` event to the endpoint at once, signed and sent like any delivery " +
      "(`data` is `{webhook_id, message}`), and answers what came back: `success` for a 2xx, the `status_code` " +
      "(0 when no answer came within 10 seconds, the connection was refused or the target is not allowed), the " +
      "`response_time_ms` and, on failure, the `error`. It is sent whatever the endpoint's status and event kinds, " +
      `is not retried and is not recorded as a delivery. ${scope}`,
    errors: ["not_found", ...POST_ERRORS]
  }),
  regenerateSecret: endpointDescription({
    summary: "Regenerate a webhook endpoint's signing secret",
    description: "Gives the endpoint a new signing secret and answers it, this once. For 24 hours " +
      "(`previous_secret_expires_at`) every delivery carries two signatures in `webhook-signature`, one with the " +
      `new secret and one with the old, so receivers can switch without losing a message. ${scope}`,
    errors: ["not_found", ...POST_ERRORS]
  }),
  listDeliveries: endpointDescription({
    summary: "List an endpoint's deliveries",
    description: "One page of the endpoint's deliveries, newest first, each with its attempts, optionally of one " +
      `status. Follow \`next_cursor\` for the next page. ${scope}`,
    errors: ["not_found"]
  }),
  getDelivery: endpointDescription({
    summary: "Get a delivery",
    description: `The delivery with every attempt, oldest first. ${scope}`,
    errors: ["not_found"]
  }),
  retryDelivery: endpointDescription({
    summary: "Retry a delivery",
    description: "Makes the delivery `pending` and due at once, whatever became of it, and answers 202: a worker " +
      "sends it as a new attempt with the same `webhook-id`, so receivers that drop repeats see it once. A " +
      `disabled endpoint holds it until resumed. ${scope}`,
    errors: ["not_found", ...POST_ERRORS]
  }),
  stats: endpointDescription({
    summary: "Get an endpoint's figures",
    description: "The endpoint's attempts over the last 7 days: how many, how many succeeded and failed, the " +
      "success rate, the median and 95th-percentile durations, the last success and failure, and how many " +
      `deliveries are waiting. ${scope}`,
    errors: ["not_found"]
  })
}

export const webhookTerms = { scope, guard }
