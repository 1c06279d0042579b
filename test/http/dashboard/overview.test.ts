/**
 * The dashboard's overview through the running server, in both deployments: the figures of the
 * seeded organization, the chart of 30 days, the campaigns sending and the failing endpoints, in
 * the viewer's time zone and language; another organization's figures stay out.
 */
import { CampaignRepository, EmailUsage, SubscriberRepository } from "@roster/application"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { aSubscriber, givenEndpoint } from "../../contract/fixtures.js"
import { aCampaign } from "../../contract/mail-fixtures.js"
import { browser, personIn, unescape } from "./dashboard-browser.js"

const DAY = 24 * 60 * 60 * 1000
const forms = ["reference", "overview"] as const

describe.each(forms)("the dashboard's overview in the %s deployment", (form) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form, adapters: UnlimitedRateLimiterLive })
  })
  afterAll(() => server.close())

  /** An organization with 1,204 subscribers over the last days, a campaign sending and endpoints in trouble. */
  const seeded = async () => {
    const owner = await personIn(server, { tier: "pro" })
    const id = owner.organization.id
    const now = Date.now()
    await server.run(Effect.gen(function*() {
      const subscribers = yield* SubscriberRepository
      for (let i = 0; i < 1_200; i++) {
        yield* subscribers.insert(aSubscriber(id, { createdAt: new Date(now - 40 * DAY) }))
      }
      yield* subscribers.insert(aSubscriber(id, { createdAt: new Date(now - 2 * DAY), status: "unsubscribed" }))
      yield* subscribers.insert(aSubscriber(id, { createdAt: new Date(now - 2 * DAY) }))
      yield* subscribers.insert(aSubscriber(id, { createdAt: new Date(now - 2 * DAY), status: "bounced" }))
      yield* subscribers.insert(aSubscriber(id, { createdAt: new Date(now) }))
      yield* (yield* EmailUsage).reserve(id, new Date(now).toISOString().slice(0, 7), 812, null)
      const campaigns = yield* CampaignRepository
      yield* campaigns.insert(aCampaign(id, new Date(now), { status: "sending", name: "December <issue>", startedAt: new Date(now) }))
      yield* campaigns.insert(aCampaign(id, new Date(now), { status: "draft", name: "Draft never shown" }))
      yield* givenEndpoint(id, { failingSince: new Date(now - DAY) })
      yield* givenEndpoint(id, { status: "disabled", disabledReason: "by_user" })
    }).pipe(Effect.orDie))
    return owner
  }

  const failingUrls = (body: string) =>
    [...(/<table id="failing-endpoints">([\s\S]*?)<\/table>/.exec(body)?.[1] ?? "").matchAll(/<td class="url">([^<]*)<\/td>/g)].map((m) => m[1])

  it("shows the subscribers by status, the plan's use, 30 bars with their table, what is sending and what fails", async () => {
    const owner = await seeded()
    const page = await owner.b.get(owner.base)
    expect(page.status).toBe(200)
    const body = page.body
    // 1,204 subscribers: 1,202 active, one unsubscribed, one bounced.
    expect(body).toMatch(/<div class="figure">1,204<\/div>/)
    expect(body).toMatch(/<span>Active<\/span> <span class="number">1,202<\/span>/)
    expect(body).toMatch(/<span>Unsubscribed<\/span> <span class="number">1<\/span>/)
    expect(body).toMatch(/<span>Complained<\/span> <span class="number">0<\/span>/)
    expect(body).toContain("812 of ")
    expect(body).toMatch(/<meter min="0" max="\d+" value="812"/)
    expect(body).toContain("<strong>Pro</strong>")
    const bars = [...body.matchAll(/<rect class="bar" [^>]*><title>([^<]*)<\/title><\/rect>/g)].map((m) => m[1]!)
    expect(bars).toHaveLength(30)
    expect(bars.at(-1)).toMatch(/: 1 new$/)
    expect(bars.at(-3)).toMatch(/: 3 new$/)
    expect(bars.filter((title) => !title.endsWith(": 0 new"))).toHaveLength(2)
    expect(body).toContain("viewBox=\"0 0 600 160\"")
    const rows = /<table class="visually-hidden">([\s\S]*?)<\/table>/.exec(body)?.[1] ?? ""
    expect([...rows.matchAll(/<tr><td>/g)]).toHaveLength(30)
    expect(body).toContain("December &lt;issue&gt;")
    expect(body).not.toContain("Draft never shown")
    expect(failingUrls(body)).toHaveLength(1)
    expect(body).toContain("Failing since")
    expect(body).toMatch(/<td class="url">[^<]*<\/td><td class="number">0<\/td>/)
    // Its forms lead nowhere but the dashboard itself.
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self';")
  })

  it("counts the days in the viewer's time zone from the cookie, and takes a zone it does not know as UTC", async () => {
    const owner = await personIn(server)
    const berlin = await owner.b.get(owner.base, { cookie: `${[...owner.b.jar].map(([n, v]) => `${n}=${v}`).join("; ")}; roster_tz=Europe%2FBerlin` })
    expect(berlin.body).toContain("Days as your time zone (Europe/Berlin)")
    const unknown = await owner.b.get(owner.base, { cookie: `${[...owner.b.jar].map(([n, v]) => `${n}=${v}`).join("; ")}; roster_tz=Mars%2FOlympus` })
    expect(unknown.status).toBe(200)
    expect(unknown.body).toContain("Days as your time zone (UTC)")
  })

  it("an empty organization shows zeros, 30 bars and nothing sending", async () => {
    const owner = await personIn(server)
    const body = (await owner.b.get(owner.base)).body
    expect(body).toMatch(/<div class="figure">0<\/div>/)
    expect([...body.matchAll(/<rect class="bar" /g)]).toHaveLength(30)
    expect(body).toContain("No campaign is sending.")
    expect(body).toContain("Every webhook endpoint answers.")
  })

  it("speaks German with German numbers", async () => {
    const owner = await seeded()
    await owner.b.get("/app/locale/de?back=/app")
    const body = (await owner.b.get(owner.base)).body
    expect(body).toContain("Abonnenten nach Status")
    expect(body).toMatch(/<div class="figure">1\.204<\/div>/)
    expect(body).toContain("812 von ")
    expect(unescape(body)).toContain("Neue Abonnenten, letzte 30 Tage")
  })

  it("shows a member the figures but not the webhook endpoints, which only owners manage", async () => {
    const owner = await seeded()
    const member = await server.signIn()
    await server.addMember(owner.organization.id, member, "member")
    const body = (await browser(server, member.cookie).get(owner.base)).body
    expect(body).toMatch(/<div class="figure">1,204<\/div>/)
    expect(body).not.toContain("Webhook endpoints failing")
    expect(body).not.toContain("failing-endpoints")
  })

  it("shows nothing of another organization", async () => {
    const owner = await seeded()
    const stranger = await personIn(server)
    const elsewhere = await stranger.b.get(owner.base)
    expect(elsewhere.status).toBe(404)
    expect(elsewhere.body).not.toContain("1,204")
    expect((await stranger.b.get(stranger.base)).body).toMatch(/<div class="figure">0<\/div>/)
  })
})
