/**
 * Consents and double opt-in through the API over the real server, in both wire forms and, in the
 * reference form, through the direct lane and without it: a create with `double_opt_in` answers
 * 202 and keeps a pending sign-up whose confirmation email the worker sends through a local server
 * that speaks Resend's API, from the organization's sender; confirming makes the subscriber with
 * what the create named and its consent. A consent given with a create made at once is kept. A
 * subscriber's consents are listed newest first, kept after they unsubscribe, in their data
 * export, and gone with them when they are erased or deleted.
 */
import { ConsentRepository, EmailSettingsRepository, SignUps, SubscriberRepository, Subscribers } from "@roster/application"
import { EmailAddress, EmailSettings, OrganizationId, SubscriberId } from "@roster/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeResendMailer } from "../../adapters/resend/index.js"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../support/http-server.js"
import { type ResendApi, startResendApi } from "../support/resend-api.js"
import { createTag, expectInvalid, freshEmail, isoInstantPattern, uuidPattern } from "./helpers.js"

const sides = [
  { name: "reference form, direct lane", form: "reference", api: "/api/v1", directLane: true },
  { name: "reference form, without the direct lane", form: "reference", api: "/api/v1", directLane: false },
  { name: "overview form", form: "overview", api: "/v1", directLane: true }
] as const

let resend: ResendApi
const servers: Array<TestHttpServer> = []
beforeAll(async () => {
  resend = await startResendApi()
  const mailer = makeResendMailer({
    apiKey: Redacted.make(resend.apiKey),
    baseUrl: resend.url,
    from: "Roster <noreply@roster.test>",
    retry: { times: 0 }
  })
  for (const side of sides) {
    servers.push(await startHttpServer({
      form: side.form,
      directLane: side.directLane,
      adapters: Layer.merge(mailer, UnlimitedRateLimiterLive)
    }))
  }
})
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
  await resend.close()
})

/** The body of an answer, out of the overview form's `data` envelope. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const unwrapped = (body: any) => body?.data ?? body

/** Sends the sign-up emails due, as the worker does; how many were taken. */
const sendDue = (server: TestHttpServer) => server.run(Effect.flatMap(SignUps, (signUps) => signUps.sendDueConfirmations(100)))

/** The emails Resend took for `address`, oldest first. */
const mailTo = (address: string) => resend.accepted().filter((mail) => mail.to.toLowerCase() === address.toLowerCase())

const subscriberOf = (server: TestHttpServer, organizationId: string, email: string) =>
  server.run(Effect.flatMap(SubscriberRepository, (subscribers) =>
    subscribers.findByEmail(OrganizationId.make(organizationId), EmailAddress.make(email)))).then(Option.getOrUndefined)

const consentsKept = (server: TestHttpServer, organizationId: string, subscriberId: string) =>
  server.run(Effect.flatMap(ConsentRepository, (consents) =>
    consents.listFor(OrganizationId.make(organizationId), SubscriberId.make(subscriberId))))

