/**
 * /api/v1/settings/email/domain: a custom sending domain on the enterprise plan, registered at the
 * Resend stand-in, checked, verified, sent from, removed; with every refusal and the provider's
 * outages, after which nothing is left half done.
 */
import * as SqlError from "@effect/sql/SqlError"
import { SendingDomainRepository } from "@roster/application"
import { Effect, Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { randomUUID } from "node:crypto"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { type ResendApi, startResendApi } from "../../support/resend-api.js"
import { deliverDue, fireTriggers, fixAudiences } from "../../support/worker-steps.js"
import { CampaignSending } from "@roster/application"
import { createSubscriber, createTag, expectInvalid, expectProblem } from "../helpers.js"

let resend: ResendApi
let server: TestHttpServer
let brokenDatabase: TestHttpServer

const config = () => ({
  RESEND_API_KEY: resend.apiKey,
  RESEND_BASE_URL: resend.url,
  EMAIL_FROM: "Mailer <mail@mailer.roster.example>",
  PUBLIC_BASE_URL: "https://app.roster.example",
  ERRORS_BASE_URL: "http://localhost:3000/errors"
})

/** A database that cannot be written: the domain is registered at Resend but cannot be stored. */
const UnwritableDomains = Layer.succeed(
  SendingDomainRepository,
  SendingDomainRepository.of({
    find: () => Effect.succeedNone,
    ownerOf: () => Effect.succeedNone,
    insert: () => Effect.die(new SqlError.SqlError({ message: "connection terminated" })),
    update: () => Effect.succeed(false),
    delete: () => Effect.succeedNone,
    claimDueChecks: () => Effect.succeed([])
  })
)

beforeAll(async () => {
  resend = await startResendApi()
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive, config: config() })
  brokenDatabase = await startHttpServer({
    adapters: Layer.merge(UnlimitedRateLimiterLive, UnwritableDomains),
    config: config()
  })
})
afterAll(() => Promise.all([server.close(), brokenDatabase.close(), resend.close()]).then(() => undefined))

const path = "/api/v1/settings/email/domain"
const settingsPath = "/api/v1/settings/email"

const freshDomain = (prefix = "news") => `${prefix}-${randomUUID().slice(0, 8)}.acme.example`

const atResend = (name: string) => resend.domains().find((d) => d.name === name)

const printedTo = (address: string) => server.emails().filter((email) => email.includes(`To: ${address}\n`))

const expectRecords = (records: ReadonlyArray<Record<string, unknown>>, status: string) => {
  expect(records).toEqual([
    { record: "SPF", name: "send", type: "MX", value: "feedback-smtp.us-east-1.amazonses.com", ttl: "Auto", priority: 10, status },
    { record: "SPF", name: "send", type: "TXT", value: "\"v=spf1 include:amazonses.com ~all\"", ttl: "Auto", priority: null, status },
    { record: "DKIM", name: "resend._domainkey", type: "TXT", value: expect.stringMatching(/^p=/), ttl: "Auto", priority: null, status }
  ])
}

/** An enterprise organization with a live key and a verified domain. */
const verifiedDomain = async () => {
  const seeded = await server.seedOrganization({ tier: "enterprise", environment: "live" })
  const domain = freshDomain()
  const added = await call(server, "POST", path, { key: seeded.key, json: { domain } })
  expect(added.status, added.text).toBe(201)
  resend.setDomainStatus(domain, "verified")
  const checked = await call(server, "GET", path, { key: seeded.key })
  expect(checked.body.status, checked.text).toBe("verified")
  return { ...seeded, domain }
}

