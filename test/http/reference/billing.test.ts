/**
 * /api/v1/billing and POST /webhooks/payment-events over the real server, with Stripe played by a
 * local server that speaks its API: the plan and its use on every deployment, checkout and portal
 * sessions with one Stripe customer per organization, events signed as Stripe signs them that move
 * the plan (each once, never backwards), the plan's limits after a downgrade, and the failures:
 * no provider, an outage, a refusal, forged and stale events, a member.
 */
import { Billing, EmailUsage, OrganizationRepository } from "@roster/application"
import { Organization, usageMonth } from "@roster/domain"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { startStripeApi, type StripeApi, type StripeSubscription } from "../../support/stripe-api.js"
import { fireTriggers } from "../../support/worker-steps.js"
import { closedPortUrl, createSubscriber, expectInvalid, expectProblem, freshEmail } from "../helpers.js"

let stripe: StripeApi
let server: TestHttpServer
let plain: TestHttpServer
beforeAll(async () => {
  stripe = await startStripeApi()
  ;[server, plain] = await Promise.all([
    startHttpServer({ adapters: UnlimitedRateLimiterLive, config: stripeConfig() }),
    startHttpServer({ adapters: UnlimitedRateLimiterLive })
  ])
})
afterAll(() => Promise.all([server.close(), plain.close(), stripe.close()]))

const stripeConfig = (overrides: Record<string, string> = {}) => ({
  STRIPE_SECRET_KEY: stripe.secretKey,
  STRIPE_API_BASE: stripe.url,
  STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
  STRIPE_PRICE_PRO: stripe.prices.pro,
  STRIPE_PRICE_ENTERPRISE: stripe.prices.enterprise,
  ...overrides
})

const path = "/api/v1/billing"
const eventsPath = "/webhooks/payment-events"

const subscription = (on: TestHttpServer, key: string) => call(on, "GET", `${path}/subscription`, { key })

const checkout = (on: TestHttpServer, key: string, json: Record<string, unknown> = { price_id: stripe.prices.pro }) =>
  call(on, "POST", `${path}/create-checkout-session`, { key, json })

/** Delivers an event to the server as Stripe does: the raw body with its `Stripe-Signature`. */
const deliver = (
  on: TestHttpServer,
  event: unknown,
  options: { readonly secret?: string; readonly signedAt?: Date; readonly alter?: (body: string) => string } = {}
) => {
  const { body, signature } = stripe.sign(event, options)
  return call(on, "POST", eventsPath, {
    body: options.alter === undefined ? body : options.alter(body),
    headers: { "content-type": "application/json", "stripe-signature": signature }
  })
}

const customersOf = (organizationId: string) =>
  stripe.customers().filter((c) => c.metadata.organization_id === organizationId)

/** A second after `base`, or `n` of them. */
const secondsAfter = (base: Date, n: number) => new Date(base.getTime() + n * 1000)

/**
 * An organization that went through checkout for `price` and paid; Stripe's checkout completion
 * delivered. Its key, its id and its subscription at Stripe.
 */
const subscribed = async (price: string = stripe.prices.pro, on: TestHttpServer = server) => {
  const { key, organization } = await on.seedOrganization()
  const started = await checkout(on, key, { price_id: price })
  expect(started.status, started.text).toBe(200)
  const sessionId = String(started.body.checkout_url).split("/").at(-1)!
  const sub = stripe.completeCheckout(sessionId)
  const session = stripe.sessions().find((s) => s.id === sessionId)!
  const completed = await deliver(on, stripe.event("checkout.session.completed", session))
  expect(completed.status, completed.text).toBe(200)
  expect(completed.body).toEqual({ received: true, outcome: "applied" })
  return { key, organizationId: organization.id, sub, session }
}

const changed = (sub: StripeSubscription, created: Date, type = "customer.subscription.updated") =>
  stripe.event(type, sub, created)

