/**
 * A form's address as other sites reach it, over the real server in both wire forms: JSON from a
 * script on one of the form's allowed origins (CORS preflight and answers, refusals in the form's
 * error body), the form a site embeds (a form post without the hosted page's stamp), posts from
 * sites the form does not allow, the body limit, and the rate limits per client address and per
 * form, the client addresses told apart by connecting from several loopback addresses.
 */
import { SignUps, SubscriberRepository } from "@roster/application"
import { EmailAddress, OrganizationId } from "@roster/domain"
import { Effect, Option } from "effect"
import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Answer, call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../support/http-server.js"
import { freshEmail, fullFreeOrganization } from "./helpers.js"

const wireForms = ["reference", "overview"] as const
type WireForm = (typeof wireForms)[number]
const servers = {} as Record<WireForm, TestHttpServer>
beforeAll(async () => {
  for (const form of wireForms) servers[form] = await startHttpServer({ form, adapters: UnlimitedRateLimiterLive })
})
afterAll(() => Promise.all(wireForms.map((form) => servers[form].close())))

const site = "https://news.example.com"
const stranger = "https://evil.example"
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

/** A form of a fresh organization allowing `site`, made through the API of `wireForm`. */
const formOf = async (server: TestHttpServer, json: Record<string, unknown> = {}) => {
  const seeded = await server.seedOrganization()
  const api = server === servers.overview ? "/v1" : "/api/v1"
  const answer = await call(server, "POST", `${api}/forms`, {
    key: seeded.key,
    json: { name: "Weekly", allowed_origins: [site], ...json }
  })
  expect(answer.status, answer.text).toBe(201)
  const form = (answer.body.data ?? answer.body) as { id: string }
  return { ...seeded, api, form }
}

/** A script's JSON sign-up, from `origin` unless `null` says none. */
const postJson = (server: TestHttpServer, formId: string, json: unknown, origin: string | null = site, headers: Record<string, string> = {}) =>
  call(server, "POST", `/f/${formId}`, {
    headers: { ...(origin === null ? {} : { origin }), "content-type": "application/json", ...headers },
    body: typeof json === "string" ? json : JSON.stringify(json)
  })

const postForm = (server: TestHttpServer, formId: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${server.baseUrl}/f/${formId}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString()
  })

/** Sends every confirmation email due (the worker's part); then how many went to each of `emails`. */
const mailedAfterSending = async (server: TestHttpServer, ...emails: ReadonlyArray<string>) => {
  await server.run(Effect.flatMap(SignUps, (signUps) => signUps.sendDueConfirmations(1000)))
  return emails.map((email) => server.emailCount(email))
}

const subscriberOf = (server: TestHttpServer, organizationId: string, email: string) =>
  server.run(Effect.flatMap(SubscriberRepository, (subscribers) =>
    subscribers.findByEmail(OrganizationId.make(organizationId), EmailAddress.make(email)))).then(Option.getOrUndefined)

/** The error an answer carries, in either form's body: its code, text and the fields it names. */
const errorOf = (wireForm: WireForm, answer: Answer) => {
  if (wireForm === "overview") {
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
    const { code, details, message } = answer.body.error
    return { code, text: message as string, fields: (details as Array<{ field: string }>).map((d) => d.field) }
  }
  expect(answer.headers.get("content-type")).toMatch(/^application\/problem\+json/)
  const code = String(answer.body.type).split("/").at(-1)
  return { code, text: answer.body.detail as string, fields: ((answer.body.errors ?? []) as Array<{ field: string }>).map((e) => e.field) }
}

const expectCorsFor = (answer: { headers: Headers }, origin: string) => {
  expect(answer.headers.get("access-control-allow-origin")).toBe(origin)
  expect(answer.headers.get("access-control-allow-credentials")).toBeNull()
  expect(answer.headers.get("vary")).toMatch(/(^|,\s*)Origin(\s*,|$)/)
}

const expectNoCors = (answer: { headers: Headers }) => {
  expect(answer.headers.get("access-control-allow-origin")).toBeNull()
  expect(answer.headers.get("vary")).toMatch(/(^|,\s*)Origin(\s*,|$)/)
}

