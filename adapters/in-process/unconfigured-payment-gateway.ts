import { BillingNotConfigured, PaymentGateway } from "@roster/application"
import { Effect, Layer } from "effect"

const notConfigured = () => Effect.fail(new BillingNotConfigured())

/** No payment provider (STRIPE_SECRET_KEY unset): every call answers `BillingNotConfigured`. */
export const UnconfiguredPaymentGatewayLive = Layer.succeed(
  PaymentGateway,
  PaymentGateway.of({
    configured: false,
    createCustomer: notConfigured,
    createCheckoutSession: notConfigured,
    createPortalSession: notConfigured,
    retrieveSubscription: notConfigured,
    listSubscriptions: notConfigured
  })
)