describe("GET /api/v1/billing/subscription", () => {
  it("answers the free plan, its limits and what the organization uses, on a deployment without a payment provider", async () => {
    const { key, organization } = await plain.seedOrganization()
    await createSubscriber(plain, key)
    await createSubscriber(plain, key)
    await plain.run(Effect.flatMap(EmailUsage, (usage) => usage.reserve(organization.id, usageMonth(new Date()), 7, null)))
    const answer = await subscription(plain, key)
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({
      tier: "free",
      status: "active",
      current_period_end: null,
      cancel_at_period_end: false,
      max_subscribers: 1000,
      max_emails_per_month: 10000,
      emails_sent_this_month: 7,
      subscriber_count: 2
    })
    const enterprise = await plain.seedOrganization({ tier: "enterprise" })
    expect((await subscription(plain, enterprise.key)).body).toMatchObject({
      tier: "enterprise",
      max_subscribers: null,
      max_emails_per_month: null
    })
  })

  it("is for owners: a member and a key without * can neither read nor change billing", async () => {
    const owner = await server.signIn()
    const organization = await server.createOrganizationAs(owner)
    const member = await server.signIn()
    await server.addMember(organization.id, member, "member")
    const asMember = { headers: member.headers(organization.id) }
    for (const [method, route, json] of [
      ["GET", "subscription", undefined],
      ["POST", "create-checkout-session", { price_id: stripe.prices.pro }],
      ["POST", "customer-portal", undefined],
      ["POST", "sync-subscription", undefined]
    ] as const) {
      const answer = await call(server, method, `${path}/${route}`, { ...asMember, json })
      expectProblem(answer, "forbidden", `${path}/${route}`)
      expect(answer.body.detail).toContain("member role")
    }
    expect(customersOf(organization.id)).toHaveLength(0)
    const { organization: other } = await server.seedOrganization()
    const narrow = await server.createApiKey(other, ["subscribers:read", "subscribers:write"])
    expectProblem(await subscription(server, narrow), "forbidden", `${path}/subscription`)
    expectProblem(await call(server, "GET", `${path}/subscription`), "unauthorized", `${path}/subscription`)
    const asOwner = await call(server, "GET", `${path}/subscription`, { headers: owner.headers(organization.id) })
    expect(asOwner.status, asOwner.text).toBe(200)
    expect(asOwner.body.tier).toBe("free")
  })
})

describe("without a payment provider", () => {
  it("checkout, the portal and sync answer 503 billing_not_configured, and the plan is still shown", async () => {
    const { key } = await plain.seedOrganization()
    for (const [route, json] of [
      ["create-checkout-session", { price_id: "price_anything" }],
      ["customer-portal", undefined],
      ["sync-subscription", undefined]
    ] as const) {
      const answer = await call(plain, "POST", `${path}/${route}`, { key, json })
      expectProblem(answer, "billing_not_configured", `${path}/${route}`)
      expect(answer.body.detail).toContain("STRIPE_SECRET_KEY")
    }
    expect((await subscription(plain, key)).status).toBe(200)
  })

  it("payment events are refused without STRIPE_WEBHOOK_SECRET", async () => {
    const answer = await deliver(plain, stripe.event("invoice.paid", { id: "in_1", object: "invoice" }))
    expectProblem(answer, "invalid_signature", eventsPath)
    expect(answer.body.detail).toContain("STRIPE_WEBHOOK_SECRET")
  })
})

