import { type HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Billing } from "@roster/application"
import { Effect, Either, Redacted, Schema } from "effect"
import { apiError } from "./api-error.js"
import { HttpSettings } from "./http-settings.js"
import { ProviderEventReaders } from "./provider-event-readers.js"
import { answering } from "./respond.js"
import type { WireErrors } from "./wire-errors.js"

/**
 * Events of the payment provider (`POST /webhooks/payment-events`), the same in every form. An
 * event is taken when Stripe's SDK verifies its `Stripe-Signature` over the raw body against
 * STRIPE_WEBHOOK_SECRET, within the SDK's tolerance (five minutes); anything else is 401 with
 * nothing changed.
 */

const Received = Schema.Struct({
  received: Schema.Literal(true),
  outcome: Schema.Literal("applied", "duplicate", "stale", "unknown_customer", "ignored").annotations({
    description: "`applied`; `duplicate` (taken before); `stale` (older than what the organization's account holds); " +
      "`unknown_customer` (of no organization here); `ignored` (a kind that is not tracked)"
  })
}).annotations({ identifier: "PaymentEventReceived" })

export const makePaymentEventsGroup = (errors: WireErrors) =>
  HttpApiGroup.make("paymentEvents")
    .add(
      HttpApiEndpoint.post("paymentEvents", "/webhooks/payment-events")
        .addSuccess(Received)
        .pipe(errors.endpoint(
          "invalid_signature",
          "validation_error",
          "payload_too_large",
          "billing_not_configured",
          "payment_provider_unavailable",
          "payment_provider_error"
        ))
        .annotateContext(OpenApi.annotations({
          summary: "Receive a payment provider event",
          description: "Stripe's webhook events, signed with `STRIPE_WEBHOOK_SECRET` in the `Stripe-Signature` header " +
            "(at most five minutes old); 401 `invalid_signature` otherwise, with nothing changed. " +
            "`checkout.session.completed` (its subscription is read from Stripe) and `customer.subscription.created`, " +
            "`.updated`, `.deleted`, `.paused` and `.resumed` set the organization's billing status and plan: the " +
            "price's tier while trialing, active or past due; a canceled, unpaid or paused subscription falls back to " +
            "`free` when its period ends. Each event is taken once (by its id), and an event older than the last " +
            "one applied to the subscription changes nothing. Other kinds are acknowledged. 503 when Stripe cannot " +
            "be asked for a checkout's subscription: Stripe sends the event again."
        }))
    )
    .annotate(OpenApi.Title, "Payment events")
    .annotate(OpenApi.Description, "What the payment provider tells of subscriptions; no API key.")

const refused = (detail: string) => apiError("invalid_signature", detail)

// The API's own errors and requirements do not matter to these handlers; any API with the group will do.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const makePaymentEventsHandlersLive = <ApiId extends string>(api: HttpApi.HttpApi<ApiId, HttpApiGroup.HttpApiGroup.Any, any, any>) =>
  HttpApiBuilder.group(
    api as unknown as HttpApi.HttpApi<ApiId, ReturnType<typeof makePaymentEventsGroup>>,
    "paymentEvents",
    (handlers) =>
      Effect.gen(function*() {
        const billing = yield* Billing
        const settings = yield* HttpSettings
        const { payment } = yield* ProviderEventReaders
        return handlers.handle("paymentEvents", ({ request }) =>
          Effect.gen(function*() {
            const secret = settings.stripeWebhookSecret
            if (secret === null || secret === undefined) {
              return yield* Effect.fail(refused("payment events are not accepted: the operator has not set STRIPE_WEBHOOK_SECRET"))
            }
            const signature = request.headers["stripe-signature"]
            if (signature === undefined || signature === "") {
              return yield* Effect.fail(refused("the event carries no Stripe-Signature header"))
            }
            const body = yield* Effect.orElse(request.text, () => Effect.succeed(""))
            const verified = yield* Effect.either(Effect.tryPromise({
              try: () => payment.verify(body, signature, Redacted.value(secret)),
              catch: (error) => error
            }))
            if (Either.isLeft(verified)) {
              if (verified.left instanceof SyntaxError) {
                return yield* Effect.fail(apiError("validation_error", "body: must be a JSON event", {
                  fields: [{ field: "body", message: "must be a JSON event" }]
                }))
              }
              return yield* Effect.fail(refused(
                "the event is not signed with the service's secret: Stripe-Signature does not match the body, or is " +
                  "more than five minutes old"
              ))
            }
            const outcome = yield* answering(billing.receiveEvent(payment.read(verified.right)))
            return { received: true as const, outcome }
          }))
      })
  )
