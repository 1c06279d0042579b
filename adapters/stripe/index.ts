export { constructStripeEvent, makeStripePaymentGateway, type StripePaymentGatewayOptions } from "./stripe-payment-gateway.js"
export { stripePaymentEvents } from "./stripe-events.js"
export { readStripeEvent, readSubscription } from "./stripe-subscriptions.js"
