import { constructStripeEvent } from "./stripe-payment-gateway.js"
import { readStripeEvent } from "./stripe-subscriptions.js"

/** Stripe's webhook events: verified by Stripe's SDK over the raw body, then read as the service's reports. */
export const stripePaymentEvents = { verify: constructStripeEvent, read: readStripeEvent } as const