for (const wireForm of wireForms) {
  describe(`a script's sign-up, ${wireForm} form`, () => {
    it("a preflight from an allowed origin is allowed POST with Content-Type; from any other origin it is refused, naming it", async () => {
      const server = servers[wireForm]
      const { form } = await formOf(server)
      const allowed = await fetch(`${server.baseUrl}/f/${form.id}`, {
        method: "OPTIONS",
        headers: { origin: site, "access-control-request-method": "POST", "access-control-request-headers": "content-type" }
      })
      expect(allowed.status).toBe(204)
      expectCorsFor(allowed, site)
      expect(allowed.headers.get("access-control-allow-methods")).toBe("POST")
      expect(allowed.headers.get("access-control-allow-headers")).toBe("Content-Type")
      expect(Number(allowed.headers.get("access-control-max-age"))).toBeGreaterThan(0)

      for (const origin of [stranger, "https://news.example.com.evil.example", "http://news.example.com"]) {
        const refused = await call(server, "OPTIONS", `/f/${form.id}`, { headers: { origin, "access-control-request-method": "POST" } })
        expect(refused.status).toBe(403)
        expectNoCors(refused)
        const error = errorOf(wireForm, refused)
        expect(error.code).toBe("forbidden")
        expect(error.text).toContain(origin)
      }
      const unknown = await call(server, "OPTIONS", `/f/${nothing}`, { headers: { origin: site } })
      expect(unknown.status).toBe(404)
      expect(errorOf(wireForm, unknown).code).toBe("not_found")
    })

    it("with double opt-in, JSON from an allowed origin answers 202 confirm_by_email, readable by the script, and the confirmed reader keeps their names", async () => {
      const server = servers[wireForm]
      const { form, organization } = await formOf(server)
      const email = freshEmail()
      const answer = await postJson(server, form.id, { email, first_name: " Ada ", last_name: "Lovelace", website: "" })
      expect(answer.status, answer.text).toBe(202)
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
      expect(answer.body).toEqual({ status: "confirm_by_email" })
      expectCorsFor(answer, site)
      expect(answer.headers.get("access-control-expose-headers")).toContain("Retry-After")
      expect(await mailedAfterSending(server, email)).toEqual([1])
      const mail = server.emails().filter((text) => text.includes(email)).at(-1) ?? ""
      const token = decodeURIComponent(/\/f\/confirm\?token=([^\s"<&]+)/.exec(mail)![1]!)
      expect((await fetch(`${server.baseUrl}/f/confirm?token=${encodeURIComponent(token)}`, { method: "POST" })).status).toBe(200)
      const subscriber = await subscriberOf(server, organization.id, email)
      expect(subscriber).toMatchObject({ status: "active", firstName: "Ada", lastName: "Lovelace" })

      // A known address is answered the same.
      const again = await postJson(server, form.id, { email })
      expect(again.status).toBe(202)
      expect(again.body).toEqual({ status: "confirm_by_email" })
    })

    it("without double opt-in, JSON answers 200 subscribed and the reader is subscribed at once", async () => {
      const server = servers[wireForm]
      const { form, organization } = await formOf(server, { double_opt_in: false })
      const email = freshEmail()
      const answer = await postJson(server, form.id, { email })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.body).toEqual({ status: "subscribed" })
      expect((await subscriberOf(server, organization.id, email))?.status).toBe("active")
    })

    it("JSON without an Origin (a program, not a browser) signs up, and its answer names no origin", async () => {
      const server = servers[wireForm]
      const { form } = await formOf(server, { allowed_origins: [] })
      const answer = await postJson(server, form.id, { email: freshEmail() }, null)
      expect(answer.status, answer.text).toBe(202)
      expectNoCors(answer)
    })

    it("JSON from an origin the form does not allow is refused 403 naming the origin, and does nothing", async () => {
      const server = servers[wireForm]
      const { form, organization } = await formOf(server, { double_opt_in: false })
      const email = freshEmail()
      const refused = await postJson(server, form.id, { email }, stranger)
      expect(refused.status).toBe(403)
      expectNoCors(refused)
      const error = errorOf(wireForm, refused)
      expect(error.code).toBe("forbidden")
      expect(error.text).toContain(stranger)
      expect(error.text).toContain("allowed_origins")
      expect(await subscriberOf(server, organization.id, email)).toBeUndefined()
    })

    it("bad JSON is a 400 naming the field, unknown fields included, and the script can read it", async () => {
      const server = servers[wireForm]
      const { form } = await formOf(server)
      const email = freshEmail()
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ email: "not-an-address" }, "email"],
        [{}, "email"],
        [{ email, colour: "red" }, "colour"],
        [{ email, organization_id: nothing }, "organization_id"],
        [{ email, first_name: "x".repeat(101) }, "first_name"],
        [{ email, website: 1 }, "website"],
        ["{\"email\":", "body"],
        ["[1, 2]", "body"]
      ]
      for (const [json, field] of cases) {
        const answer = await postJson(server, form.id, json)
        expect(answer.status, answer.text).toBe(400)
        expectCorsFor(answer, site)
        const error = errorOf(wireForm, answer)
        expect(error.code).toBe("validation_error")
        expect(error.fields, answer.text).toContain(field)
      }
      expect(await mailedAfterSending(server, email)).toEqual([0])
    })

    it("a filled trap field is answered as usual and does nothing", async () => {
      const server = servers[wireForm]
      const { form, organization } = await formOf(server, { double_opt_in: false })
      const email = freshEmail()
      const answer = await postJson(server, form.id, { email, website: "https://spam.example" })
      expect(answer.status).toBe(200)
      expect(answer.body).toEqual({ status: "subscribed" })
      expect(await subscriberOf(server, organization.id, email)).toBeUndefined()
    })

    it("an unknown form is a 404, a full list a 402, both in the error body", async () => {
      const server = servers[wireForm]
      for (const id of [nothing, "not-an-id"]) {
        const answer = await postJson(server, id, { email: freshEmail() })
        expect(answer.status).toBe(404)
        expect(errorOf(wireForm, answer).code).toBe("not_found")
      }
      const seeded = await fullFreeOrganization(server)
      const api = wireForm === "overview" ? "/v1" : "/api/v1"
      const made = await call(server, "POST", `${api}/forms`, {
        key: seeded.key,
        json: { name: "Full at once", double_opt_in: false, allowed_origins: [site] }
      })
      const full = await postJson(server, (made.body.data ?? made.body).id, { email: freshEmail() })
      expect(full.status).toBe(402)
      expectCorsFor(full, site)
      const error = errorOf(wireForm, full)
      expect(error.code).toBe("limit_exceeded")
      // The reader is told the list is full, not the organization's plan.
      expect(error.text).not.toMatch(/free|plan/i)
    })

    it("a body over 16 KiB is a 413, said length or not", async () => {
      const server = servers[wireForm]
      const { form } = await formOf(server)
      const email = freshEmail()
      const big = JSON.stringify({ email, website: "x".repeat(17 * 1024) })
      const answer = await postJson(server, form.id, big)
      expect(answer.status).toBe(413)
      expectCorsFor(answer, site)
      expect(errorOf(wireForm, answer).code).toBe("payload_too_large")
      const posted = await postForm(server, form.id, { email, website: "x".repeat(17 * 1024) }, { origin: site })
      expect(posted.status).toBe(413)
      await posted.text()
      const chunked = await sendRaw(server, { method: "POST", path: `/f/${form.id}`, headers: { "content-type": "application/json" }, body: big, chunked: true })
      expect(chunked.status).toBe(413)
      expect(await mailedAfterSending(server, email)).toEqual([0])
    })
  })

  describe(`a form embedded on another site, ${wireForm} form`, () => {
    it("posts from an allowed origin without the hosted page's stamp and is answered with the service's page", async () => {
      const server = servers[wireForm]
      const { form } = await formOf(server)
      const email = freshEmail()
      const answer = await postForm(server, form.id, { email, website: "" }, { origin: site })
      expect(answer.status).toBe(200)
      expect(await answer.text()).toContain("Check your inbox")
      // Its trap works as the hosted page's does.
      const robot = freshEmail()
      const trapped = await postForm(server, form.id, { email: robot, website: "filled" }, { origin: site })
      expect(trapped.status).toBe(200)
      expect(await trapped.text()).toContain("Check your inbox")
      expect(await mailedAfterSending(server, email, robot)).toEqual([1, 0])
    })

    it("a post from a site the form does not allow gets a page that says so and links to the form's own page", async () => {
      const server = servers[wireForm]
      const { form, organization } = await formOf(server, { double_opt_in: false })
      const email = freshEmail()
      const answer = await postForm(server, form.id, { email, website: "" }, { origin: stranger, "accept-language": "de" })
      expect(answer.status).toBe(403)
      expect(answer.headers.get("content-type")).toMatch(/^text\/html/)
      expectNoCors(answer)
      const page = await answer.text()
      expect(page).toContain("Dieses Formular kann von jener Website nicht gesendet werden")
      expect(page).toContain(`href="/f/${form.id}?locale=de"`)
      expect(await subscriberOf(server, organization.id, email)).toBeUndefined()
    })

    it("the hosted page's own post (Origin: null, as a page without referrer sends it) still needs the page's stamp", async () => {
      const server = servers[wireForm]
      const { form, organization } = await formOf(server, { double_opt_in: false })
      const email = freshEmail()
      const unstamped = await postForm(server, form.id, { email }, { origin: "null" })
      expect(unstamped.status).toBe(400)
      expect(await unstamped.text()).toContain("Please send the form again")
      const page = await fetch(`${server.baseUrl}/f/${form.id}`).then((r) => r.text())
      const shown = /name="shown" value="([^"]+)"/.exec(page)![1]!
      server.advanceClock("3 seconds")
      const stamped = await postForm(server, form.id, { email, shown }, { origin: "null" })
      expect(stamped.status).toBe(200)
      expect((await subscriberOf(server, organization.id, email))?.status).toBe("active")
    })
  })
}

