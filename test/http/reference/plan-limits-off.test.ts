/**
 * A deployment without plans (PLAN_LIMITS=off), over the real server of the reference form: a free
 * organization creates subscribers beyond the free plan's 1,000, sends email beyond its monthly
 * 10,000, is not held to its 100 requests a minute, and every billing route answers 503
 * `billing_disabled`. A custom rate limit the operator set on an organization still holds. Beside
 * it, the same server with plans keeps the free plan.
 */
import { CampaignSending, EmailUsage, OrganizationRepository } from "@roster/application"
import { OrganizationId, planLimits, usageMonth } from "@roster/domain"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { deliverDue, fixAudiences } from "../../support/worker-steps.js"
import { createSubscriber, createTag, expectProblem, freshEmail, fullFreeOrganization } from "../helpers.js"

let unlimited: TestHttpServer
let plans: TestHttpServer
beforeAll(async () => {
  // The real in-process rate limiter: no suite-wide limiter that lets everything through.
  ;[unlimited, plans] = await Promise.all([startHttpServer({ config: { PLAN_LIMITS: "off" } }), startHttpServer()])
})
afterAll(() => Promise.all([unlimited.close(), plans.close()]))

const FREE_SUBSCRIBERS = planLimits.free.maxSubscribers!
const FREE_EMAILS = planLimits.free.maxEmailsPerMonth!
const FREE_RATE = planLimits.free.requestsPerMinute

const countOf = (on: TestHttpServer, id: string) =>
  on.run(Effect.flatMap(OrganizationRepository, (repository) => repository.findById(OrganizationId.make(id))))
    .then((found) => found._tag === "Some" ? found.value.subscriberCount : -1)

