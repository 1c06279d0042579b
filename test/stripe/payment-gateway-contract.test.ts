/**
 * The PaymentGateway contract against Stripe's adapter, talking to a local server that speaks
 * Stripe's API, and against the gateway of a service with no payment provider configured.
 */
import { describe } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { UnconfiguredPaymentGatewayLive } from "../../adapters/in-process/index.js"
import { makeStripePaymentGateway } from "../../adapters/stripe/index.js"
import { paymentGatewayContract } from "../contract/payment-gateway-contract.js"
import { startStripeApi } from "../support/stripe-api.js"

describe("Stripe payment gateway against a Stripe stand-in", () => {
  paymentGatewayContract({
    configured: true,
    start: Effect.map(
      Effect.acquireRelease(Effect.promise(() => startStripeApi()), (stripe) => Effect.promise(() => stripe.close())),
      (stripe) => ({
        layer: makeStripePaymentGateway({
          secretKey: Redacted.make(stripe.secretKey),
          apiBase: stripe.url,
          timeoutMs: 2_000,
          maxNetworkRetries: 0
        }),
        provider: {
          price: stripe.prices.pro,
          completeCheckout: (url) => stripe.completeCheckout(url.split("/").at(-1)!).id,
          failNext: () => stripe.script({ status: 500 }),
          customers: () => stripe.customers().length
        }
      })
    )
  })
})

describe("payment gateway with no provider configured", () => {
  paymentGatewayContract({ configured: false, start: Effect.succeed({ layer: UnconfiguredPaymentGatewayLive }) })
})