/** One request over node:http, from `from` (a loopback address) when given: the server sees it as that client. */
const sendRaw = (
  server: TestHttpServer,
  options: {
    readonly method: string
    readonly path: string
    readonly headers?: Record<string, string>
    readonly body?: string
    readonly from?: string
    readonly chunked?: boolean
  }
) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const { port } = new URL(server.baseUrl)
    const body = options.body === undefined ? undefined : Buffer.from(options.body)
    const request = http.request({
      host: "127.0.0.1",
      port: Number(port),
      method: options.method,
      path: options.path,
      localAddress: options.from,
      agent: false,
      headers: {
        ...options.headers,
        ...(body === undefined || options.chunked === true ? {} : { "content-length": String(body.length) })
      }
    }, (response) => {
      let text = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (text += chunk))
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, text }))
    })
    request.on("error", reject)
    if (body !== undefined && options.chunked === true) {
      // Sent in pieces without a length: the limit is found while reading.
      for (let at = 0; at < body.length; at += 4096) request.write(body.subarray(at, at + 4096))
      request.end()
    } else {
      request.end(body)
    }
  })

const signUpFrom = (server: TestHttpServer, formId: string, from: string, origin: string = site) =>
  sendRaw(server, {
    method: "POST",
    path: `/f/${formId}`,
    from,
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ email: freshEmail() })
  })