describe("POST /api/v1/billing/create-checkout-session", () => {
  it("answers a Stripe Checkout page for the pro price, made for the organization's one customer", async () => {
    const { key, organization } = await server.seedOrganization()
    const answer = await checkout(server, key)
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({ checkout_url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/) })
    const [customer] = customersOf(organization.id)
    expect(customersOf(organization.id)).toHaveLength(1)
    expect(customer).toMatchObject({ name: organization.name })
    const session = stripe.sessions().find((s) => answer.body.checkout_url.endsWith(s.id))!
    expect(session).toMatchObject({
      mode: "subscription",
      customer: customer!.id,
      client_reference_id: organization.id,
      price: stripe.prices.pro,
      success_url: "http://localhost:3000",
      cancel_url: "http://localhost:3000"
    })
    const chosen = await checkout(server, key, {
      price_id: stripe.prices.enterprise,
      success_url: "https://app.example/billing?paid=1",
      cancel_url: "https://app.example/billing"
    })
    expect(chosen.status, chosen.text).toBe(200)
    expect(stripe.sessions().at(-1)).toMatchObject({
      customer: customer!.id,
      price: stripe.prices.enterprise,
      success_url: "https://app.example/billing?paid=1",
      cancel_url: "https://app.example/billing"
    })
    expect(customersOf(organization.id)).toHaveLength(1)
  })

  it("concurrent checkouts make exactly one Stripe customer, under the organization's idempotency key", async () => {
    const { key, organization } = await server.seedOrganization()
    const answers = await Promise.all(Array.from({ length: 10 }, () => checkout(server, key)))
    for (const answer of answers) expect(answer.status, answer.text).toBe(200)
    expect(customersOf(organization.id)).toHaveLength(1)
    const customerId = customersOf(organization.id)[0]!.id
    expect(stripe.sessions().filter((s) => s.client_reference_id === organization.id).map((s) => s.customer))
      .toEqual(Array.from({ length: 10 }, () => customerId))
    const creations = stripe.calls().filter((c) => c.path === "/v1/customers" && c.params["metadata[organization_id]"] === organization.id)
    expect(creations).toHaveLength(1)
    expect(creations[0]!.idempotencyKey).toBe(`roster-customer-${organization.id}`)
  })

  it("answers 400 naming price_id for a price that is no plan's, and asks nothing of Stripe", async () => {
    const { key, organization } = await server.seedOrganization()
    const calls = stripe.calls().length
    for (const price_id of [stripe.prices.other, "price_made_up", ""]) {
      const answer = await checkout(server, key, { price_id })
      expectInvalid(answer, `${path}/create-checkout-session`, ["price_id"])
    }
    expect((await checkout(server, key, { price_id: "price_made_up" })).body.detail).toContain(stripe.prices.pro)
    expectInvalid(await checkout(server, key, {}), `${path}/create-checkout-session`, ["price_id"])
    expectInvalid(await checkout(server, key, { price_id: stripe.prices.pro, plan: "pro" }), `${path}/create-checkout-session`, ["plan"])
    expectInvalid(
      await checkout(server, key, { price_id: stripe.prices.pro, success_url: "javascript:alert(1)" }),
      `${path}/create-checkout-session`,
      ["success_url"]
    )
    expect(stripe.calls().length).toBe(calls)
    expect(customersOf(organization.id)).toHaveLength(0)
  })

  it("a Stripe outage answers 503 with nothing half done; the next try makes the one customer", async () => {
    const { key, organization } = await server.seedOrganization()
    stripe.script({ status: 500 })
    const down = await checkout(server, key)
    expectProblem(down, "payment_provider_unavailable", `${path}/create-checkout-session`)
    expect(customersOf(organization.id)).toHaveLength(0)
    expect((await subscription(server, key)).body).toMatchObject({ tier: "free", status: "active" })

    // The customer made (by the portal), Stripe then fails the checkout itself: the next try uses that customer.
    expect((await call(server, "POST", `${path}/customer-portal`, { key })).status).toBe(200)
    stripe.script({ status: 503 })
    const first = await checkout(server, key)
    expectProblem(first, "payment_provider_unavailable", `${path}/create-checkout-session`)
    const again = await checkout(server, key)
    expect(again.status, again.text).toBe(200)
    expect(customersOf(organization.id)).toHaveLength(1)
  })

  it("Stripe unreachable answers 503; a key Stripe refuses answers 502 payment_provider_error", async () => {
    const unreachable = await startHttpServer({
      adapters: UnlimitedRateLimiterLive,
      config: stripeConfig({ STRIPE_API_BASE: new URL(await closedPortUrl()).origin })
    })
    const refused = await startHttpServer({
      adapters: UnlimitedRateLimiterLive,
      config: stripeConfig({ STRIPE_SECRET_KEY: "sk_test_revoked" })
    })
    try {
      const a = await unreachable.seedOrganization()
      expectProblem(await checkout(unreachable, a.key), "payment_provider_unavailable", `${path}/create-checkout-session`)
      expectProblem(await call(unreachable, "POST", `${path}/customer-portal`, { key: a.key }), "payment_provider_unavailable", `${path}/customer-portal`)
      const b = await refused.seedOrganization()
      const answer = await checkout(refused, b.key)
      expectProblem(answer, "payment_provider_error", `${path}/create-checkout-session`)
      expect(answer.body.detail).toContain("401")
      expect((await subscription(refused, b.key)).body.tier).toBe("free")
    } finally {
      await Promise.all([unreachable.close(), refused.close()])
    }
  })

  it("answers 409 conflict while the organization pays for a plan: plans change in the portal", async () => {
    const { key } = await subscribed()
    const answer = await checkout(server, key, { price_id: stripe.prices.enterprise })
    expectProblem(answer, "conflict", `${path}/create-checkout-session`)
    expect(answer.body.detail).toContain("customer portal")
  })
})

