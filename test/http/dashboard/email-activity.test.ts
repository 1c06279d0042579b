/**
 * The dashboard's email activity screen through the running server, in both deployments: the hard
 * bounces and complaints the provider reported (as signed Resend events), newest first and a page
 * at a time, each with the subscriber it moved (a link to their page) and the status it moved them
 * to, in German too; a page position that is not one, members, and the link from the settings.
 */
import { createHmac, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, freshAddress, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { type Page, personIn, unescape } from "./dashboard-browser.js"

const deployments = ["reference", "overview"] as const
const secret = `whsec_${randomBytes(32).toString("base64")}`

const resendEvent = (type: string, data: Record<string, unknown>) =>
  JSON.stringify({ type, created_at: new Date().toISOString(), data: { created_at: new Date().toISOString(), ...data } })

/** The subscribers the rows link to, in the order shown. */
const linkedIds = (page: Page, base: string) =>
  [...page.body.matchAll(new RegExp(`href="${base}/subscribers/([0-9a-f-]{36})"`, "g"))].map((match) => match[1]!)

describe.each(deployments)("the email activity screen in the %s deployment", (deployment) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form: deployment, adapters: UnlimitedRateLimiterLive, config: { EMAIL_WEBHOOK_SECRET: secret } })
  })
  afterAll(() => server.close())
  const api = () => deployment === "overview" ? "/v1" : "/api/v1"

  /** A report of the provider, signed with X-EmailProvider-Signature as Resend's relay signs it. */
  const report = async (type: "email.bounced" | "email.complained" | "email.delivered", to: string, bounce = "Permanent") => {
    const body = resendEvent(type, {
      email_id: `re_${randomBytes(6).toString("hex")}`,
      to: [to],
      ...(type === "email.bounced" ? { bounce: { type: bounce, subType: "General", message: "mailbox does not exist" } } : {})
    })
    const answer = await call(server, "POST", "/webhooks/resend-events", {
      body,
      headers: { "content-type": "application/json", "X-EmailProvider-Signature": createHmac("sha256", secret).update(body).digest("hex") }
    })
    expect(answer.status, answer.text).toBe(200)
  }

  /** An owner whose organization has a subscriber for each address. */
  const withSubscribers = async (count: number) => {
    const person = await personIn(server)
    const key = await server.createApiKey(person.organization)
    const subscribers: Array<{ id: string; email: string }> = []
    for (let i = 0; i < count; i++) {
      const email = freshAddress("reader")
      const made = await call(server, "POST", `${api()}/subscribers`, { key, json: { email } })
      expect(made.status, made.text).toBe(201)
      subscribers.push({ id: (made.body.data ?? made.body).id, email })
    }
    return { ...person, key, subscribers }
  }

  it("lists a bounce and a complaint newest first, each with the subscriber it moved and the status it moved them to", async () => {
    const { b, base, subscribers } = await withSubscribers(3)
    const [ada, grace, untouched] = subscribers as [{ id: string; email: string }, { id: string; email: string }, { id: string; email: string }]
    const empty = await b.get(`${base}/email`)
    expect(empty.status).toBe(200)
    expect(empty.body).toContain("No bounces or complaints yet.")
    expect(empty.body).toContain(`<a href="${base}/email" aria-current="page">Email activity</a>`)
    expect(empty.body).toContain(`href="${base}/settings"`)

    await report("email.bounced", ada.email)
    await report("email.complained", grace.email)
    // A soft bounce and a delivery move nobody, and are not listed.
    await report("email.bounced", untouched.email, "Transient")
    await report("email.delivered", untouched.email)
    const page = await b.get(`${base}/email`)
    expect(page.status).toBe(200)
    expect(linkedIds(page, base)).toEqual([grace.id, ada.id])
    const rows = page.body.split("<tr>").slice(2)
    expect(rows[0]).toContain("Complaint")
    expect(rows[0]).toContain(grace.email)
    expect(rows[0]).toContain("Status to Complained")
    expect(rows[0]).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+">/)
    expect(rows[1]).toContain("Hard bounce")
    expect(rows[1]).toContain("Status to Bounced")

    // The link leads to the subscriber's page, which says the same.
    const subscriber = await b.get(`${base}/subscribers/${ada.id}`)
    expect(subscriber.status).toBe(200)
    expect(subscriber.body).toContain(ada.email)

    const german = await b.get(`${base}/email`, { "accept-language": "de" })
    expect(german.body).toContain("<h1>E-Mail-Aktivität</h1>")
    expect(german.body).toContain("Harte Unzustellbarkeit")
    expect(german.body).toContain("Status auf Unzustellbar")
  })

  it("shows only the organization's own reports", async () => {
    const mine = await withSubscribers(1)
    const theirs = await withSubscribers(1)
    await report("email.bounced", theirs.subscribers[0]!.email)
    const page = await mine.b.get(`${mine.base}/email`)
    expect(page.body).toContain("No bounces or complaints yet.")
    expect(page.body).not.toContain(theirs.subscribers[0]!.email)
  })

  it("pages the reports, fifty a page, newest first", async () => {
    const { b, base, subscribers } = await withSubscribers(51)
    for (const subscriber of subscribers) await report("email.bounced", subscriber.email)
    const first = await b.get(`${base}/email`)
    const newestFirst = [...subscribers].reverse().map((s) => s.id)
    expect(linkedIds(first, base)).toEqual(newestFirst.slice(0, 50))
    const older = /href="([^"]+\?before=[^"]+)">Older reports/.exec(first.body)![1]!
    const second = await b.get(unescape(older))
    expect(linkedIds(second, base)).toEqual(newestFirst.slice(50))
    expect(second.body).toContain("Newest reports")
    expect(second.body).not.toContain("Older reports")
  })

  it("refuses a page position that is not one, and lets members read the activity", async () => {
    const owner = await withSubscribers(1)
    await report("email.bounced", owner.subscribers[0]!.email)
    const bad = await owner.b.get(`${owner.base}/email?before=yesterday`)
    expect(bad.status).toBe(400)
    expect(bad.body).toContain("That page of the email activity is not one there is")
    const germanBad = await owner.b.get(`${owner.base}/email?before=yesterday`, { "accept-language": "de" })
    expect(germanBad.body).toContain("Diese Seite der E-Mail-Aktivität gibt es nicht")

    const member = await personIn(server, { role: "member" })
    await server.addMember(owner.organization.id, member.user, "member")
    const seen = await member.b.get(`${owner.base}/email`)
    expect(seen.status).toBe(200)
    expect(seen.body).toContain(owner.subscribers[0]!.email)
  })

  it("is linked from the settings", async () => {
    const { b, base } = await personIn(server)
    const settings = await b.get(`${base}/settings`)
    expect(settings.body).toContain(`href="${base}/email"`)
  })
})
