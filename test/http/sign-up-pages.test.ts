/**
 * The hosted pages of sign-up forms over the real server, in both wire forms: the form's page, what
 * posting it does (double opt-in on and off, the hidden field, too fast a reply, a bad address, an
 * unknown form), and the page the confirmation link opens, which changes nothing until its button
 * posts. A full list tells the form's owner by a webhook event, once an hour per form.
 */
import { SignUps, SubscriberRepository, WebhookDispatch } from "@roster/application"
import { EmailAddress, OrganizationId } from "@roster/domain"
import { Effect, Option } from "effect"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../support/http-server.js"
import { createTag, freshEmail, fullFreeOrganization, startReceiver } from "./helpers.js"

const wireForms = ["reference", "overview"] as const
const servers = {} as Record<(typeof wireForms)[number], TestHttpServer>
beforeAll(async () => {
  for (const form of wireForms) servers[form] = await startHttpServer({ form, adapters: UnlimitedRateLimiterLive })
})
afterAll(() => Promise.all(wireForms.map((form) => servers[form].close())))

const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

/** A form of a fresh organization, made through the API with a tag. */
const formOf = async (server: TestHttpServer, json: Record<string, unknown> = {}) => {
  const seeded = await server.seedOrganization()
  const api = server === servers.overview ? "/v1" : "/api/v1"
  const made = await createTag(server, seeded.key)
  const tag = (made.data ?? made) as { id: string; name: string }
  const answer = await call(server, "POST", `${api}/forms`, {
    key: seeded.key,
    // The overview form names a form's tags by name.
    json: { name: "The <Weekly> & Co", tags: [api === "/v1" ? tag.name : tag.id], consent_text: "I agree to get the <b>weekly</b> letter.", ...json }
  })
  expect(answer.status, answer.text).toBe(201)
  const form = answer.body.data ?? answer.body
  return { ...seeded, api, tag, form: form as { id: string } }
}

/** The stamp of a freshly shown page of the form. */
const stampOf = async (server: TestHttpServer, formId: string) => {
  const page = await fetch(`${server.baseUrl}/f/${formId}`).then((r) => r.text())
  const stamp = /name="shown" value="([^"]+)"/.exec(page)?.[1]
  expect(stamp).toBeDefined()
  return stamp!
}

const post = (server: TestHttpServer, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString()
  })

/** Shows the page, waits as a person would, and sends it with `email`. */
const signUp = async (server: TestHttpServer, formId: string, email: string, fields: Record<string, string> = {}) => {
  const shown = await stampOf(server, formId)
  server.advanceClock("3 seconds")
  return post(server, `/f/${formId}`, { email, shown, website: "", ...fields }, { "user-agent": "Pages test" })
}

/** Sends the confirmation emails due; how many went out. */
const sendDue = (server: TestHttpServer) => server.run(Effect.flatMap(SignUps, (signUps) => signUps.sendDueConfirmations(100)))

