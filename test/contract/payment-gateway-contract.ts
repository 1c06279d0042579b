import { expect, it } from "@effect/vitest"
import {
  BillingNotConfigured,
  PaymentGateway,
  type PaymentGatewayError,
  PaymentProviderRefused,
  PaymentProviderUnavailable
} from "@roster/application"
import { OrganizationId } from "@roster/domain"
import { Effect, Either, type Layer, type Scope } from "effect"
import { randomUUID } from "node:crypto"

/** The payment provider behind a configured gateway, as a test plays it. */
export interface PaymentProvider {
  /** A price the provider sells. */
  readonly price: string
  /** The customer pays at the checkout page `url`; the subscription it made. */
  readonly completeCheckout: (url: string) => string
  /** The provider fails the next call on its side (a 5xx). */
  readonly failNext: () => void
  /** How many customers the provider holds. */
  readonly customers: () => number
}

export type PaymentGatewayContractOptions =
  | {
    /** A provider is configured: calls reach it. */
    readonly configured: true
    readonly start: Effect.Effect<{ readonly layer: Layer.Layer<PaymentGateway>; readonly provider: PaymentProvider }, never, Scope.Scope>
  }
  | {
    /** No provider is configured: every call answers the documented refusal. */
    readonly configured: false
    readonly start: Effect.Effect<{ readonly layer: Layer.Layer<PaymentGateway> }, never, Scope.Scope>
  }

const failureOf = <A>(result: Either.Either<A, PaymentGatewayError>): PaymentGatewayError => {
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left
}

const anOrganization = () => OrganizationId.make(randomUUID())

const checkoutFor = (customerId: string, priceId: string) => ({
  organizationId: anOrganization(),
  customerId,
  priceId,
  successUrl: "https://app.example/billing?done=1",
  cancelUrl: "https://app.example/billing"
})

/** What every PaymentGateway promises, with a provider behind it or none. */
export const paymentGatewayContract = (options: PaymentGatewayContractOptions): void => {
  it.scopedLive(`says it is ${options.configured ? "" : "not "}configured`, () =>
    Effect.flatMap(options.start, ({ layer }) =>
      Effect.provide(Effect.map(PaymentGateway, (gateway) => expect(gateway.configured).toBe(options.configured)), layer)))

  if (!options.configured) {
    it.scopedLive("every call answers BillingNotConfigured, naming what the operator has to set", () =>
      Effect.flatMap(options.start, ({ layer }) =>
        Effect.provide(
          Effect.gen(function*() {
            const gateway = yield* PaymentGateway
            const calls = [
              gateway.createCustomer({ organizationId: anOrganization(), name: "Acme", idempotencyKey: randomUUID() }),
              gateway.createCheckoutSession(checkoutFor("cus_1", "price_1")),
              gateway.createPortalSession("cus_1", "https://app.example/billing"),
              gateway.retrieveSubscription("sub_1"),
              gateway.listSubscriptions("cus_1")
            ]
            for (const call of calls) {
              const error = failureOf(yield* Effect.either(call as Effect.Effect<unknown, PaymentGatewayError>))
              expect(error).toBeInstanceOf(BillingNotConfigured)
              expect(error.message).toContain("STRIPE_SECRET_KEY")
            }
          }),
          layer
        )))
    return
  }

  const using = <A, E>(use: (gateway: PaymentGateway["Type"], provider: PaymentProvider) => Effect.Effect<A, E>) =>
    Effect.flatMap(options.start, ({ layer, provider }) =>
      Effect.provide(Effect.flatMap(PaymentGateway, (gateway) => use(gateway, provider)), layer))

  it.scopedLive("one customer per idempotency key, another for another key", () =>
    using((gateway) =>
      Effect.gen(function*() {
        const organizationId = anOrganization()
        const key = randomUUID()
        const first = yield* gateway.createCustomer({ organizationId, name: "Acme Newsletters", idempotencyKey: key })
        const again = yield* gateway.createCustomer({ organizationId, name: "Acme Newsletters", idempotencyKey: key })
        const other = yield* gateway.createCustomer({ organizationId, name: "Acme Newsletters", idempotencyKey: randomUUID() })
        expect(first).not.toBe("")
        expect(again).toBe(first)
        expect(other).not.toBe(first)
      })
    ))

  it.scopedLive("a checkout and a portal are pages to send the customer to; a paid checkout is a subscription read back", () =>
    using((gateway, provider) =>
      Effect.gen(function*() {
        const customerId = yield* gateway.createCustomer({ organizationId: anOrganization(), name: "Acme", idempotencyKey: randomUUID() })
        expect(yield* gateway.listSubscriptions(customerId)).toEqual([])
        const checkout = yield* gateway.createCheckoutSession(checkoutFor(customerId, provider.price))
        const portal = yield* gateway.createPortalSession(customerId, "https://app.example/billing")
        expect(new URL(checkout).protocol).toBe("https:")
        expect(new URL(portal).protocol).toBe("https:")

        const subscriptionId = provider.completeCheckout(checkout)
        const one = yield* gateway.retrieveSubscription(subscriptionId)
        expect(one).toMatchObject({ id: subscriptionId, customerId, status: "active", priceId: provider.price, cancelAtPeriodEnd: false })
        expect(one.currentPeriodEnd).toBeInstanceOf(Date)
        expect(yield* gateway.listSubscriptions(customerId)).toEqual([one])
      })
    ))

  it.scopedLive("what the provider does not know is a refusal: a price, a subscription", () =>
    using((gateway) =>
      Effect.gen(function*() {
        const customerId = yield* gateway.createCustomer({ organizationId: anOrganization(), name: "Acme", idempotencyKey: randomUUID() })
        const price = failureOf(yield* Effect.either(gateway.createCheckoutSession(checkoutFor(customerId, "price_nobody_made"))))
        expect(price).toBeInstanceOf(PaymentProviderRefused)
        expect(price.message).toContain("price_nobody_made")
        const subscription = failureOf(yield* Effect.either(gateway.retrieveSubscription("sub_nobody")))
        expect(subscription).toMatchObject({ _tag: "PaymentProviderRefused", status: 404 })
      })
    ))

  it.scopedLive("a failure on the provider's side is an outage, not a refusal, and nothing is made", () =>
    using((gateway, provider) =>
      Effect.gen(function*() {
        const organizationId = anOrganization()
        const key = randomUUID()
        const before = provider.customers()
        provider.failNext()
        const outage = failureOf(yield* Effect.either(gateway.createCustomer({ organizationId, name: "Acme", idempotencyKey: key })))
        expect(outage).toBeInstanceOf(PaymentProviderUnavailable)
        expect(provider.customers()).toBe(before)
        // Asked again with the same key, the customer is made now, once.
        const made = yield* gateway.createCustomer({ organizationId, name: "Acme", idempotencyKey: key })
        expect(yield* gateway.createCustomer({ organizationId, name: "Acme", idempotencyKey: key })).toBe(made)
        expect(provider.customers()).toBe(before + 1)
      })
    ))
}
