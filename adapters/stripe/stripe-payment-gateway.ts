import {
  PaymentGateway,
  PaymentProviderRefused,
  PaymentProviderUnavailable,
  type PaymentGatewayError
} from "@roster/application"
import type { SubscriptionSnapshot } from "@roster/domain"
import { Effect, Layer, Redacted } from "effect"
import type StripeSdk from "stripe"
import { readSubscription } from "./stripe-subscriptions.js"

export interface StripePaymentGatewayOptions {
  readonly secretKey: Redacted.Redacted<string>
  /** Stripe's API (`https://api.stripe.com`); another base serves tests (STRIPE_API_BASE). */
  readonly apiBase?: string | undefined
  /** How long a call may take, in milliseconds. */
  readonly timeoutMs?: number | undefined
  /** Retries of a call that failed in a way that may pass (the SDK's, with idempotency keys). */
  readonly maxNetworkRetries?: number | undefined
}

const MAX_REASON_LENGTH = 300

/**
 * The Stripe SDK, loaded when first needed: a process that never calls Stripe (a worker, or an API
 * without STRIPE_SECRET_KEY) does not carry its hundreds of resource modules.
 */
const loadStripe = (): Promise<typeof StripeSdk> => import("stripe").then((module) => module.default)

/**
 * A failure of the SDK as the port's: Stripe unreachable, timed out, rate limited or failing on
 * its side may pass; anything else it answered is a refusal the service's configuration causes.
 */
const failureOf = (Stripe: typeof StripeSdk) => (cause: unknown): PaymentGatewayError => {
  const message = (cause instanceof Error ? cause.message : String(cause)).slice(0, MAX_REASON_LENGTH)
  if (cause instanceof Stripe.errors.StripeError) {
    const status = cause.statusCode
    if (cause instanceof Stripe.errors.StripeConnectionError || status === undefined || status === 429 || status >= 500) {
      return new PaymentProviderUnavailable({ reason: `Stripe ${status === undefined ? "unreachable" : `answered ${status}`}: ${message}` })
    }
    return new PaymentProviderRefused({ status, reason: message })
  }
  return new PaymentProviderUnavailable({ reason: `Stripe unreachable: ${message}` })
}

const notASubscription = (what: string) =>
  new PaymentProviderUnavailable({ reason: `Stripe answered ${what} that is not a subscription` })

/** The payment provider over Stripe's SDK: customers, Checkout, the customer portal and subscriptions. */
export const makeStripePaymentGateway = (options: StripePaymentGatewayOptions): Layer.Layer<PaymentGateway> =>
  Layer.effect(PaymentGateway, Effect.map(Effect.promise(loadStripe), (Stripe) => {
    const base = options.apiBase === undefined ? undefined : new URL(options.apiBase)
    const stripe = new Stripe(Redacted.value(options.secretKey), {
      maxNetworkRetries: options.maxNetworkRetries ?? 1,
      timeout: options.timeoutMs ?? 10_000,
      telemetry: false,
      ...(base === undefined ? {} : {
        host: base.hostname,
        port: base.port === "" ? (base.protocol === "https:" ? 443 : 80) : Number(base.port),
        protocol: base.protocol === "https:" ? "https" as const : "http" as const
      })
    })
    const call = <A>(f: () => Promise<A>): Effect.Effect<A, PaymentGatewayError> =>
      Effect.tryPromise({ try: f, catch: failureOf(Stripe) }).pipe(
        Effect.tapError((error) => Effect.logWarning("a call to Stripe failed", error.message))
      )
    const snapshot = (u: unknown): Effect.Effect<SubscriptionSnapshot, PaymentGatewayError> => {
      const read = readSubscription(u)
      return read === undefined ? Effect.fail(notASubscription("an object")) : Effect.succeed(read)
    }
    const urlOf = (what: string) => (session: { readonly url?: string | null }) =>
      typeof session.url === "string" && session.url !== ""
        ? Effect.succeed(session.url)
        : Effect.fail(new PaymentProviderUnavailable({ reason: `Stripe answered a ${what} without a URL` }))

    return PaymentGateway.of({
      configured: true,
      createCustomer: ({ idempotencyKey, name, organizationId }) =>
        Effect.map(
          call(() =>
            stripe.customers.create({ name, metadata: { organization_id: organizationId } }, { idempotencyKey })
          ),
          (customer) => customer.id
        ),
      createCheckoutSession: ({ cancelUrl, customerId, organizationId, priceId, successUrl }) =>
        call(() =>
          stripe.checkout.sessions.create({
            mode: "subscription",
            customer: customerId,
            client_reference_id: organizationId,
            line_items: [{ price: priceId, quantity: 1 }],
            success_url: successUrl,
            cancel_url: cancelUrl,
            metadata: { organization_id: organizationId },
            subscription_data: { metadata: { organization_id: organizationId } }
          })
        ).pipe(Effect.flatMap(urlOf("checkout session"))),
      createPortalSession: (customerId, returnUrl) =>
        call(() => stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl })).pipe(
          Effect.flatMap(urlOf("portal session"))
        ),
      retrieveSubscription: (subscriptionId) =>
        call(() => stripe.subscriptions.retrieve(subscriptionId)).pipe(Effect.flatMap(snapshot)),
      listSubscriptions: (customerId) =>
        call(() => stripe.subscriptions.list({ customer: customerId, status: "all", limit: 20 })).pipe(
          Effect.flatMap((list) => Effect.forEach(list.data, snapshot))
        )
    })
  }))

/** Verifies a Stripe event with the SDK (signature and its five-minute tolerance) and returns it; rejects when it does not hold. */
export const constructStripeEvent = (body: string, signature: string, secret: string): Promise<unknown> =>
  loadStripe().then((Stripe) => Stripe.webhooks.constructEvent(body, signature, secret))