describe("a custom sending domain, from pending to verified", () => {
  it("is registered at Resend and answered pending with its DNS records; checks follow Resend", async () => {
    const { key, organization } = await server.seedOrganization({ tier: "enterprise" })
    const domain = freshDomain()
    const added = await call(server, "POST", path, { key, json: { domain: `  ${domain.toUpperCase()}  ` } })
    expect(added.status, added.text).toBe(201)
    expect(added.body).toMatchObject({ domain, status: "pending", checked_at: null, verified_at: null })
    expectRecords(added.body.dns_records, "not_started")
    // Resend was asked to look for the records at once.
    expect(atResend(domain)?.status).toBe("pending")

    const settings = await call(server, "GET", settingsPath, { key })
    expect(settings.body).toMatchObject({
      custom_domain: domain,
      custom_domain_status: "pending",
      is_custom_domain: false,
      can_add_custom_domain: true,
      effective_from: `"${organization.name}" <mail@mailer.roster.example>`
    })

    const pending = await call(server, "GET", path, { key })
    expect(pending.status, pending.text).toBe(200)
    expect(pending.body).toMatchObject({ domain, status: "pending" })
    expect(pending.body.checked_at).not.toBeNull()
    expectRecords(pending.body.dns_records, "pending")

    resend.setDomainStatus(domain, "verified")
    const verified = await call(server, "GET", path, { key })
    expect(verified.body).toMatchObject({ domain, status: "verified" })
    expect(verified.body.verified_at).not.toBeNull()
    expectRecords(verified.body.dns_records, "verified")
    expect((await call(server, "GET", settingsPath, { key })).body.custom_domain_status).toBe("verified")
  })

  it("once verified, a from_address on it is accepted and every email of the organization comes from it", async () => {
    const { key, domain, organization } = await verifiedDomain()
    const address = `letters@${domain}`
    const set = await call(server, "PUT", settingsPath, { key, json: { from_name: "Acme Letters", from_address: address } })
    expect(set.status, set.text).toBe(200)
    expect(set.body).toMatchObject({
      from_address: address,
      effective_from: `"Acme Letters" <${address}>`,
      is_custom_domain: true,
      custom_domain: domain,
      custom_domain_status: "verified"
    })

    // A single send.
    const reader = await createSubscriber(server, key)
    const sent = await call(server, "POST", "/api/v1/emails/send", {
      key,
      json: { to: reader.email, kind: "transactional", subject: "Hi", text: "Hello" }
    })
    expect(sent.status, sent.text).toBe(202)
    expect(sent.body.from).toBe(`"Acme Letters" <${address}>`)

    // A campaign.
    const tag = await createTag(server, key)
    const member = await createSubscriber(server, key, { tags: [tag.id] })
    const campaign = await call(server, "POST", "/api/v1/campaigns", {
      key,
      json: { name: "Issue", kind: "marketing", subject: "Issue 1", html: "<p>News</p>", audience: { tag_ids: [tag.id] } }
    })
    expect(campaign.status, campaign.text).toBe(201)
    expect((await call(server, "POST", `/api/v1/campaigns/${campaign.body.id}/send`, { key })).status).toBe(200)
    await server.run(Effect.zipRight(Effect.flatMap(CampaignSending, (sending) => sending.startDue(100)), fixAudiences()))
    await server.run(deliverDue())
    expect(printedTo(member.email).join("\n")).toContain(`From: "Acme Letters" <${address}>`)

    // A trigger.
    const template = await call(server, "POST", "/api/v1/templates", { key, json: { name: "Welcome", subject: "Welcome", text: "Hi" } })
    const trigger = await call(server, "POST", "/api/v1/email-triggers", {
      key,
      json: { name: "Welcome", event: "subscriber.created", template_id: template.body.id }
    })
    expect(trigger.status, trigger.text).toBe(201)
    const newcomer = await createSubscriber(server, key)
    await server.run(Effect.zipRight(fireTriggers, deliverDue()))
    const welcomed = printedTo(newcomer.email)
    expect(welcomed).toHaveLength(1)
    expect(welcomed[0]).toContain(`From: "Acme Letters" <${address}>`)

    // The service's default address may be named too; null goes back to it.
    const fallback = await call(server, "PUT", settingsPath, { key, json: { from_address: "MAIL@mailer.roster.example" } })
    expect(fallback.body).toMatchObject({ effective_from: "\"Acme Letters\" <MAIL@mailer.roster.example>", is_custom_domain: false })
    const reset = await call(server, "PUT", settingsPath, { key, json: { from_address: null } })
    expect(reset.body).toMatchObject({ from_address: null, effective_from: "\"Acme Letters\" <mail@mailer.roster.example>" })
    expect(organization.tier).toBe("enterprise")
  })

  it("a from_address needs a verified domain and must be on it", async () => {
    const { key } = await server.seedOrganization({ tier: "enterprise" })
    const refused = async (from_address: unknown, words: string) => {
      const answer = await call(server, "PUT", settingsPath, { key, json: { from_address } })
      expectInvalid(answer, settingsPath, ["from_address"])
      expect(answer.body.detail).toContain(words)
    }
    await refused("news@elsewhere.example", "add one")
    const domain = freshDomain()
    expect((await call(server, "POST", path, { key, json: { domain } })).status).toBe(201)
    await refused(`news@${domain}`, "pending")
    resend.setDomainStatus(domain, "verified")
    expect((await call(server, "GET", path, { key })).body.status).toBe("verified")
    await refused("news@elsewhere.example", `on your custom domain ${domain}`)
    await refused(`news@sub.${domain}`, `on your custom domain ${domain}`)
    await refused("Acme <news@acme.example>", "without a name")
    await refused("not-an-address", "@")
    await refused(42, "")
    expect((await call(server, "PUT", settingsPath, { key, json: { from_address: `News@${domain}` } })).status).toBe(200)

    // Below the top plan an address of its own is refused, naming the plan; the default is not.
    const pro = await server.seedOrganization({ tier: "pro" })
    const answer = await call(server, "PUT", settingsPath, { key: pro.key, json: { from_address: `news@${freshDomain()}` } })
    expectInvalid(answer, settingsPath, ["from_address"])
    expect(answer.body.detail).toContain("enterprise")
    expect((await call(server, "PUT", settingsPath, { key: pro.key, json: { from_address: "mail@mailer.roster.example" } })).status).toBe(200)
  })

  it("is removed at Resend and here; an address on it goes back to the service's, and the domain can be added again", async () => {
    const { key, domain } = await verifiedDomain()
    expect((await call(server, "PUT", settingsPath, { key, json: { from_address: `hello@${domain}` } })).status).toBe(200)
    const removed = await call(server, "DELETE", path, { key })
    expect(removed.status, removed.text).toBe(204)
    expect(atResend(domain)).toBeUndefined()
    expectProblem(await call(server, "GET", path, { key }), "not_found", path)
    expectProblem(await call(server, "DELETE", path, { key }), "not_found", path)
    expect((await call(server, "GET", settingsPath, { key })).body).toMatchObject({
      from_address: null,
      custom_domain: null,
      custom_domain_status: null,
      is_custom_domain: false
    })
    expect((await call(server, "POST", path, { key, json: { domain } })).status).toBe(201)
  })

  it("a domain Resend gave up on is failed, and a check asks Resend to look again", async () => {
    const { key } = await server.seedOrganization({ tier: "enterprise" })
    const domain = freshDomain()
    expect((await call(server, "POST", path, { key, json: { domain } })).status).toBe(201)
    resend.setDomainStatus(domain, "failed")
    // The owner fixed the records: the check asks Resend to verify again, and the domain is pending.
    const again = await call(server, "GET", path, { key })
    expect(again.body.status, again.text).toBe("pending")
    expect(atResend(domain)?.status).toBe("pending")
    expect(resend.calls().filter((c) => c.method === "POST" && c.path === `/domains/${atResend(domain)!.id}/verify`)).toHaveLength(2)

    // Removed at Resend behind the service's back: failed.
    await fetch(`${resend.url}/domains/${atResend(domain)!.id}`, { method: "DELETE", headers: { authorization: `Bearer ${resend.apiKey}` } })
    const gone = await call(server, "GET", path, { key })
    expect(gone.body.status, gone.text).toBe("failed")
  })
})