describe("POST /api/v1/billing/customer-portal", () => {
  it("answers a Stripe portal page of the organization's customer, made once and kept for checkout", async () => {
    const { key, organization } = await server.seedOrganization()
    const answer = await call(server, "POST", `${path}/customer-portal`, { key })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({ portal_url: expect.stringMatching(/^https:\/\/billing\.stripe\.com\/p\/session\/bps_/) })
    expect((await call(server, "POST", `${path}/customer-portal`, { key })).status).toBe(200)
    expect((await checkout(server, key)).status).toBe(200)
    expect(customersOf(organization.id)).toHaveLength(1)
    const portal = stripe.calls().filter((c) => c.path === "/v1/billing_portal/sessions").at(-1)!
    expect(portal.params).toMatchObject({ customer: customersOf(organization.id)[0]!.id, return_url: "http://localhost:3000" })
  })
})

describe("POST /webhooks/payment-events", () => {
  it("a completed checkout moves the organization to its plan, once: its limits, its rate and its period", async () => {
    const { key, sub, session } = await subscribed()
    const answer = await subscription(server, key)
    expect(answer.body).toEqual({
      tier: "pro",
      status: "active",
      current_period_end: new Date(sub.items.data[0]!.current_period_end * 1000).toISOString(),
      cancel_at_period_end: false,
      max_subscribers: 100000,
      max_emails_per_month: 1000000,
      emails_sent_this_month: 0,
      subscriber_count: 0
    })
    expect(answer.headers.get("x-ratelimit-limit")).toBe("1000")

    // The same event again (Stripe retries) changes nothing.
    const replay = stripe.event("checkout.session.completed", session)
    expect((await deliver(server, replay)).body).toEqual({ received: true, outcome: "applied" })
    stripe.updateSubscription(sub.id, { status: "past_due" })
    expect((await deliver(server, replay)).body).toEqual({ received: true, outcome: "duplicate" })
    expect((await subscription(server, key)).body.status).toBe("active")
  })

  it("forged, altered, stale and unsigned events answer 401 invalid_signature and change nothing", async () => {
    const { key, organization } = await server.seedOrganization()
    await checkout(server, key)
    const sessionId = stripe.sessions().at(-1)!.id
    stripe.completeCheckout(sessionId)
    const event = stripe.event("checkout.session.completed", stripe.sessions().at(-1)!)
    const attempts = [
      await deliver(server, event, { secret: "whsec_not_the_services" }),
      await deliver(server, event, { alter: (body) => body.replace(organization.id, organization.id.toUpperCase()) }),
      await deliver(server, event, { signedAt: new Date(Date.now() - 6 * 60_000) }),
      await call(server, "POST", eventsPath, { body: JSON.stringify(event), headers: { "content-type": "application/json" } }),
      await call(server, "POST", eventsPath, {
        body: JSON.stringify(event),
        headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=00" }
      })
    ]
    for (const answer of attempts) expectProblem(answer, "invalid_signature", eventsPath)
    expect((await subscription(server, key)).body).toMatchObject({ tier: "free", status: "active" })
    // The genuine event, still unused, is taken.
    expect((await deliver(server, event)).body.outcome).toBe("applied")
    expect((await subscription(server, key)).body.tier).toBe("pro")
  })

  it("events delivered out of order never move the plan backwards", async () => {
    const { key, sub } = await subscribed()
    const base = new Date()
    const pastDue = changed(stripe.updateSubscription(sub.id, { status: "past_due" }), secondsAfter(base, 20))
    const active = changed(stripe.updateSubscription(sub.id, { status: "active" }), secondsAfter(base, 10))
    expect((await deliver(server, pastDue)).body.outcome).toBe("applied")
    expect((await deliver(server, active)).body.outcome).toBe("stale")
    expect((await subscription(server, key)).body).toMatchObject({ tier: "pro", status: "past_due" })

    const ended = new Date(Date.now() - 60_000)
    const deleted = changed(
      stripe.updateSubscription(sub.id, { status: "canceled", periodEnd: ended }),
      secondsAfter(base, 30),
      "customer.subscription.deleted"
    )
    expect((await deliver(server, deleted)).body.outcome).toBe("applied")
    expect((await subscription(server, key)).body).toMatchObject({ tier: "free", status: "canceled" })
    // A late update from before the cancellation, even a newer-looking one of the same second, changes nothing.
    const late = changed(stripe.updateSubscription(sub.id, { status: "active", periodEnd: secondsAfter(base, 3600) }), secondsAfter(base, 25))
    expect((await deliver(server, late)).body.outcome).toBe("stale")
    const sameSecond = changed(sub, secondsAfter(base, 30))
    expect((await deliver(server, sameSecond)).body.outcome).toBe("stale")
    expect((await subscription(server, key)).body).toMatchObject({ tier: "free", status: "canceled" })
  })

  it("a new price moves the plan; unpaid and canceled subscriptions keep it until the period paid for ends", async () => {
    const { key, sub } = await subscribed()
    const base = new Date()
    await deliver(server, changed(stripe.updateSubscription(sub.id, { price: stripe.prices.enterprise }), secondsAfter(base, 1)))
    expect((await subscription(server, key)).body.tier).toBe("enterprise")
    const periodEnd = new Date(Date.now() + 3 * 24 * 3600_000)
    await deliver(server, changed(stripe.updateSubscription(sub.id, { status: "unpaid", periodEnd }), secondsAfter(base, 2)))
    expect((await subscription(server, key)).body).toMatchObject({
      tier: "enterprise",
      status: "unpaid",
      current_period_end: periodEnd.toISOString().replace(/\.\d{3}Z$/, ".000Z")
    })
    await deliver(server, changed(stripe.updateSubscription(sub.id, { status: "active", cancelAtPeriodEnd: true }), secondsAfter(base, 3)))
    expect((await subscription(server, key)).body).toMatchObject({ tier: "enterprise", status: "active", cancel_at_period_end: true })
    await deliver(server, changed(stripe.updateSubscription(sub.id, { status: "canceled" }), secondsAfter(base, 4), "customer.subscription.deleted"))
    expect((await subscription(server, key)).body).toMatchObject({ tier: "enterprise", status: "canceled" })
  })

  it("acknowledges kinds it does not track and subscriptions of no organization here, changing nothing", async () => {
    const { key } = await server.seedOrganization()
    expect((await deliver(server, stripe.event("invoice.paid", { id: "in_1", object: "invoice" }))).body)
      .toEqual({ received: true, outcome: "ignored" })
    const stranger = {
      id: "sub_stranger",
      object: "subscription",
      customer: "cus_stranger",
      status: "active",
      cancel_at_period_end: false,
      metadata: {},
      items: { object: "list", data: [{ price: { id: stripe.prices.pro }, current_period_end: 2_000_000_000 }] }
    }
    expect((await deliver(server, stripe.event("customer.subscription.created", stranger))).body)
      .toEqual({ received: true, outcome: "unknown_customer" })
    expect((await subscription(server, key)).body.tier).toBe("free")
  })

  it("a checkout completion that cannot read its subscription from Stripe answers 503 and is taken when sent again", async () => {
    const { key, organization } = await server.seedOrganization()
    await checkout(server, key)
    const session = stripe.sessions().find((s) => s.client_reference_id === organization.id)!
    stripe.completeCheckout(session.id)
    const event = stripe.event("checkout.session.completed", session)
    stripe.script({ status: 502 })
    expectProblem(await deliver(server, event), "payment_provider_unavailable", eventsPath)
    expect((await subscription(server, key)).body.tier).toBe("free")
    expect((await deliver(server, event)).body.outcome).toBe("applied")
    expect((await subscription(server, key)).body.tier).toBe("pro")
  })

  it("a body that is signed but not JSON answers 400 and changes nothing", async () => {
    const { body, signature } = stripe.sign("{\"id\": \"evt_1\", ")
    const answer = await call(server, "POST", eventsPath, {
      body,
      headers: { "content-type": "application/json", "stripe-signature": signature }
    })
    expectInvalid(answer, eventsPath, ["body"])
  })
})

