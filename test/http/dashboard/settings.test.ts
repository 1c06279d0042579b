/**
 * The dashboard's settings through the running server, in both deployments: the sender, the
 * custom sending domain, and billing with and without a payment provider; members refused what
 * only owners may do, and forged forms changing nothing.
 */
import { EmailSettingsRepository, OrganizationRepository } from "@roster/application"
import type { OrganizationId } from "@roster/domain"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { startStripeApi, type StripeApi } from "../../support/stripe-api.js"
import { browser, fieldError, personIn, unescape } from "./dashboard-browser.js"

const forms = ["reference", "overview"] as const

let stripe: StripeApi
beforeAll(async () => {
  stripe = await startStripeApi()
})
afterAll(() => stripe.close())

describe.each(forms)("the dashboard's settings in the %s deployment", (form) => {
  let server: TestHttpServer
  let paying: TestHttpServer
  let planless: TestHttpServer
  beforeAll(async () => {
    ;[server, paying, planless] = await Promise.all([
      startHttpServer({ form, adapters: UnlimitedRateLimiterLive }),
      startHttpServer({
        form,
        adapters: UnlimitedRateLimiterLive,
        config: {
          STRIPE_SECRET_KEY: stripe.secretKey,
          STRIPE_API_BASE: stripe.url,
          STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
          STRIPE_PRICE_PRO: stripe.prices.pro,
          STRIPE_PRICE_ENTERPRISE: stripe.prices.enterprise
        }
      }),
      startHttpServer({ form, adapters: UnlimitedRateLimiterLive, config: { PLAN_LIMITS: "off" } })
    ])
  })
  afterAll(() => Promise.all([server.close(), paying.close(), planless.close()]))

  /** The sender settings as stored; a `fromName` of null when none are. */
  const senderOf = (s: TestHttpServer, organizationId: OrganizationId) =>
    s.run(Effect.map(Effect.flatMap(EmailSettingsRepository, (settings) => settings.find(organizationId)), (found) => ({
      fromName: Option.match(found, { onNone: () => null, onSome: (stored) => stored.fromName })
    })))

  /** The organization's time zone as stored. */
  const zoneOf = (s: TestHttpServer, organizationId: OrganizationId) =>
    s.run(Effect.map(Effect.flatMap(OrganizationRepository, (organizations) => organizations.timeZoneOf(organizationId)), Option.getOrNull))

  it("shows the settings in the menu, last, and saves the sender", async () => {
    const owner = await personIn(server)
    const page = await owner.b.get(`${owner.base}/settings`)
    expect(page.status).toBe(200)
    const menu = [...page.body.matchAll(/<li><a href="([^"]+)"/g)].map((m) => m[1])
    expect(menu.at(-1)).toBe(`${owner.base}/settings`)
    const saved = await owner.b.post(`${owner.base}/settings/sender`, { csrf: owner.csrf, from_name: "Ada's News", from_address: "" })
    expect(saved.status).toBe(303)
    expect(saved.headers.get("location")).toBe(`${owner.base}/settings`)
    const after = await owner.b.get(`${owner.base}/settings`)
    expect(after.body).toContain("The sender was saved.")
    expect(unescape(after.body)).toContain("value=\"Ada's News\"")
    expect((await senderOf(server, owner.organization.id)).fromName).toBe("Ada's News")
  })

  it("shows the sender address refused beside its field, and keeps what was typed", async () => {
    const owner = await personIn(server)
    const refused = await owner.b.post(`${owner.base}/settings/sender`, {
      csrf: owner.csrf,
      from_name: "News",
      from_address: "news@elsewhere.example"
    })
    expect(refused.status).toBe(400)
    expect(fieldError(refused, "from-address")).toContain("custom domain")
    expect(refused.body).toContain("value=\"news@elsewhere.example\"")
    expect((await senderOf(server, owner.organization.id)).fromName).toBeNull()
  })

  it("saves the organization's time zone, and shows a name that is not one refused beside its field, in the reader's language", async () => {
    const owner = await personIn(server)
    const page = await owner.b.get(`${owner.base}/settings`)
    expect(page.body).toContain('id="time-zone-name" name="time_zone"')
    expect(page.body).toContain('value="UTC"')
    expect(page.body).toContain('<option value="Europe/Berlin"></option>')
    const saved = await owner.b.post(`${owner.base}/settings/organization`, { csrf: owner.csrf, time_zone: " Europe/Berlin " })
    expect(saved.status).toBe(303)
    const after = await owner.b.get(`${owner.base}/settings`)
    expect(after.body).toContain("The time zone was saved.")
    expect(after.body).toContain('list="time-zones" autocomplete="off" value="Europe/Berlin"')
    expect(await zoneOf(server, owner.organization.id)).toBe("Europe/Berlin")

    const refused = await owner.b.post(`${owner.base}/settings/organization`, { csrf: owner.csrf, time_zone: "Mars/Olympus" })
    expect(refused.status).toBe(400)
    expect(fieldError(refused, "time-zone-name")).toContain("IANA time zone")
    expect(refused.body).toContain('value="Mars/Olympus"')
    // The sender's fields keep what is saved, not what this form did not send.
    expect(refused.body).toContain('id="from-name" name="from_name" type="text" maxlength="200" value=""')
    const german = await owner.b.post(`${owner.base}/settings/organization`, { csrf: owner.csrf, time_zone: "" }, { "accept-language": "de" })
    expect(german.status).toBe(400)
    expect(fieldError(german, "time-zone-name")).toContain("IANA-Zeitzone")
    expect(await zoneOf(server, owner.organization.id)).toBe("Europe/Berlin")
  })

  it("on the top plan adds a domain and shows its DNS records with copy buttons, checks it and removes it", async () => {
    const owner = await personIn(server, { tier: "enterprise" })
    const empty = await owner.b.post(`${owner.base}/settings/domain`, { csrf: owner.csrf, domain: "" })
    expect(empty.status).toBe(400)
    expect(fieldError(empty, "domain-name")).toContain("mail.example.com")
    const bad = await owner.b.post(`${owner.base}/settings/domain`, { csrf: owner.csrf, domain: "not a domain" })
    expect(bad.status).toBe(400)
    expect(fieldError(bad, "domain-name")).toBeDefined()

    const domain = `mail-${Math.random().toString(36).slice(2, 8)}.example.org`
    const added = await owner.b.post(`${owner.base}/settings/domain`, { csrf: owner.csrf, domain })
    expect(added.status).toBe(303)
    const page = await owner.b.get(`${owner.base}/settings`)
    expect(page.body).toContain(`The domain ${domain} was added.`)
    const records = /<table id="dns-records">([\s\S]*?)<\/table>/.exec(page.body)?.[1] ?? ""
    expect(records).toContain(`feedback.${domain}`)
    expect([...records.matchAll(/data-copy="record-value-\d+"/g)].length).toBeGreaterThan(1)
    expect(page.body).toContain("Check now")

    const checked = await owner.b.post(`${owner.base}/settings/domain/check`, { csrf: owner.csrf })
    expect(checked.status).toBe(303)
    expect((await owner.b.get(`${owner.base}/settings`)).body).toContain("The domain was checked:")

    const removed = await owner.b.post(`${owner.base}/settings/domain/remove`, { csrf: owner.csrf })
    expect(removed.status).toBe(303)
    const gone = await owner.b.get(`${owner.base}/settings`)
    expect(gone.body).toContain("The domain was removed.")
    expect(gone.body).not.toContain("dns-records")
    const again = await owner.b.post(`${owner.base}/settings/domain/check`, { csrf: owner.csrf })
    expect(again.status).toBe(404)
  })

  it("explains that the plan has no custom domain, and refuses one posted anyway", async () => {
    const owner = await personIn(server, { tier: "free" })
    const page = await owner.b.get(`${owner.base}/settings`)
    expect(page.body).toContain("Your plan (Free) does not include a custom sending domain; the Enterprise plan does.")
    expect(page.body).not.toContain("id=\"domain-name\"")
    const refused = await owner.b.post(`${owner.base}/settings/domain`, { csrf: owner.csrf, domain: "mail.example.org" })
    expect(refused.status).toBe(402)
    expect(unescape(refused.body)).toMatch(/<p class="field-error" role="alert">[^<]*needs the Enterprise plan/)
  })

  it("says billing is not set up where no payment provider is configured, and offers no buttons", async () => {
    const owner = await personIn(server)
    const page = await owner.b.get(`${owner.base}/settings`)
    expect(page.body).toContain("Billing is not set up on this service yet")
    expect(page.body).not.toContain("/settings/billing/checkout")
    const refused = await owner.b.post(`${owner.base}/settings/billing/portal`, { csrf: owner.csrf })
    expect(refused.status).toBe(503)
  })

  it("says there is nothing to pay for where the service runs without plans", async () => {
    const owner = await personIn(planless)
    const page = await owner.b.get(`${owner.base}/settings`)
    expect(page.body).toContain("This service runs without plans")
    expect(page.body).not.toContain("Manage billing")
  })

  it("sends the owner to the provider's checkout to upgrade, and to its portal to manage billing", async () => {
    const owner = await personIn(paying)
    const page = await owner.b.get(`${owner.base}/settings`)
    expect(page.body).toContain("Upgrade to Pro")
    expect(page.body).toContain("Upgrade to Enterprise")
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self' https:")
    const checkout = await owner.b.post(`${owner.base}/settings/billing/checkout`, { csrf: owner.csrf, price_id: stripe.prices.pro })
    expect(checkout.status).toBe(303)
    const location = checkout.headers.get("location") ?? ""
    expect(stripe.sessions().map((s) => s.url)).toContain(location)
    const portal = await owner.b.post(`${owner.base}/settings/billing/portal`, { csrf: owner.csrf })
    expect(portal.status).toBe(303)
    expect(portal.headers.get("location")).toMatch(/^https?:\/\//)
    const unknownPrice = await owner.b.post(`${owner.base}/settings/billing/checkout`, { csrf: owner.csrf, price_id: "price_nope" })
    expect(unknownPrice.status).toBe(400)
  })

  it("shows a member no owner's settings, and refuses every owner's action with 403", async () => {
    const owner = await personIn(paying, { tier: "enterprise" })
    const member = await personIn(paying, { role: "member", user: await paying.signIn() })
    await paying.addMember(owner.organization.id, member.user, "member")
    const b = browser(paying, member.user.cookie)
    const page = await b.get(`${owner.base}/settings`)
    expect(page.status).toBe(200)
    expect(page.body).toContain("Only owners of the organization")
    expect(page.body).not.toContain("Manage billing")
    for (const [path, fields] of [
      ["/settings/sender", { from_name: "Member's name" }],
      ["/settings/organization", { time_zone: "Europe/Berlin" }],
      ["/settings/domain", { domain: "mail.example.org" }],
      ["/settings/domain/check", {}],
      ["/settings/domain/remove", {}],
      ["/settings/billing/checkout", { price_id: stripe.prices.pro }],
      ["/settings/billing/portal", {}]
    ] as const) {
      const refused = await b.post(`${owner.base}${path}`, { csrf: member.csrf, ...fields })
      expect(refused.status, path).toBe(403)
      expect(refused.body).toContain("Your role in this organization does not allow this.")
    }
    expect((await senderOf(paying, owner.organization.id)).fromName).toBeNull()
  })

  it("changes nothing for a form without its token, or posted from another site", async () => {
    const owner = await personIn(server)
    const forged = await owner.b.post(`${owner.base}/settings/sender`, { from_name: "Forged" })
    expect(forged.status).toBe(403)
    const crossSite = await owner.b.post(`${owner.base}/settings/sender`, { csrf: owner.csrf, from_name: "Forged" }, {
      origin: "https://evil.example",
      "sec-fetch-site": "cross-site"
    })
    expect(crossSite.status).toBe(403)
    expect((await senderOf(server, owner.organization.id)).fromName).toBeNull()
  })

  it("keeps another organization's settings out of reach", async () => {
    const owner = await personIn(server)
    const stranger = await personIn(server)
    expect((await stranger.b.get(`${owner.base}/settings`)).status).toBe(404)
    const post = await stranger.b.post(`${owner.base}/settings/sender`, { csrf: stranger.csrf, from_name: "Stranger" })
    expect(post.status).toBe(404)
    expect((await senderOf(server, owner.organization.id)).fromName).toBeNull()
  })
})