describe("refusals", () => {
  it("a domain that is not a host name, or one of the service's own, is 400 naming domain", async () => {
    const { key } = await server.seedOrganization({ tier: "enterprise" })
    for (const domain of [
      "",
      "localhost",
      "https://news.acme.example",
      "news.acme.example/path",
      "ada@acme.example",
      "news_letters.acme.example",
      "-news.acme.example",
      "news..acme.example",
      "192.168.1.10",
      "bücher.example",
      `${"a".repeat(64)}.example`,
      "app.roster.example",
      "APP.roster.example",
      "mailer.roster.example",
      "bounces.mailer.roster.example"
    ]) {
      const answer = await call(server, "POST", path, { key, json: { domain } })
      expectInvalid(answer, path, ["domain"])
    }
    expectInvalid(await call(server, "POST", path, { key, json: {} }), path, ["domain"])
    expectInvalid(await call(server, "POST", path, { key, json: { domain: 42 } }), path, ["domain"])
    expectInvalid(await call(server, "POST", path, { key, json: { domain: freshDomain(), region: "eu-west-1" } }), path, ["region"])
    // Nothing reached Resend.
    expect(resend.domains().some((d) => d.name.includes("roster.example"))).toBe(false)
  })

  it("other plans get 402 naming the enterprise plan; members and narrow keys 403", async () => {
    for (const tier of ["free", "pro"] as const) {
      const { key } = await server.seedOrganization({ tier })
      const domain = freshDomain()
      const answer = await call(server, "POST", path, { key, json: { domain } })
      expectProblem(answer, "limit_exceeded", path)
      expect(answer.body.detail).toContain("enterprise")
      expect(answer.body.detail).toContain(tier)
      expect(atResend(domain)).toBeUndefined()
    }
    const { key, organization } = await server.seedOrganization({ tier: "enterprise" })
    const member = await server.signIn()
    await server.addMember(organization.id, member, "member")
    const headers = { ...member.headers(organization.id), origin: server.baseUrl }
    expectProblem(await call(server, "POST", path, { headers, json: { domain: freshDomain() } }), "forbidden", path)
    expectProblem(await call(server, "GET", path, { headers }), "forbidden", path)
    expectProblem(await call(server, "DELETE", path, { headers }), "forbidden", path)
    const narrow = await server.createApiKey(organization, ["emails:send", "templates:write"])
    expectProblem(await call(server, "POST", path, { key: narrow, json: { domain: freshDomain() } }), "forbidden", path)
    expectProblem(await call(server, "POST", path, { json: { domain: freshDomain() } }), "unauthorized", path)
    expectProblem(await call(server, "GET", path, { key }), "not_found", path)
  })

  it("a domain another organization added is 409, and so is a second domain", async () => {
    const first = await server.seedOrganization({ tier: "enterprise" })
    const second = await server.seedOrganization({ tier: "enterprise" })
    const domain = freshDomain()
    expect((await call(server, "POST", path, { key: first.key, json: { domain } })).status).toBe(201)
    const taken = await call(server, "POST", path, { key: second.key, json: { domain: domain.toUpperCase() } })
    expectProblem(taken, "conflict", path)
    expect(taken.body.detail).toContain("another organization")
    const again = await call(server, "POST", path, { key: first.key, json: { domain: freshDomain() } })
    expectProblem(again, "conflict", path)
    expect(again.body.detail).toContain(domain)
    expect(resend.domains().filter((d) => d.name === domain)).toHaveLength(1)
  })
})

