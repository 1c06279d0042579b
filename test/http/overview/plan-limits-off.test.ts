/**
 * A deployment without plans (PLAN_LIMITS=off), over the real server of the overview form: a free
 * organization creates and imports subscribers beyond the free plan's 1,000, sends email beyond
 * its monthly 10,000, is not held to its 100 requests a minute, and every billing route answers 503
 * `billing_disabled` in the error envelope. Beside it, the same server with plans keeps the free
 * plan.
 */
import { EmailUsage } from "@roster/application"
import { planLimits, usageMonth } from "@roster/domain"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { runImports } from "../../support/worker-steps.js"
import { fullFreeOrganization } from "../helpers.js"
import { createSubscriber, expectError, freshEmail } from "./helpers.js"

let unlimited: TestHttpServer
let plans: TestHttpServer
beforeAll(async () => {
  ;[unlimited, plans] = await Promise.all([
    startHttpServer({ form: "overview", config: { PLAN_LIMITS: "off" } }),
    startHttpServer({ form: "overview" })
  ])
})
afterAll(() => Promise.all([unlimited.close(), plans.close()]))

const FREE_SUBSCRIBERS = planLimits.free.maxSubscribers!
const FREE_RATE = planLimits.free.requestsPerMinute

const importCsv = async (on: TestHttpServer, key: string, emails: ReadonlyArray<string>) => {
  const queued = await call(on, "POST", "/v1/subscribers/imports", {
    key,
    body: ["email", ...emails].map((line) => `${line}\n`).join(""),
    headers: { "content-type": "text/csv" }
  })
  expect(queued.status, queued.text).toBe(202)
  await on.run(runImports)
  const done = await call(on, "GET", queued.headers.get("location")!, { key })
  expect(done.status, done.text).toBe(200)
  return done.body.data
}

describe("PLAN_LIMITS=off, overview form", () => {
  it("creates and imports subscribers beyond the free plan's limit, which the server with plans refuses", async () => {
    const { key } = await fullFreeOrganization(unlimited)
    await createSubscriber(unlimited, key)
    const imported = await importCsv(unlimited, key, [freshEmail("import"), freshEmail("import")])
    expect(imported).toMatchObject({ status: "completed", counts: { created: 2, failed: 0 } })
    const listed = await call(unlimited, "GET", "/v1/subscribers?per_page=1", { key })
    expect(listed.status, listed.text).toBe(200)
    expect(listed.body.meta.total).toBe(FREE_SUBSCRIBERS + 3)

    const full = await fullFreeOrganization(plans)
    expectError(await call(plans, "POST", "/v1/subscribers", { key: full.key, json: { email: freshEmail() } }), "limit_exceeded")
    const refused = await importCsv(plans, full.key, [freshEmail("import")])
    expect(refused.counts).toMatchObject({ created: 0, failed: 1 })
  })

  it("is not held to the free plan's requests a minute", async () => {
    const { key } = await unlimited.seedOrganization({ tier: "free" })
    for (let i = 0; i <= FREE_RATE + 5; i++) {
      const answer = await call(unlimited, "GET", "/v1/tags", { key })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.headers.get("x-ratelimit-limit")).toBeNull()
    }
    const other = await plans.seedOrganization({ tier: "free" })
    for (let i = 0; i < FREE_RATE; i++) await call(plans, "GET", "/v1/tags", { key: other.key })
    expectError(await call(plans, "GET", "/v1/tags", { key: other.key }), "rate_limited")
  })

  it("sends email beyond the free plan's monthly limit", async () => {
    const { key, organization } = await unlimited.seedOrganization({ tier: "free", environment: "live" })
    const reader = await createSubscriber(unlimited, key)
    await unlimited.run(Effect.flatMap(EmailUsage, (usage) =>
      usage.reserve(organization.id, usageMonth(new Date()), planLimits.free.maxEmailsPerMonth!, null)))
    const sent = await call(unlimited, "POST", "/v1/emails/send", {
      key,
      json: { to: reader.email, kind: "transactional", subject: "Receipt", text: "Thanks." }
    })
    expect(sent.status, sent.text).toBe(202)
    expect(sent.body.data).toMatchObject({ status: "queued" })
  })

  it("answers 503 billing_disabled in the error envelope on every billing route, under both prefixes", async () => {
    const { key } = await unlimited.seedOrganization({ tier: "free" })
    for (const prefix of ["/v1", "/api/v1"]) {
      expectError(await call(unlimited, "GET", `${prefix}/billing/subscription`, { key }), "billing_disabled")
      for (const route of ["create-checkout-session", "customer-portal", "sync-subscription"]) {
        const json = route === "create-checkout-session" ? { price_id: "price_x" } : undefined
        const answer = await call(unlimited, "POST", `${prefix}/billing/${route}`, { key, json })
        expectError(answer, "billing_disabled")
        expect(answer.body.error.message).toContain("PLAN_LIMITS=off")
      }
    }
    const other = await plans.seedOrganization({ tier: "free" })
    const shown = await call(plans, "GET", "/v1/billing/subscription", { key: other.key })
    expect(shown.status, shown.text).toBe(200)
    expect(shown.body.data).toMatchObject({ tier: "free", max_subscribers: FREE_SUBSCRIBERS })
  })
})
