/**
 * Billing in the overview form: /v1/billing (and /api/v1/billing) in the `data` envelope, errors in
 * the `error` envelope, payment events signed as Stripe signs them, and the plan's limits on the
 * overview form's own ways to grow (subscribers with tags by name) after a downgrade.
 */
import { OrganizationRepository } from "@roster/application"
import type { OrganizationId } from "@roster/domain"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { startStripeApi, type StripeApi } from "../../support/stripe-api.js"
import { createSubscriber, expectError, expectInvalid, freshEmail, freshTagName } from "./helpers.js"

let stripe: StripeApi
let server: TestHttpServer
let plain: TestHttpServer
beforeAll(async () => {
  stripe = await startStripeApi()
  ;[server, plain] = await Promise.all([
    startHttpServer({
      form: "overview",
      adapters: UnlimitedRateLimiterLive,
      config: {
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_API_BASE: stripe.url,
        STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
        STRIPE_PRICE_PRO: stripe.prices.pro,
        STRIPE_PRICE_ENTERPRISE: stripe.prices.enterprise
      }
    }),
    startHttpServer({ form: "overview", adapters: UnlimitedRateLimiterLive })
  ])
})
afterAll(() => Promise.all([server.close(), plain.close(), stripe.close()]))

const deliver = (event: unknown, options: { readonly secret?: string; readonly signedAt?: Date } = {}) => {
  const { body, signature } = stripe.sign(event, options)
  return call(server, "POST", "/webhooks/payment-events", {
    body,
    headers: { "content-type": "application/json", "stripe-signature": signature }
  })
}

/** An organization on pro through checkout and Stripe's event; its key, id and subscription. */
const subscribed = async () => {
  const { key, organization } = await server.seedOrganization()
  const started = await call(server, "POST", "/v1/billing/create-checkout-session", { key, json: { price_id: stripe.prices.pro } })
  expect(started.status, started.text).toBe(200)
  const sessionId = String(started.body.data.checkout_url).split("/").at(-1)!
  const sub = stripe.completeCheckout(sessionId)
  const event = stripe.event("checkout.session.completed", stripe.sessions().find((s) => s.id === sessionId)!)
  const applied = await deliver(event)
  expect(applied.status, applied.text).toBe(200)
  expect(applied.body).toEqual({ received: true, outcome: "applied" })
  return { key, organizationId: organization.id as OrganizationId, sub }
}

