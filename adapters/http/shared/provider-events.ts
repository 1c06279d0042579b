import { type HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ProviderEvents } from "@roster/application"
import { Clock, Effect, Redacted, Schema } from "effect"
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { apiError } from "./api-error.js"
import { HttpSettings } from "./http-settings.js"
import { ProviderEventReaders } from "./provider-event-readers.js"
import type { WireErrors } from "./wire-errors.js"

/**
 * Events of the email provider (`POST /webhooks/resend-events`), the same in every form. An event
 * is taken when it is signed with EMAIL_WEBHOOK_SECRET, either way:
 * - `X-EmailProvider-Signature`: the hex HMAC-SHA256 of the raw body, compared in constant time;
 * - Resend's own Svix headers (`svix-id`, `svix-timestamp`, `svix-signature`), within five minutes,
 *   checked by the Standard Webhooks library (Svix's scheme) when the secret is a `whsec_` one.
 * Anything else is 401 with nothing changed.
 */

const Received = Schema.Struct({
  received: Schema.Literal(true),
  recorded: Schema.Int.annotations({
    description: "emails the event was recorded on: 0 for a repeat, an unknown email or a kind that is not tracked"
  })
}).annotations({ identifier: "ProviderEventReceived" })

export const makeProviderEventsGroup = (errors: WireErrors) =>
  HttpApiGroup.make("providerEvents")
    .add(
      HttpApiEndpoint.post("resendEvents", "/webhooks/resend-events")
        .addSuccess(Received)
        .pipe(errors.endpoint("invalid_signature", "validation_error", "payload_too_large"))
        .annotateContext(OpenApi.annotations({
          summary: "Receive an email provider event",
          description: "Resend's webhook events, signed with `EMAIL_WEBHOOK_SECRET`: `X-EmailProvider-Signature` (the hex " +
            "HMAC-SHA256 of the raw body), or Resend's own `svix-id`, `svix-timestamp` and `svix-signature` headers " +
            "(at most five minutes old). 401 `invalid_signature` otherwise, with nothing changed. The event finds its " +
            "email by the provider's id, else by its recipient; delivery, delays, opens and clicks update the email's " +
            "record. A hard bounce makes the address `bounced` in every organization that holds it, emailed or not " +
            "(one sending reputation); a complaint makes the subscriber of the email complained about `complained`, " +
            "or, when the email is unknown, the address in every organization that holds it. Webhooks hear " +
            "`subscriber.updated`. The same event twice changes nothing twice; kinds not tracked are acknowledged."
        }))
    )
    .annotate(OpenApi.Title, "Provider events")
    .annotate(OpenApi.Description, "What the email provider tells of the emails it handled; no API key.")

const sameHex = (expected: string, given: string): boolean => {
  if (!/^[0-9a-f]+$/i.test(given) || given.length !== expected.length) return false
  return timingSafeEqual(Buffer.from(expected, "hex"), Buffer.from(given.toLowerCase(), "hex"))
}

const header = (headers: Readonly<Record<string, string | undefined>>, name: string): string | undefined => {
  const value = headers[name]
  return value === undefined || value === "" ? undefined : value
}

/**
 * The key of a verified event, or `undefined` when the signature does not hold: Svix's message id,
 * or (for an HMAC-signed body) a digest of the body, so a replay of the same body is one event.
 */
export const verifiedEventKey = (
  secret: string,
  body: string,
  headers: Readonly<Record<string, string | undefined>>
): string | undefined => {
  const hmac = header(headers, "x-emailprovider-signature")
  if (hmac !== undefined) {
    const expected = createHmac("sha256", secret).update(body, "utf8").digest("hex")
    return sameHex(expected, hmac.trim().replace(/^sha256=/i, "")) ? `sha256:${createHash("sha256").update(body).digest("hex")}` : undefined
  }
  const id = header(headers, "svix-id")
  const timestamp = header(headers, "svix-timestamp")
  const signature = header(headers, "svix-signature")
  if (id === undefined || timestamp === undefined || signature === undefined || !secret.startsWith("whsec_")) {
    return undefined
  }
  try {
    new Webhook(secret).verify(body, { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature })
    return `svix:${id}`
  } catch {
    return undefined
  }
}

const refused = (detail: string) => apiError("invalid_signature", detail)

// The API's own errors and requirements do not matter to these handlers; any API with the group will do.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const makeProviderEventsHandlersLive = <ApiId extends string>(api: HttpApi.HttpApi<ApiId, HttpApiGroup.HttpApiGroup.Any, any, any>) =>
  HttpApiBuilder.group(
    api as unknown as HttpApi.HttpApi<ApiId, ReturnType<typeof makeProviderEventsGroup>>,
    "providerEvents",
    (handlers) =>
      Effect.gen(function*() {
        const events = yield* ProviderEvents
        const settings = yield* HttpSettings
        const readers = yield* ProviderEventReaders
        return handlers.handle("resendEvents", ({ request }) =>
          Effect.gen(function*() {
            const secret = settings.emailWebhookSecret
            if (secret === null || secret === undefined) {
              return yield* Effect.fail(refused("provider events are not accepted: the operator has not set EMAIL_WEBHOOK_SECRET"))
            }
            const body = yield* Effect.orElse(request.text, () => Effect.succeed(""))
            const key = verifiedEventKey(Redacted.value(secret), body, request.headers)
            if (key === undefined) {
              return yield* Effect.fail(refused(
                "the event is not signed with the service's secret (X-EmailProvider-Signature, or svix-id, " +
                  "svix-timestamp and svix-signature within five minutes)"
              ))
            }
            let parsed: unknown
            try {
              parsed = JSON.parse(body)
            } catch {
              return yield* Effect.fail(apiError("validation_error", "body: must be a JSON event", {
                fields: [{ field: "body", message: "must be a JSON event" }]
              }))
            }
            const receivedAt = new Date(yield* Clock.currentTimeMillis)
            const outcome = yield* events.receive(readers.email(parsed, key, receivedAt))
            return { received: true as const, recorded: outcome.recorded }
          }))
      })
  )