describe("when Resend or the database fails", () => {
  it("an outage or a rate limit at Resend is 503 and nothing is kept", async () => {
    const { key } = await server.seedOrganization({ tier: "enterprise" })
    const domain = freshDomain()
    resend.script({ status: 500, name: "internal_server_error", message: "Something went wrong" })
    const failed = await call(server, "POST", path, { key, json: { domain } })
    expectProblem(failed, "service_unavailable", path)
    expect(failed.body.detail).toContain("email provider")
    expect(atResend(domain)).toBeUndefined()
    expectProblem(await call(server, "GET", path, { key }), "not_found", path)

    resend.script({ status: 429, name: "rate_limit_exceeded", message: "Too many requests", retryAfterSeconds: 3 })
    const limited = await call(server, "POST", path, { key, json: { domain } })
    expectProblem(limited, "service_unavailable", path)
    expect(limited.headers.get("retry-after")).toBe("3")

    resend.script({ status: 403, name: "restricted_api_key", message: "This API key is restricted to only send emails" })
    expectProblem(await call(server, "POST", path, { key, json: { domain } }), "service_unavailable", path)
    expect(atResend(domain)).toBeUndefined()

    // Resend is back.
    expect((await call(server, "POST", path, { key, json: { domain } })).status).toBe(201)
    // A check or a removal while Resend fails changes nothing.
    resend.script({ status: 502, name: "application_error", message: "Bad gateway" }, 3)
    expectProblem(await call(server, "GET", path, { key }), "service_unavailable", path)
    resend.script({ status: 502, name: "application_error", message: "Bad gateway" }, 3)
    expectProblem(await call(server, "DELETE", path, { key }), "service_unavailable", path)
    expect(atResend(domain)).toBeDefined()
    expect((await call(server, "GET", path, { key })).body.domain).toBe(domain)
  })

  it("a domain registered at Resend that cannot be stored is removed at Resend again", async () => {
    const { key } = await brokenDatabase.seedOrganization({ tier: "enterprise" })
    const domain = freshDomain()
    const answer = await call(brokenDatabase, "POST", path, { key, json: { domain } })
    expectProblem(answer, "service_unavailable", path)
    expect(atResend(domain)).toBeUndefined()
    const calls = resend.calls().filter((c) => c.path.startsWith("/domains")).slice(-2)
    expect(calls.map((c) => `${c.method} ${c.path.startsWith("/domains/") ? "/domains/{id}" : c.path} ${c.status}`)).toEqual([
      "POST /domains 201",
      "DELETE /domains/{id} 200"
    ])
  })
})