/** The token of the newest confirmation link mailed to `email`. */
const confirmationToken = (server: TestHttpServer, email: string) => {
  const mail = server.emails().filter((text) => text.includes(email)).at(-1) ?? ""
  const token = /\/f\/confirm\?token=([^\s"<&]+)/.exec(mail)?.[1]
  expect(token, mail).toBeDefined()
  return decodeURIComponent(token!)
}

const subscriberOf = (server: TestHttpServer, organizationId: string, email: string) =>
  server.run(Effect.flatMap(SubscriberRepository, (subscribers) =>
    subscribers.findByEmail(OrganizationId.make(organizationId), EmailAddress.make(email)))).then(Option.getOrUndefined)

for (const wireForm of wireForms) {
  describe(`sign-up pages, ${wireForm} form`, () => {
    it("the page shows the form, its consent text as text, a hidden trap field and a signed stamp", async () => {
      const server = servers[wireForm]
      const { form } = await formOf(server)
      const answer = await fetch(`${server.baseUrl}/f/${form.id}`)
      expect(answer.status).toBe(200)
      expect(answer.headers.get("content-type")).toMatch(/^text\/html/)
      expect(answer.headers.get("content-security-policy")).toContain("form-action 'self'")
      const page = await answer.text()
      expect(page).toContain('<html lang="en">')
      expect(page).not.toContain("<script")
      expect(page).toContain("The &lt;Weekly&gt; &amp; Co")
      expect(page).toContain("I agree to get the &lt;b&gt;weekly&lt;/b&gt; letter.")
      expect(page).toContain(`action="/f/${form.id}?locale=en"`)
      expect(page).toMatch(/<div class="trap" aria-hidden="true">[\s\S]*name="website" type="text" tabindex="-1" autocomplete="off"/)
      expect(page).toMatch(/name="shown" value="[\w-]+\.[\w-]+\.[\w-]+"/)
      const german = await fetch(`${server.baseUrl}/f/${form.id}`, { headers: { "accept-language": "de-CH,de;q=0.9" } })
      const germanPage = await german.text()
      expect(germanPage).toContain('<html lang="de">')
      expect(germanPage).toContain("Abonnieren")
    })

    it("a form without consent text shows none, not an empty paragraph", async () => {
      const server = servers[wireForm]
      const { form } = await formOf(server, { consent_text: null })
      const page = await fetch(`${server.baseUrl}/f/${form.id}`).then((r) => r.text())
      expect(page).toContain('name="email"')
      expect(page).not.toContain('class="consent"')
    })

    it("with double opt-in, a sign-up says to check the inbox and mails a link; its page changes nothing, its button subscribes with the form's tags", async () => {
      const server = servers[wireForm]
      const { api, form, key, organization, tag } = await formOf(server)
      const email = freshEmail()
      const answer = await signUp(server, form.id, email)
      expect(answer.status).toBe(200)
      expect(await answer.text()).toContain("Check your inbox")
      expect(await sendDue(server)).toBe(1)
      const token = confirmationToken(server, email)

      const opened = await fetch(`${server.baseUrl}/f/confirm?token=${encodeURIComponent(token)}`)
      expect(opened.status).toBe(200)
      const confirmPage = await opened.text()
      expect(confirmPage).toContain("Confirm your subscription")
      expect(confirmPage).toContain(`action="/f/confirm?token=${encodeURIComponent(token)}&amp;locale=en"`)
      expect(await subscriberOf(server, organization.id, email)).toBeUndefined()

      const confirmed = await post(server, `/f/confirm?token=${encodeURIComponent(token)}`, {})
      expect(confirmed.status).toBe(200)
      expect(await confirmed.text()).toContain("Your subscription is confirmed")
      const subscriber = await subscriberOf(server, organization.id, email)
      expect(subscriber?.status).toBe("active")
      const read = await call(server, "GET", `${api}/subscribers/${subscriber!.id}`, { key })
      // The overview form names a subscriber's tags by name.
      const tags = (read.body.data ?? read.body).tags.map((t: { id?: string; name: string }) => t.id ?? t.name)
      expect(tags).toEqual([api === "/v1" ? tag.name : tag.id])
      // The link again: already confirmed, nothing more.
      expect((await post(server, `/f/confirm?token=${encodeURIComponent(token)}`, {})).status).toBe(200)
      expect(await fetch(`${server.baseUrl}/f/confirm?token=${encodeURIComponent(token)}`).then((r) => r.text()))
        .toContain("Your subscription is confirmed")
    })

    it("a known address is answered the same as a new one", async () => {
      const server = servers[wireForm]
      const { api, form, key } = await formOf(server)
      const email = freshEmail()
      await call(server, "POST", `${api}/subscribers`, { key, json: { email } })
      const known = await signUp(server, form.id, email)
      const fresh = await signUp(server, form.id, freshEmail())
      expect(known.status).toBe(fresh.status)
      const strip = (page: string) => page.replace(/\s+/g, " ")
      expect(strip(await known.text())).toBe(strip(await fresh.text()))
    })

    it("without double opt-in, a sign-up subscribes at once; with a success URL it goes there", async () => {
      const server = servers[wireForm]
      const { form, organization } = await formOf(server, { double_opt_in: false })
      const email = freshEmail()
      const answer = await signUp(server, form.id, email)
      expect(answer.status).toBe(200)
      expect(await answer.text()).toContain("You are subscribed")
      expect((await subscriberOf(server, organization.id, email))?.status).toBe("active")

      const away = await formOf(server, { double_opt_in: false, success_url: "https://example.com/thanks?x=1" })
      const redirected = await signUp(server, away.form.id, freshEmail())
      expect(redirected.status).toBe(303)
      expect(redirected.headers.get("location")).toBe("https://example.com/thanks?x=1")
    })

    it("a filled trap field or too quick a reply is answered as usual and does nothing", async () => {
      const server = servers[wireForm]
      const { form, organization } = await formOf(server, { double_opt_in: false })
      const trapped = freshEmail()
      const answer = await signUp(server, form.id, trapped, { website: "https://spam.example" })
      expect(answer.status).toBe(200)
      expect(await answer.text()).toContain("You are subscribed")
      expect(await subscriberOf(server, organization.id, trapped)).toBeUndefined()

      const hasty = freshEmail()
      const shown = await stampOf(server, form.id)
      const quick = await post(server, `/f/${form.id}`, { email: hasty, shown })
      expect(quick.status).toBe(200)
      expect(await quick.text()).toContain("You are subscribed")
      expect(await subscriberOf(server, organization.id, hasty)).toBeUndefined()
      // The stamp keeps milliseconds: a second and a half is too quick, whatever second the page was shown in.
      const again = await stampOf(server, form.id)
      server.advanceClock("1500 millis")
      expect((await post(server, `/f/${form.id}`, { email: hasty, shown: again })).status).toBe(200)
      expect(await subscriberOf(server, organization.id, hasty)).toBeUndefined()
    })

    it("a stamp that is missing, made up, of another form or older than a day shows the page anew, doing nothing", async () => {
      const server = servers[wireForm]
      const { form, organization } = await formOf(server, { double_opt_in: false })
      const other = await formOf(server)
      const otherStamp = await stampOf(server, other.form.id)
      const email = freshEmail()
      server.advanceClock("3 seconds")
      for (const fields of [{}, { shown: "made.up.stamp" }, { shown: otherStamp }] as ReadonlyArray<Record<string, string>>) {
        const answer = await post(server, `/f/${form.id}`, { email, ...fields })
        expect(answer.status).toBe(400)
        const page = await answer.text()
        expect(page).toContain("Please send the form again")
        expect(page).toContain(`value="${email}"`)
        expect(page).toMatch(/name="shown" value="[\w-]+\.[\w-]+\.[\w-]+"/)
      }
      const old = await stampOf(server, form.id)
      server.advanceClock("25 hours")
      expect((await post(server, `/f/${form.id}`, { email, shown: old })).status).toBe(400)
      expect(await subscriberOf(server, organization.id, email)).toBeUndefined()
    })

    it("an address that is not one shows the page again with the problem beside the field", async () => {
      const server = servers[wireForm]
      const { form } = await formOf(server)
      for (const email of ["not-an-address", ""]) {
        const answer = await signUp(server, form.id, email)
        expect(answer.status).toBe(400)
        const page = await answer.text()
        expect(page).toContain('aria-invalid="true" aria-describedby="email-error"')
        expect(page).toContain('<p id="email-error" class="error">Enter an email address such as name@example.com.</p>')
        expect(page).toContain(`value="${email}"`)
      }
      const german = await post(server, `/f/${form.id}?locale=de`, { email: "nope" })
      expect(german.status).toBe(400)
      expect(await german.text()).toContain("Geben Sie eine E-Mail-Adresse")
    })

    it("a form that does not exist, or an id that is not one, is a page that says so", async () => {
      const server = servers[wireForm]
      for (const id of [nothing, "not-an-id"]) {
        const shown = await fetch(`${server.baseUrl}/f/${id}`)
        expect(shown.status).toBe(404)
        expect(shown.headers.get("content-type")).toMatch(/^text\/html/)
        expect(await shown.text()).toContain("This form does not exist")
        const posted = await post(server, `/f/${id}`, { email: freshEmail() })
        expect(posted.status).toBe(404)
        expect(await posted.text()).toContain("This form does not exist")
      }
    })

    it("a forged, missing or expired confirmation link is a page that says so, and confirms nothing", async () => {
      const server = servers[wireForm]
      const { form, organization } = await formOf(server)
      const email = freshEmail()
      await signUp(server, form.id, email)
      await sendDue(server)
      const token = confirmationToken(server, email)
      const [header, payload, signature] = token.split(".")
      const forged = `${header}.${payload}.${signature!.slice(0, -2)}${signature!.endsWith("AA") ? "BB" : "AA"}`
      for (const query of [`?token=${encodeURIComponent(forged)}`, "?token=broken", ""]) {
        for (const method of ["GET", "POST"]) {
          const answer = await fetch(`${server.baseUrl}/f/confirm${query}`, { method })
          expect(answer.status).toBe(401)
          expect(answer.headers.get("content-type")).toMatch(/^text\/html/)
          expect(await answer.text()).toContain("This link does not work")
        }
      }
      server.advanceClock("8 days")
      expect((await post(server, `/f/confirm?token=${encodeURIComponent(token)}`, {})).status).toBe(401)
      expect(await subscriberOf(server, organization.id, email)).toBeUndefined()
    })
  })
}

describe("sign-up pages", () => {
  it("a confirmation goes to the form's confirmed URL when it has one", async () => {
    const server = servers.reference
    const { form } = await formOf(server, { confirmed_url: "https://example.com/welcome" })
    const email = freshEmail()
    await signUp(server, form.id, email)
    await sendDue(server)
    const answer = await post(server, `/f/confirm?token=${encodeURIComponent(confirmationToken(server, email))}`, {})
    expect(answer.status).toBe(303)
    expect(answer.headers.get("location")).toBe("https://example.com/welcome")
  })

  it("the confirmation page and its answer speak German to a German reader", async () => {
    const server = servers.reference
    const { form } = await formOf(server)
    const email = freshEmail()
    await signUp(server, form.id, email)
    await sendDue(server)
    const token = encodeURIComponent(confirmationToken(server, email))
    const german = { "accept-language": "de" }
    expect(await fetch(`${server.baseUrl}/f/confirm?token=${token}`, { headers: german }).then((r) => r.text()))
      .toContain("Bestätigen Sie Ihr Abonnement")
    expect(await post(server, `/f/confirm?token=${token}`, {}, german).then((r) => r.text())).toContain("Ihr Abonnement ist bestätigt")
  })

  it("a full list is a polite page (402), and the sign-up waits", async () => {
    const server = servers.reference
    const seeded = await fullFreeOrganization(server)
    const tag = await createTag(server, seeded.key)
    const made = await call(server, "POST", "/api/v1/forms", { key: seeded.key, json: { name: "Full", tags: [tag.id] } })
    const instant = await call(server, "POST", "/api/v1/forms", {
      key: seeded.key,
      json: { name: "Full at once", double_opt_in: false }
    })
    const email = freshEmail()
    expect((await signUp(server, made.body.id, email)).status).toBe(200)
    await sendDue(server)
    const token = encodeURIComponent(confirmationToken(server, email))
    const answer = await post(server, `/f/confirm?token=${token}`, {})
    expect(answer.status).toBe(402)
    expect(await answer.text()).toContain("This list is full")
    const direct = await signUp(server, instant.body.id, freshEmail())
    expect(direct.status).toBe(402)
    expect(await direct.text()).toContain("This list is full")
    expect(await fetch(`${server.baseUrl}/f/confirm?token=${token}`).then((r) => r.text())).toContain("Confirm your subscription")
  })
})

describe("sign-up pages under the rate limit", () => {
  it("answer 429 rate_limited past the free plan's requests a minute from one client address, with Retry-After", async () => {
    const limited = await startHttpServer()
    try {
      const statuses: Array<number> = []
      for (let i = 0; i < 101; i++) statuses.push((await fetch(`${limited.baseUrl}/f/${nothing}`)).status)
      expect(statuses.slice(0, 100).every((status) => status === 404)).toBe(true)
      const refused = await fetch(`${limited.baseUrl}/f/${nothing}`, { method: "POST", body: "email=a%40example.com" })
      expect(refused.status).toBe(429)
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/)
      expect(statuses[100]).toBe(429)
    } finally {
      await limited.close()
    }
  })
})

describe("a full list tells the form's owner", () => {
  it("by a signed form.list_full webhook, once an hour per form however many readers it turns away", async () => {
    // The real rate limiter keeps the hour; webhooks may reach the test's receiver on 127.0.0.1.
    const server = await startHttpServer({ config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } })
    const receiver = await startReceiver()
    try {
      const { key } = await fullFreeOrganization(server)
      const hook = await call(server, "POST", "/api/v1/webhooks", { key, json: { url: receiver.url, events: ["form.list_full"] } })
      expect(hook.status, hook.text).toBe(201)
      const made = async (json: Record<string, unknown>) => (await call(server, "POST", "/api/v1/forms", { key, json })).body
      const instant = await made({ name: "Instant <letter>", double_opt_in: false })
      const confirmed = await made({ name: "Confirmed letter" })
      const delivered = async () => {
        await server.run(Effect.gen(function*() {
          const dispatch = yield* WebhookDispatch
          while ((yield* dispatch.fanOut(200)).events > 0) {
            // until every recorded event is taken
          }
          yield* dispatch.deliverDue(200, 30_000)
        }))
        return receiver.received.map((got) =>
          JSON.parse(got.body) as { readonly type: string; readonly data: { readonly form: { readonly id: string } } }
        )
      }

      // Two readers turned away at once, one at confirmation.
      expect((await signUp(server, instant.id, freshEmail())).status).toBe(402)
      expect((await signUp(server, instant.id, freshEmail())).status).toBe(402)
      const email = freshEmail()
      expect((await signUp(server, confirmed.id, email)).status).toBe(200)
      await sendDue(server)
      expect((await post(server, `/f/confirm?token=${encodeURIComponent(confirmationToken(server, email))}`, {})).status).toBe(402)
      const first = await delivered()
      expect(first.map((event) => event.type)).toEqual(["form.list_full", "form.list_full"])
      // Signed as every webhook is (checked before the clock moves: the check refuses a timestamp from the future).
      for (const got of receiver.received) expect(() => new Webhook(hook.body.signing_secret).verify(got.body, got.headers)).not.toThrow()
      expect(first.find((event) => event.data.form.id === instant.id)?.data).toEqual({
        form: { id: instant.id, name: "Instant <letter>" },
        tier: "free",
        max_subscribers: 1000
      })
      expect(first.some((event) => event.data.form.id === confirmed.id)).toBe(true)

      // Within the hour, more readers turned away say nothing new; after it, the next one does.
      server.advanceClock("30 minutes")
      expect((await signUp(server, instant.id, freshEmail())).status).toBe(402)
      expect(await delivered()).toHaveLength(2)
      server.advanceClock("31 minutes")
      expect((await signUp(server, instant.id, freshEmail())).status).toBe(402)
      const later = await delivered()
      expect(later).toHaveLength(3)
      expect(later[2]!.data.form.id).toBe(instant.id)
    } finally {
      await Promise.all([server.close(), receiver.close()])
    }
  })
})