describe("POST /api/v1/billing/sync-subscription", () => {
  it("reads the subscription from Stripe and answers the record it made", async () => {
    const { key, organization } = await server.seedOrganization()
    const none = await call(server, "POST", `${path}/sync-subscription`, { key })
    expect(none.status, none.text).toBe(200)
    expect(none.body).toMatchObject({ tier: "free", status: "active" })

    await checkout(server, key)
    const session = stripe.sessions().find((s) => s.client_reference_id === organization.id)!
    // Paid, but its events never came.
    const sub = stripe.completeCheckout(session.id)
    const synced = await call(server, "POST", `${path}/sync-subscription`, { key })
    expect(synced.status, synced.text).toBe(200)
    expect(synced.body).toMatchObject({
      tier: "pro",
      status: "active",
      current_period_end: new Date(sub.items.data[0]!.current_period_end * 1000).toISOString()
    })

    stripe.updateSubscription(sub.id, { status: "canceled", periodEnd: new Date(Date.now() - 1000) })
    stripe.script({ status: 500 })
    expectProblem(await call(server, "POST", `${path}/sync-subscription`, { key }), "payment_provider_unavailable", `${path}/sync-subscription`)
    expect((await subscription(server, key)).body.tier).toBe("pro")
    expect((await call(server, "POST", `${path}/sync-subscription`, { key })).body).toMatchObject({ tier: "free", status: "canceled" })
  })
})