describe("sign-ups under the rate limits", () => {
  let limited: TestHttpServer
  beforeAll(async () => {
    // The real limiter (in process), with five sign-ups a minute per form.
    limited = await startHttpServer({ config: { SIGN_UP_RATE_PER_FORM: "5" } })
  })
  afterAll(() => limited.close())

  const limitedForm = async () => {
    const { key } = await limited.seedOrganization()
    const answer = await call(limited, "POST", "/api/v1/forms", { key, json: { name: "Limited", allowed_origins: [site] } })
    expect(answer.status, answer.text).toBe(201)
    return answer.body.id as string
  }

  it("a flood spread over many client addresses stops at the form's sign-ups a minute, for that form only, until the minute is over", async () => {
    const formId = await limitedForm()
    const other = await limitedForm()
    const statuses: Array<number> = []
    for (let i = 0; i < 5; i++) statuses.push((await signUpFrom(limited, formId, `127.0.1.${i + 1}`)).status)
    expect(statuses).toEqual([202, 202, 202, 202, 202])
    const refused = await signUpFrom(limited, formId, "127.0.1.6")
    expect(refused.status).toBe(429)
    expect(refused.headers["retry-after"]).toMatch(/^\d+$/)
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60)
    expect(refused.headers["x-ratelimit-limit"]).toBe("5")
    expect(refused.headers["x-ratelimit-remaining"]).toBe("0")
    // The script reads the refusal and when to try again.
    expect(refused.headers["access-control-allow-origin"]).toBe(site)
    expect(refused.headers["access-control-expose-headers"]).toContain("Retry-After")
    expect(JSON.parse(refused.text).detail).toContain("this form's sign-up limit of 5")
    // Another form, and the form's page, are not held back.
    expect((await signUpFrom(limited, other, "127.0.1.7")).status).toBe(202)
    expect((await sendRaw(limited, { method: "GET", path: `/f/${formId}`, from: "127.0.1.8" })).status).toBe(200)
    limited.advanceClock("61 seconds")
    expect((await signUpFrom(limited, formId, "127.0.1.9")).status).toBe(202)
  })

  it("a flood from one client address stops at that address's limit, and the form still takes other readers' sign-ups", async () => {
    const flooding = await startHttpServer()
    try {
      const { key } = await flooding.seedOrganization()
      const made = await call(flooding, "POST", "/api/v1/forms", { key, json: { name: "Flooded", allowed_origins: [site] } })
      const formId = made.body.id as string
      const statuses: Array<number> = []
      for (let i = 0; i < 101; i++) statuses.push((await signUpFrom(flooding, formId, "127.0.2.1")).status)
      expect(statuses.slice(0, 100).every((status) => status === 202)).toBe(true)
      expect(statuses[100]).toBe(429)
      const refused = await signUpFrom(flooding, formId, "127.0.2.1")
      expect(refused.status).toBe(429)
      expect(JSON.parse(refused.text).detail).toContain("this client address's limit of 100")
      expect((await signUpFrom(flooding, formId, "127.0.2.2")).status).toBe(202)
    } finally {
      await flooding.close()
    }
  })

  it("preflights count against the client address only, not against the form's sign-ups", async () => {
    const formId = await limitedForm()
    for (let i = 0; i < 10; i++) {
      expect((await sendRaw(limited, { method: "OPTIONS", path: `/f/${formId}`, from: "127.0.3.1", headers: { origin: site } })).status)
        .toBe(204)
    }
    expect((await signUpFrom(limited, formId, "127.0.3.1")).status).toBe(202)
  })
})