describe("/v1/billing", () => {
  it("answers the billing subscription in `data`, under /v1 and /api/v1, on a deployment without a payment provider", async () => {
    const { key } = await plain.seedOrganization()
    for (const prefix of ["/v1", "/api/v1"]) {
      const answer = await call(plain, "GET", `${prefix}/billing/subscription`, { key })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.body).toEqual({
        data: {
          tier: "free",
          status: "active",
          current_period_end: null,
          cancel_at_period_end: false,
          max_subscribers: 1000,
          max_emails_per_month: 10000,
          emails_sent_this_month: 0,
          subscriber_count: 0
        }
      })
    }
    for (const route of ["create-checkout-session", "customer-portal", "sync-subscription"]) {
      const json = route === "create-checkout-session" ? { price_id: "price_x" } : undefined
      expectError(await call(plain, "POST", `/v1/billing/${route}`, { key, json }), "billing_not_configured")
    }
  })

  it("checkout, portal and sync answer in `data`; a price of no plan is a validation error naming price_id", async () => {
    const { key, organization } = await server.seedOrganization()
    expectInvalid(await call(server, "POST", "/v1/billing/create-checkout-session", { key, json: { price_id: stripe.prices.other } }), ["price_id"])
    expect(stripe.customers().filter((c) => c.metadata.organization_id === organization.id)).toHaveLength(0)
    const started = await call(server, "POST", "/api/v1/billing/create-checkout-session", { key, json: { price_id: stripe.prices.enterprise } })
    expect(started.status, started.text).toBe(200)
    expect(started.body.data.checkout_url).toMatch(/^https:\/\/checkout\.stripe\.com\//)
    const portal = await call(server, "POST", "/v1/billing/customer-portal", { key })
    expect(portal.status, portal.text).toBe(200)
    expect(portal.body.data.portal_url).toMatch(/^https:\/\/billing\.stripe\.com\//)
    const synced = await call(server, "POST", "/v1/billing/sync-subscription", { key })
    expect(synced.status, synced.text).toBe(200)
    expect(synced.body.data.tier).toBe("free")
    expect(stripe.customers().filter((c) => c.metadata.organization_id === organization.id)).toHaveLength(1)
    stripe.script({ status: 500 })
    expectError(await call(server, "POST", "/v1/billing/sync-subscription", { key }), "payment_provider_unavailable")
  })

  it("is for owners: a member is refused in the error envelope", async () => {
    const owner = await server.signIn()
    const organization = await server.createOrganizationAs(owner)
    const member = await server.signIn()
    await server.addMember(organization.id, member, "member")
    const headers = member.headers(organization.id)
    expectError(await call(server, "GET", "/v1/billing/subscription", { headers }), "forbidden")
    expectError(await call(server, "POST", "/v1/billing/create-checkout-session", { headers, json: { price_id: stripe.prices.pro } }), "forbidden")
    expectError(await call(server, "POST", "/v1/billing/customer-portal", { headers }), "forbidden")
    expectError(await call(server, "POST", "/v1/billing/sync-subscription", { headers }), "forbidden")
    expect((await call(server, "GET", "/v1/billing/subscription", { headers: owner.headers(organization.id) })).status).toBe(200)
  })
})

describe("POST /webhooks/payment-events in the overview form", () => {
  it("a signed checkout completion moves the plan once; forged and stale events answer 401 in the error envelope", async () => {
    const { key, sub } = await subscribed()
    expect((await call(server, "GET", "/v1/billing/subscription", { key })).body.data).toMatchObject({ tier: "pro", status: "active" })
    const canceled = stripe.event("customer.subscription.deleted", stripe.updateSubscription(sub.id, {
      status: "canceled",
      periodEnd: new Date(Date.now() - 1000)
    }), new Date(Date.now() + 5000))
    expectError(await deliver(canceled, { secret: "whsec_forged" }), "invalid_signature")
    expectError(await deliver(canceled, { signedAt: new Date(Date.now() - 10 * 60_000) }), "invalid_signature")
    expect((await call(server, "GET", "/v1/billing/subscription", { key })).body.data.tier).toBe("pro")
    expect((await deliver(canceled)).body.outcome).toBe("applied")
    expect((await deliver(canceled)).body.outcome).toBe("duplicate")
    expect((await call(server, "GET", "/v1/billing/subscription", { key })).body.data).toMatchObject({ tier: "free", status: "canceled" })
  })
})

describe("a downgrade below what the organization holds", () => {
  it("refuses new subscribers, with tags by name or without, with 402 and leaves no tag behind", async () => {
    const { key, organizationId, sub } = await subscribed()
    const kept = await createSubscriber(server, key)
    await server.run(Effect.flatMap(OrganizationRepository, (o) => o.reserveSubscriberSlots(organizationId, 1_200, null)))
    const downgraded = await deliver(stripe.event("customer.subscription.deleted", stripe.updateSubscription(sub.id, {
      status: "canceled",
      periodEnd: new Date(Date.now() - 1000)
    }), new Date(Date.now() + 5000)))
    expect(downgraded.body.outcome).toBe("applied")

    const plain = await call(server, "POST", "/v1/subscribers", { key, json: { email: freshEmail() } })
    expectError(plain, "limit_exceeded")
    expect(plain.body.error.message).toContain("upgrade to pro")
    const name = freshTagName()
    const tagged = await call(server, "POST", "/api/v1/subscribers", { key, json: { email: freshEmail(), tags: [name] } })
    expectError(tagged, "limit_exceeded")
    const tags = await call(server, "GET", "/v1/tags", { key })
    expect(tags.body.data.map((t: { name: string }) => t.name)).not.toContain(name)
    // What it holds stays, and can still change.
    const renamed = await call(server, "PATCH", `/v1/subscribers/${kept.id}/tags`, { key, json: { add: [freshTagName()] } })
    expect(renamed.status, renamed.text).toBe(200)
    expect((await call(server, "GET", "/v1/billing/subscription", { key })).body.data).toMatchObject({
      tier: "free",
      subscriber_count: 1_201,
      max_subscribers: 1000
    })
  })
})