describe("a plan's limits after a downgrade", () => {
  it("keep what the organization holds and refuse growth with 402, naming the limit and the plan that lifts it", async () => {
    const { key, organizationId, sub } = await subscribed()
    const reserved = await server.run(Effect.flatMap(OrganizationRepository, (o) =>
      o.reserveSubscriberSlots(organizationId as never, 1_500, 100_000)))
    expect(reserved).toBe(true)
    const kept = await createSubscriber(server, key)
    await server.run(Effect.flatMap(EmailUsage, (usage) => usage.reserve(organizationId as never, usageMonth(new Date()), 10_000, null)))

    await deliver(server, changed(
      stripe.updateSubscription(sub.id, { status: "canceled", periodEnd: new Date(Date.now() - 1000) }),
      secondsAfter(new Date(), 5),
      "customer.subscription.deleted"
    ))
    const record = await subscription(server, key)
    expect(record.body).toMatchObject({
      tier: "free",
      max_subscribers: 1000,
      subscriber_count: 1_501,
      max_emails_per_month: 10000,
      emails_sent_this_month: 10_000
    })
    expect(record.headers.get("x-ratelimit-limit")).toBe("100")

    const refused = await call(server, "POST", "/api/v1/subscribers", { key, json: { email: freshEmail() } })
    expectProblem(refused, "limit_exceeded", "/api/v1/subscribers")
    expect(refused.body.detail).toContain("the free plan allows 1000 subscribers")
    expect(refused.body.detail).toContain("upgrade to pro")
    // Nothing is taken away.
    expect((await call(server, "GET", `/api/v1/subscribers/${kept.id}`, { key })).status).toBe(200)
    const updated = await call(server, "PUT", `/api/v1/subscribers/${kept.id}`, { key, json: { metadata: { still: "here" } } })
    expect(updated.status, updated.text).toBe(200)
  })

  it("stop single sends and trigger emails past the month's emails, naming the plan that lifts it", async () => {
    const { organization } = await server.seedOrganization()
    const key = await server.createApiKey(organization, ["*"], "live")
    const reader = await createSubscriber(server, key)
    await server.run(Effect.flatMap(EmailUsage, (usage) => usage.reserve(organization.id, usageMonth(new Date()), 10_000, null)))
    const sent = await call(server, "POST", "/api/v1/emails/send", {
      key,
      json: { to: reader.email, kind: "transactional", subject: "Hi", text: "Hello" }
    })
    expectProblem(sent, "limit_exceeded", "/api/v1/emails/send")
    expect(sent.body.detail).toContain("10000 emails per month")
    expect(sent.body.detail).toContain("upgrade to pro")

    const template = await call(server, "POST", "/api/v1/templates", { key, json: { name: "Welcome", subject: "Welcome", text: "Hi" } })
    expect(template.status, template.text).toBe(201)
    const trigger = await call(server, "POST", "/api/v1/email-triggers", {
      key,
      json: { name: "Welcome", event: "subscriber.created", template_id: template.body.id }
    })
    expect(trigger.status, trigger.text).toBe(201)
    const newcomer = await createSubscriber(server, key)
    await server.run(fireTriggers)
    const fired = await call(server, "GET", `/api/v1/email-triggers/${trigger.body.id}`, { key })
    // Both subscribers created since the last look fire it (the reader too), and neither gets an email.
    expect(fired.body.firings).toEqual({ pending: 0, sent: 0, skipped: 0, failed: 2 })
    for (const address of [reader.email, newcomer.email]) {
      expect(server.emails().filter((e) => e.includes(`To: ${address}`))).toHaveLength(0)
    }
  })
})