sides.forEach((side, index) => {
  const server = () => servers[index]!
  const { api } = side

  /** A fresh organization with a live key (whose email leaves), a tag, and a sender name of its own. */
  const seeded = async () => {
    const { key, organization } = await server().seedOrganization({ environment: "live" })
    const tag = unwrapped(await createTag(server(), key)) as { id: string; name: string }
    await server().run(Effect.flatMap(EmailSettingsRepository, (settings) =>
      settings.save(new EmailSettings({ organizationId: organization.id, fromName: "Acme Letters", fromAddress: null, updatedAt: new Date() }))))
    return { key, organization, tag, tagRef: side.form === "overview" ? tag.name : tag.id }
  }

  describe(`double opt-in and consents through the API, ${side.name}`, () => {
    it("a create with double_opt_in answers 202 and creates nothing; the emailed link makes the subscriber with its tags, metadata and consent", async () => {
      const { key, organization, tag, tagRef } = await seeded()
      const email = freshEmail("double")
      const body = {
        email,
        tags: [tagRef],
        metadata: { plan: "pro" },
        double_opt_in: true,
        consent: { text: "Send me the weekly letter.", client_address: "203.0.113.77", user_agent: "Site/1.0" }
      }
      const answer = await call(server(), "POST", `${api}/subscribers`, { key, json: body })
      expect(answer.status, answer.text).toBe(202)
      expect(unwrapped(answer.body)).toEqual({
        status: "confirmation_sent",
        email,
        message: `A confirmation email is on its way to ${email}; the address becomes a subscriber when the link in it is followed, within seven days.`
      })
      expect(await subscriberOf(server(), organization.id, email)).toBeUndefined()

      expect(await sendDue(server())).toBe(1)
      const [mail] = mailTo(email)
      expect(mail?.from).toBe('"Acme Letters" <noreply@localhost>')
      expect(mail?.subject).toBe(`Please confirm your subscription to ${organization.name}`)
      const token = decodeURIComponent(/\/f\/confirm\?token=([^\s"<&]+)/.exec(mail?.text ?? "")![1]!)
      const confirmed = await fetch(`${server().baseUrl}/f/confirm?token=${encodeURIComponent(token)}`, { method: "POST" })
      expect(confirmed.status).toBe(200)
      expect(await confirmed.text()).toContain(organization.name)

      const subscriber = await subscriberOf(server(), organization.id, email)
      expect(subscriber).toMatchObject({ status: "active", metadata: { plan: "pro" } })
      const read = await call(server(), "GET", `${api}/subscribers/${subscriber!.id}`, { key })
      expect(unwrapped(read.body).tags.map((t: { name: string }) => t.name)).toEqual([tag.name])

      const consents = await call(server(), "GET", `${api}/subscribers/${subscriber!.id}/consents`, { key })
      expect(consents.status, consents.text).toBe(200)
      const items = side.form === "overview" ? consents.body.data : consents.body.items
      if (side.form === "reference") expect(consents.body).toMatchObject({ total: 1, next_cursor: null })
      expect(items).toHaveLength(1)
      expect(items[0]).toMatchObject({
        form: null,
        text: "Send me the weekly letter.",
        client_address: "203.0.113.0",
        user_agent: "Site/1.0"
      })
      expect(items[0].id).toMatch(uuidPattern)
      expect(items[0].api_key.id).toMatch(uuidPattern)
      expect(items[0].agreed_at).toMatch(isoInstantPattern)
      expect(items[0].confirmed_at).toMatch(isoInstantPattern)
    })

    it("a double opt-in with locale de is asked for in German, and its link opens a German page", async () => {
      const { key, organization } = await seeded()
      const email = freshEmail("deutsch")
      const answer = await call(server(), "POST", `${api}/subscribers`, { key, json: { email, double_opt_in: true, locale: "de" } })
      expect(answer.status, answer.text).toBe(202)
      expect(await sendDue(server())).toBe(1)
      const [mail] = mailTo(email)
      expect(mail?.subject).toBe(`Bitte bestätigen Sie Ihre Anmeldung bei ${organization.name}`)
      const link = /\/f\/confirm\?token=[^\s"<&]+&locale=de(?=\s)/.exec(mail?.text ?? "")
      expect(link, mail?.text).not.toBeNull()
      const page = await fetch(`${server().baseUrl}${link![0]}`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('lang="de"')
    })

    it("the answer is the same for an active, a bounced and an unknown address; the active one is told once in ten minutes, the bounced one nothing", async () => {
      const { key, organization } = await seeded()
      const active = freshEmail("active")
      const bounced = freshEmail("bounced")
      for (const email of [active, bounced]) {
        const made = await call(server(), "POST", `${api}/subscribers`, { key, json: { email } })
        expect(made.status, made.text).toBe(201)
      }
      await server().run(Effect.flatMap(SubscriberRepository, (subscribers) =>
        Effect.flatMap(subscribers.findByEmail(organization.id, EmailAddress.make(bounced)), (found) =>
          subscribers.update({ ...Option.getOrThrow(found), status: "bounced" } as never))))
      const bodies = []
      for (const email of [active, bounced, freshEmail("unknown"), active]) {
        const answer = await call(server(), "POST", `${api}/subscribers`, { key, json: { email, double_opt_in: true } })
        expect(answer.status, answer.text).toBe(202)
        bodies.push({ ...unwrapped(answer.body), email: "x", message: unwrapped(answer.body).message.replace(email, "x") })
      }
      expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1)
      await sendDue(server())
      expect(mailTo(bounced)).toHaveLength(0)
      const told = mailTo(active)
      expect(told).toHaveLength(1)
      expect(told[0]!.subject).toBe(`You are already subscribed to ${organization.name}`)
      expect(told[0]!.from).toBe('"Acme Letters" <noreply@localhost>')
      // Its link opens the subscriber's own preference center.
      const link = decodeURIComponent(/\/preference-center\?token=([^\s"<]+)/.exec(told[0]!.text ?? "")![1]!)
      const center = await call(server(), "GET", `/preference-center?token=${encodeURIComponent(link)}`)
      expect(center.status, center.text).toBe(200)
      expect(unwrapped(center.body).email).toBe(active)
      server().advanceClock("10 minutes")
      await call(server(), "POST", `${api}/subscribers`, { key, json: { email: active, double_opt_in: true } })
      await sendDue(server())
      expect(mailTo(active)).toHaveLength(2)
      // No second record: still one subscriber of the address, and without double opt-in still a conflict.
      const again = await call(server(), "POST", `${api}/subscribers`, { key, json: { email: active, double_opt_in: false } })
      expect(again.status).toBe(409)
    })

    it("a consent given with a create made at once is kept naming the API key; it stays after an unsubscribe and is in the data export", async () => {
      const { key, organization } = await seeded()
      const email = freshEmail("consent")
      const made = await call(server(), "POST", `${api}/subscribers`, {
        key,
        json: { email, consent: { text: "  Agreed at the fair.  ", client_address: "2001:db8:aa:bb::1" } }
      })
      expect(made.status, made.text).toBe(201)
      const id = unwrapped(made.body).id as string
      const update = side.form === "overview" ? "PATCH" : "PUT"
      expect((await call(server(), update, `${api}/subscribers/${id}`, { key, json: { status: "unsubscribed" } })).status).toBe(200)
      const consents = await call(server(), "GET", `${api}/subscribers/${id}/consents`, { key })
      const items = side.form === "overview" ? consents.body.data : consents.body.items
      expect(items).toEqual([{
        id: expect.stringMatching(uuidPattern),
        agreed_at: expect.stringMatching(isoInstantPattern),
        form: null,
        api_key: { id: expect.stringMatching(uuidPattern) },
        text: "Agreed at the fair.",
        client_address: "2001:db8:aa::",
        user_agent: null,
        confirmed_at: null
      }])

      const link = await call(server(), "POST", `${api}/subscribers/${id}/token`, { key })
      const token = unwrapped(link.body).token as string
      const exported = await call(server(), "GET", `/preference-center/data-export?token=${encodeURIComponent(token)}`)
      expect(exported.status, exported.text).toBe(200)
      expect(unwrapped(exported.body).consents).toEqual(items)

      // Erased at the subscriber's request: the consents go with them.
      expect((await call(server(), "DELETE", `/preference-center/account?token=${encodeURIComponent(token)}`)).status).toBe(202)
      expect(await server().run(Effect.flatMap(Subscribers, (subscribers) => subscribers.eraseRequested(100)))).toBeGreaterThan(0)
      expect(await consentsKept(server(), organization.id, id)).toEqual([])
    })

    it("a subscriber deleted through the API takes their consents; a subscriber without any lists none", async () => {
      const { key, organization } = await seeded()
      const made = await call(server(), "POST", `${api}/subscribers`, { key, json: { email: freshEmail("deleted"), consent: { text: "Yes." } } })
      const id = unwrapped(made.body).id as string
      expect(await consentsKept(server(), organization.id, id)).toHaveLength(1)
      expect((await call(server(), "DELETE", `${api}/subscribers/${id}`, { key })).status).toBe(204)
      expect(await consentsKept(server(), organization.id, id)).toEqual([])
      const plain = await call(server(), "POST", `${api}/subscribers`, { key, json: { email: freshEmail("plain") } })
      const none = await call(server(), "GET", `${api}/subscribers/${unwrapped(plain.body).id}/consents`, { key })
      expect(side.form === "overview" ? none.body : none.body.items).toEqual(side.form === "overview" ? { data: [] } : [])
    })

    it("consents need subscribers:read; another organization's subscriber and an unknown one are not found", async () => {
      const { key, organization } = await seeded()
      const made = await call(server(), "POST", `${api}/subscribers`, { key, json: { email: freshEmail("theirs"), consent: { text: "Yes." } } })
      const id = unwrapped(made.body).id as string
      const stranger = await server().seedOrganization()
      const foreign = await call(server(), "GET", `${api}/subscribers/${id}/consents`, { key: stranger.key })
      expect(foreign.status, foreign.text).toBe(404)
      expect(foreign.text).not.toContain("Yes.")
      const unknown = await call(server(), "GET", `${api}/subscribers/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10/consents`, { key })
      expect(unknown.status).toBe(404)
      const tagsOnly = await server().createApiKey(organization, ["tags:read"])
      expect((await call(server(), "GET", `${api}/subscribers/${id}/consents`, { key: tagsOnly })).status).toBe(403)
      const reader = await server().createApiKey(organization, ["subscribers:read"])
      expect((await call(server(), "GET", `${api}/subscribers/${id}/consents`, { key: reader })).status).toBe(200)
    })

    it("refuses a bad double_opt_in or consent with a 400 naming each field, and creates nothing", async () => {
      const { key, organization } = await seeded()
      const email = freshEmail("refused")
      const cases: ReadonlyArray<readonly [Record<string, unknown>, ReadonlyArray<string>]> = [
        [{ double_opt_in: "yes" }, ["double_opt_in"]],
        [{ consent: { client_address: "203.0.113.1" } }, ["consent.text"]],
        [{ consent: { text: "   " } }, ["consent.text"]],
        [{ consent: { text: "Yes", client_address: "not-an-address" } }, ["consent.client_address"]],
        [{ consent: { text: "Yes", agreed: true } }, ["consent.agreed"]],
        [{ consent: "yes", double_opt_in: true }, ["consent"]],
        [{ double_opt_in: true, tags: ["0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"] }, ["tags[0]"]],
        [{ double_opt_in: true, locale: "fr" }, ["locale"]],
        [{ locale: "de" }, ["locale"]],
        [{ double_opt_in: false, locale: "en" }, ["locale"]]
      ]
      for (const [fields, named] of cases) {
        const json = side.form === "overview" && "tags" in fields ? { ...fields, tags: ["bad\u0000name"] } : fields
        const answer = await call(server(), "POST", `${api}/subscribers`, { key, json: { email, ...json } })
        if (side.form === "overview") {
          expect(answer.status, answer.text).toBe(400)
          expect(answer.body.error.details.map((d: { field: string }) => d.field)).toEqual(named)
        } else {
          expectInvalid(answer, `${api}/subscribers`, named)
        }
      }
      expect(await sendDue(server())).toBe(0)
      expect(await subscriberOf(server(), organization.id, email)).toBeUndefined()
    })
  })
})