describe("the organization's domain at a glance", () => {
  it("the settings show the domain only to its organization", async () => {
    const { key } = await server.seedOrganization({ tier: "enterprise" })
    const other = await server.seedOrganization({ tier: "enterprise" })
    const domain = freshDomain()
    expect((await call(server, "POST", path, { key, json: { domain } })).status).toBe(201)
    const theirs = await call(server, "GET", settingsPath, { key: other.key })
    expect(theirs.body).toMatchObject({ custom_domain: null, custom_domain_status: null })
    const stored = await server.run(Effect.flatMap(SendingDomainRepository, (domains) => domains.ownerOf(domain)))
    expect(Option.isSome(stored)).toBe(true)
  })
})

describe("without Resend (the console mailer)", () => {
  it("a domain is pending with placeholder records, verified on its first check, and sent from", async () => {
    const local = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
    try {
      const { key } = await local.seedOrganization({ tier: "enterprise", environment: "live" })
      const domain = freshDomain()
      const added = await call(local, "POST", path, { key, json: { domain } })
      expect(added.status, added.text).toBe(201)
      expect(added.body).toMatchObject({ domain, status: "pending" })
      expect(added.body.dns_records.map((r: { record: string; type: string; name: string; status: string }) =>
        `${r.record} ${r.type} ${r.name} ${r.status}`
      )).toEqual(["SPF MX send not_started", "SPF TXT send not_started", "DKIM TXT roster._domainkey not_started"])
      const checked = await call(local, "GET", path, { key })
      expect(checked.body).toMatchObject({ domain, status: "verified" })
      const set = await call(local, "PUT", settingsPath, { key, json: { from_address: `news@${domain}` } })
      expect(set.status, set.text).toBe(200)
      const reader = await createSubscriber(local, key)
      const sent = await call(local, "POST", "/api/v1/emails/send", {
        key,
        json: { to: reader.email, kind: "transactional", subject: "Hi", text: "Hello" }
      })
      expect(sent.body.from).toContain(`<news@${domain}>`)
      expect((await call(local, "DELETE", path, { key })).status).toBe(204)
    } finally {
      await local.close()
    }
  })
})