describe("PLAN_LIMITS=off", () => {
  it("creates subscribers beyond the free plan's limit, one by one, with tags, and the count follows", async () => {
    const { key, organization } = await fullFreeOrganization(unlimited)
    // The direct lane takes a plain create; one with tags goes through the HttpApi.
    await createSubscriber(unlimited, key)
    const tag = await createTag(unlimited, key)
    const tagged = await createSubscriber(unlimited, key, { tags: [tag.id] })
    expect(tagged.tags.map((t: { id: string }) => t.id)).toEqual([tag.id])
    expect(await countOf(unlimited, organization.id)).toBe(FREE_SUBSCRIBERS + 2)

    // Without the setting, the same organization is refused.
    const full = await fullFreeOrganization(plans)
    expectProblem(
      await call(plans, "POST", "/api/v1/subscribers", { key: full.key, json: { email: freshEmail() } }),
      "limit_exceeded",
      "/api/v1/subscribers"
    )
  })

  it("takes creates across the free plan's limit, from below it to above it, several at once", async () => {
    const { key, organization } = await unlimited.seedOrganization({ tier: "free" })
    const before = FREE_SUBSCRIBERS - 10
    await unlimited.run(Effect.flatMap(OrganizationRepository, (repository) =>
      repository.reserveSubscriberSlots(organization.id, before, null)))
    const total = FREE_SUBSCRIBERS + 10
    let created = before
    const workers = Array.from({ length: 4 }, async () => {
      while (created < total) {
        created++
        const answer = await call(unlimited, "POST", "/api/v1/subscribers", { key, json: { email: freshEmail("bulk") } })
        expect(answer.status, answer.text).toBe(201)
        // No plan's budget is told.
        expect(answer.headers.get("x-ratelimit-limit")).toBeNull()
      }
    })
    await Promise.all(workers)
    expect(await countOf(unlimited, organization.id)).toBe(total)
    const listed = await call(unlimited, "GET", "/api/v1/subscribers?limit=1", { key })
    expect(listed.status).toBe(200)
    expect(listed.body.total).toBe(total)
  })

  it("is not held to the free plan's requests a minute, which the server with plans refuses", async () => {
    const { key } = await unlimited.seedOrganization({ tier: "free" })
    for (let i = 0; i <= FREE_RATE + 5; i++) {
      const answer = await call(unlimited, "GET", "/api/v1/tags", { key })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.headers.get("x-ratelimit-remaining")).toBeNull()
    }
    const other = await plans.seedOrganization({ tier: "free" })
    for (let i = 0; i < FREE_RATE; i++) await call(plans, "GET", "/api/v1/tags", { key: other.key })
    expectProblem(await call(plans, "GET", "/api/v1/tags", { key: other.key }), "rate_limited", "/api/v1/tags")
  })

  it("keeps a custom rate limit the operator set on an organization", async () => {
    const { key } = await unlimited.seedOrganization({ tier: "enterprise", customRateLimit: 3 })
    for (let i = 0; i < 3; i++) expect((await call(unlimited, "GET", "/api/v1/tags", { key })).status).toBe(200)
    const refused = await call(unlimited, "GET", "/api/v1/tags", { key })
    expectProblem(refused, "rate_limited", "/api/v1/tags")
    expect(refused.body.detail).toContain("limit of 3 requests")
  })

  it("sends email beyond the free plan's monthly limit", async () => {
    const { key, organization } = await unlimited.seedOrganization({ tier: "free", environment: "live" })
    const reader = await createSubscriber(unlimited, key)
    await unlimited.run(Effect.flatMap(EmailUsage, (usage) =>
      usage.reserve(organization.id, usageMonth(new Date()), FREE_EMAILS, null)))
    const sent = await call(unlimited, "POST", "/api/v1/emails/send", {
      key,
      json: { to: reader.email, kind: "transactional", subject: "Receipt", text: "Thanks." }
    })
    expect(sent.status, sent.text).toBe(202)
    expect(await unlimited.run(deliverDue())).toBe(1)
    expect(unlimited.emails().filter((email) => email.includes(`To: ${reader.email}\n`))).toHaveLength(1)
    const used = await unlimited.run(Effect.flatMap(EmailUsage, (usage) => usage.sentIn(organization.id, usageMonth(new Date()))))
    expect(used).toBe(FREE_EMAILS + 1)
  })

  it("sends a campaign beyond the free plan's monthly limit, to its whole audience", async () => {
    const { key, organization } = await unlimited.seedOrganization({ tier: "free", environment: "live" })
    const tag = await createTag(unlimited, key)
    const readers = [
      await createSubscriber(unlimited, key, { tags: [tag.id] }),
      await createSubscriber(unlimited, key, { tags: [tag.id] })
    ]
    await unlimited.run(Effect.flatMap(EmailUsage, (usage) =>
      usage.reserve(organization.id, usageMonth(new Date()), FREE_EMAILS, null)))
    const draft = await call(unlimited, "POST", "/api/v1/campaigns", {
      key,
      json: {
        name: "Issue 1",
        kind: "marketing",
        subject: "Hello",
        html: "<p>Hi</p><a href=\"{{ unsubscribe_url }}\">Unsubscribe</a>",
        audience: { tag_ids: [tag.id] }
      }
    })
    expect(draft.status, draft.text).toBe(201)
    const sending = await call(unlimited, "POST", `/api/v1/campaigns/${draft.body.id}/send`, { key })
    expect(sending.status, sending.text).toBe(200)
    await unlimited.run(Effect.zipRight(Effect.flatMap(CampaignSending, (s) => s.startDue(100)), fixAudiences()))
    expect(await unlimited.run(deliverDue())).toBe(2)
    const done = await call(unlimited, "GET", `/api/v1/campaigns/${draft.body.id}`, { key })
    expect(done.body.status).toBe("sent")
    expect(done.body.stats).toMatchObject({ sent: 2, failed: 0 })
    for (const reader of readers) {
      expect(unlimited.emails().filter((email) => email.includes(`To: ${reader.email}\n`))).toHaveLength(1)
    }
  })

  it("answers 503 billing_disabled on every billing route", async () => {
    const { key } = await unlimited.seedOrganization({ tier: "free" })
    const routes = [
      ["GET", "subscription", undefined],
      ["POST", "create-checkout-session", { price_id: "price_pro" }],
      ["POST", "customer-portal", undefined],
      ["POST", "sync-subscription", undefined]
    ] as const
    for (const [method, route, json] of routes) {
      const answer = await call(unlimited, method, `/api/v1/billing/${route}`, json === undefined ? { key } : { key, json })
      expectProblem(answer, "billing_disabled", `/api/v1/billing/${route}`)
      expect(answer.body.detail).toContain("PLAN_LIMITS=off")
    }
    // Still the owner's area: a key without `*` is refused first.
    const reader = await unlimited.seedOrganization({ scopes: ["subscribers:read"] })
    expectProblem(await call(unlimited, "GET", "/api/v1/billing/subscription", { key: reader.key }), "forbidden", "/api/v1/billing/subscription")
    // With plans, the plan is shown as ever.
    const other = await plans.seedOrganization({ tier: "free" })
    const shown = await call(plans, "GET", "/api/v1/billing/subscription", { key: other.key })
    expect(shown.status, shown.text).toBe(200)
    expect(shown.body).toMatchObject({ tier: "free", max_subscribers: FREE_SUBSCRIBERS })
  })

  it("documents billing_disabled at /errors/billing_disabled", async () => {
    const page = await call(unlimited, "GET", "/errors/billing_disabled", { headers: { accept: "application/json" } })
    expect(page.status).toBe(200)
    expect(page.body).toMatchObject({ code: "billing_disabled", status: 503 })
  })

  it("lets a free organization add a custom sending domain, which only the top plan may otherwise", async () => {
    const { key } = await unlimited.seedOrganization({ tier: "free" })
    const added = await call(unlimited, "POST", "/api/v1/settings/email/domain", { key, json: { domain: `news-${Date.now()}.acme.example` } })
    expect(added.status, added.text).toBe(201)
    const other = await plans.seedOrganization({ tier: "free" })
    const refused = await call(plans, "POST", "/api/v1/settings/email/domain", { key: other.key, json: { domain: `news-${Date.now()}.other.example` } })
    expectProblem(refused, "limit_exceeded", "/api/v1/settings/email/domain")
  })

  it("shows organizations without a rate limit to the platform admin", async () => {
    const admin = await unlimited.seedOrganization({ isPlatformAdmin: true, tier: "enterprise", customRateLimit: 0 })
    const target = await unlimited.seedOrganization({ tier: "free" })
    const shown = await call(unlimited, "GET", `/api/v1/admin/organizations/${target.organization.id}`, { key: admin.key })
    expect(shown.status, shown.text).toBe(200)
    expect(shown.body).toMatchObject({ tier: "free", rate_limit_per_minute: null, custom_rate_limit: null })
  })
})
