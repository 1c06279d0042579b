/**
 * The Stripe payment gateway against a local server that speaks Stripe's API: customers made
 * once per idempotency key, checkout and portal sessions, subscriptions read back, and Stripe's
 * failures told apart (a refusal of the service's configuration, an outage); and Stripe's events
 * read after the SDK verified them.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import {
  PaymentGateway,
  type PaymentGatewayError,
  PaymentProviderRefused,
  PaymentProviderUnavailable
} from "@roster/application"
import { OrganizationId } from "@roster/domain"
import { Effect, Either, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { constructStripeEvent, makeStripePaymentGateway, readStripeEvent } from "../../adapters/stripe/index.js"
import { closedPortUrl } from "../http/helpers.js"
import { startStripeApi, type StripeApi } from "../support/stripe-api.js"

let stripe: StripeApi
beforeAll(async () => {
  stripe = await startStripeApi()
})
afterAll(() => stripe.close())

const withGateway = <A, E>(use: (gateway: PaymentGateway["Type"]) => Effect.Effect<A, E>, options: { key?: string; base?: string } = {}) =>
  Effect.flatMap(PaymentGateway, use).pipe(
    Effect.provide(makeStripePaymentGateway({
      secretKey: Redacted.make(options.key ?? stripe.secretKey),
      apiBase: options.base ?? stripe.url,
      timeoutMs: 2_000
    }))
  )

const failure = <A>(result: Either.Either<A, PaymentGatewayError>): PaymentGatewayError => {
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left
}

const anOrganization = () => OrganizationId.make(randomUUID())

describe("the Stripe payment gateway against a Stripe stand-in", () => {
  it.live("makes one customer per idempotency key, named and tagged with its organization", () =>
    Effect.gen(function*() {
      const organizationId = anOrganization()
      const before = stripe.customers().length
      const ask = withGateway((g) => g.createCustomer({ organizationId, name: "Acme Newsletters", idempotencyKey: `k-${organizationId}` }))
      const first = yield* ask
      const again = yield* ask
      expect(again).toBe(first)
      const made = stripe.customers().slice(before)
      expect(made).toHaveLength(1)
      expect(made[0]).toMatchObject({ id: first, name: "Acme Newsletters", metadata: { organization_id: organizationId } })
      expect(stripe.calls().at(-1)).toMatchObject({ path: "/v1/customers", idempotencyKey: `k-${organizationId}` })
    }))

  it.live("opens a subscription checkout for the price, naming the organization, and a portal session", () =>
    Effect.gen(function*() {
      const organizationId = anOrganization()
      const { checkout, portal } = yield* withGateway((g) =>
        Effect.gen(function*() {
          const customerId = yield* g.createCustomer({ organizationId, name: "Acme", idempotencyKey: randomUUID() })
          const checkout = yield* g.createCheckoutSession({
            organizationId,
            customerId,
            priceId: stripe.prices.pro,
            successUrl: "https://app.example/billing?done=1",
            cancelUrl: "https://app.example/billing"
          })
          const portal = yield* g.createPortalSession(customerId, "https://app.example/billing")
          return { checkout, portal }
        }))
      expect(checkout).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/)
      expect(portal).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//)
      const session = stripe.sessions().find((s) => checkout.endsWith(s.id))!
      expect(session).toMatchObject({
        mode: "subscription",
        client_reference_id: organizationId,
        price: stripe.prices.pro,
        success_url: "https://app.example/billing?done=1",
        subscriptionMetadata: { organization_id: organizationId }
      })
    }))

  it.live("reads subscriptions back, one or a customer's all, with the period's end from their items", () =>
    Effect.gen(function*() {
      const organizationId = anOrganization()
      const { customerId, sessionId } = yield* withGateway((g) =>
        Effect.gen(function*() {
          const customerId = yield* g.createCustomer({ organizationId, name: "Acme", idempotencyKey: randomUUID() })
          const url = yield* g.createCheckoutSession({
            organizationId,
            customerId,
            priceId: stripe.prices.enterprise,
            successUrl: "https://app.example/",
            cancelUrl: "https://app.example/"
          })
          return { customerId, sessionId: url.split("/").at(-1)! }
        }))
      const made = stripe.completeCheckout(sessionId, { now: new Date("2026-05-01T00:00:00Z") })
      const [one, all] = yield* withGateway((g) => Effect.all([g.retrieveSubscription(made.id), g.listSubscriptions(customerId)]))
      const expected = {
        id: made.id,
        customerId,
        status: "active",
        priceId: stripe.prices.enterprise,
        currentPeriodEnd: new Date("2026-05-31T00:00:00Z"),
        cancelAtPeriodEnd: false
      }
      expect(one).toEqual(expected)
      expect(all).toEqual([expected])
    }))

  it.live("a price Stripe does not know is a refusal (400), naming it", () =>
    Effect.gen(function*() {
      const result = yield* Effect.either(withGateway((g) =>
        Effect.gen(function*() {
          const customerId = yield* g.createCustomer({ organizationId: anOrganization(), name: "Acme", idempotencyKey: randomUUID() })
          return yield* g.createCheckoutSession({
            organizationId: anOrganization(),
            customerId,
            priceId: "price_nobody_made",
            successUrl: "https://app.example/",
            cancelUrl: "https://app.example/"
          })
        })))
      const error = failure(result)
      expect(error).toBeInstanceOf(PaymentProviderRefused)
      expect(error).toMatchObject({ status: 400 })
      expect(error.message).toContain("price_nobody_made")
    }))

  it.live("a key Stripe does not know is a refusal (401)", () =>
    Effect.gen(function*() {
      const result = yield* Effect.either(withGateway((g) => g.listSubscriptions("cus_x"), { key: "sk_test_not_ours" }))
      expect(failure(result)).toMatchObject({ _tag: "PaymentProviderRefused", status: 401 })
    }))

  it.live("a subscription Stripe does not have is a refusal (404)", () =>
    Effect.gen(function*() {
      const result = yield* Effect.either(withGateway((g) => g.retrieveSubscription("sub_nobody")))
      expect(failure(result)).toMatchObject({ _tag: "PaymentProviderRefused", status: 404 })
    }))

  it.live("a 5xx, a 429 and a connection refused are an outage, not a refusal", () =>
    Effect.gen(function*() {
      stripe.script({ status: 500 })
      const five = failure(yield* Effect.either(withGateway((g) => g.listSubscriptions("cus_x"))))
      expect(five).toBeInstanceOf(PaymentProviderUnavailable)
      expect(five.message).toContain("500")
      stripe.script({ status: 429, type: "invalid_request_error", message: "Too many requests" })
      expect(failure(yield* Effect.either(withGateway((g) => g.listSubscriptions("cus_x"))))).toBeInstanceOf(PaymentProviderUnavailable)
      const closed = new URL(yield* Effect.promise(() => closedPortUrl())).origin
      const refused = failure(yield* Effect.either(withGateway((g) => g.listSubscriptions("cus_x"), { base: closed })))
      expect(refused).toBeInstanceOf(PaymentProviderUnavailable)
    }))
})

describe("Stripe's events, verified by the SDK and read", () => {
  it("a subscription event reads as its subscription, with the organization its metadata names", async () => {
    const created = Math.floor(Date.parse("2026-05-02T10:00:00Z") / 1000)
    const event = stripe.event("customer.subscription.updated", {
      id: "sub_1",
      object: "subscription",
      customer: "cus_1",
      status: "past_due",
      cancel_at_period_end: true,
      metadata: { organization_id: "org-1" },
      items: { object: "list", data: [{ price: { id: "price_1" }, current_period_end: created + 100 }] }
    }, new Date(created * 1000))
    const { body, signature } = stripe.sign(event)
    expect(readStripeEvent(await constructStripeEvent(body, signature, stripe.webhookSecret))).toEqual({
      kind: "subscription",
      id: event.id,
      createdAt: new Date(created * 1000),
      organizationId: "org-1",
      subscription: {
        id: "sub_1",
        customerId: "cus_1",
        status: "past_due",
        priceId: "price_1",
        currentPeriodEnd: new Date((created + 100) * 1000),
        cancelAtPeriodEnd: true
      }
    })
  })

  it("an event of an older API version takes the period's end from the subscription itself", () => {
    const event = stripe.event("customer.subscription.created", {
      id: "sub_2",
      object: "subscription",
      customer: { id: "cus_2", object: "customer" },
      status: "active",
      current_period_end: 1_800_000_000,
      items: { object: "list", data: [{ plan: { id: "price_2" } }] }
    })
    const report = readStripeEvent(event)
    expect(report).toMatchObject({
      kind: "subscription",
      subscription: { customerId: "cus_2", priceId: "price_2", currentPeriodEnd: new Date(1_800_000_000_000) }
    })
  })

  it("a completed subscription checkout names its customer, subscription and organization; other kinds are other", () => {
    expect(readStripeEvent(stripe.event("checkout.session.completed", {
      id: "cs_1",
      object: "checkout.session",
      mode: "subscription",
      customer: "cus_3",
      subscription: "sub_3",
      client_reference_id: "org-3"
    }))).toMatchObject({ kind: "checkout_completed", customerId: "cus_3", subscriptionId: "sub_3", organizationId: "org-3" })
    expect(readStripeEvent(stripe.event("checkout.session.completed", { id: "cs_2", object: "checkout.session", mode: "payment" })))
      .toMatchObject({ kind: "other", type: "checkout.session.completed" })
    expect(readStripeEvent(stripe.event("invoice.paid", { id: "in_1", object: "invoice" }))).toMatchObject({ kind: "other", type: "invoice.paid" })
  })

  it("the SDK refuses a forged, altered or stale signature", async () => {
    const event = stripe.event("customer.subscription.updated", { id: "sub_4", object: "subscription" })
    const forged = stripe.sign(event, { secret: "whsec_someone_else" })
    await expect(constructStripeEvent(forged.body, forged.signature, stripe.webhookSecret)).rejects.toThrow()
    const signed = stripe.sign(event)
    await expect(constructStripeEvent(signed.body.replace("sub_4", "sub_5"), signed.signature, stripe.webhookSecret)).rejects.toThrow()
    const stale = stripe.sign(event, { signedAt: new Date(Date.now() - 10 * 60_000) })
    await expect(constructStripeEvent(stale.body, stale.signature, stripe.webhookSecret)).rejects.toThrow()
  })
})