describe("when the period paid for ends", () => {
  it("a canceled subscription falls back to free, on reading the plan or by the worker's look", async () => {
    const later = await startHttpServer({ adapters: UnlimitedRateLimiterLive, config: stripeConfig() })
    try {
      const first = await subscribed(stripe.prices.pro, later)
      const second = await subscribed(stripe.prices.enterprise, later)
      const base = new Date()
      for (const { sub } of [first, second]) {
        await deliver(later, changed(stripe.updateSubscription(sub.id, { status: "canceled" }), secondsAfter(base, 5), "customer.subscription.deleted"))
      }
      expect((await subscription(later, first.key)).body).toMatchObject({ tier: "pro", status: "canceled" })
      later.advanceClock("31 days")
      expect((await subscription(later, first.key)).body).toMatchObject({ tier: "free", status: "canceled", max_subscribers: 1000 })
      const moved = await later.run(Effect.flatMap(Billing, (billing) => billing.settleEnded(50)))
      expect(moved).toBeGreaterThanOrEqual(1)
      const organization = await later.run(Effect.flatMap(OrganizationRepository, (o) => o.findById(second.organizationId as never)))
      expect(organization._tag === "Some" && organization.value.tier).toBe("free")
      expect(await later.run(Effect.flatMap(Billing, (billing) => billing.settleEnded(50)))).toBe(0)
      // An operator grants a plan after the end was settled: neither the worker nor a read takes it back.
      await later.run(Effect.flatMap(OrganizationRepository, (o) =>
        Effect.flatMap(o.findById(second.organizationId as never), (found) =>
          found._tag === "Some" ? o.update(new Organization({ ...found.value, tier: "pro" })) : Effect.void)))
      expect(await later.run(Effect.flatMap(Billing, (billing) => billing.settleEnded(50)))).toBe(0)
      expect((await subscription(later, second.key)).body).toMatchObject({ tier: "pro", status: "canceled" })
    } finally {
      await later.close()
    }
  })
})
