/**
 * Signing in over HTTP: a magic link by email, the sign-in page it leads to, and the session
 * cookie that `GET /auth/verify` sets. Emails are read from the console mailer's output.
 */
import { createHash } from "node:crypto"
import { runInNewContext } from "node:vm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  call,
  freshAddress,
  startHttpServer,
  type TestHttpServer,
  UnlimitedRateLimiterLive
} from "../../support/http-server.js"
import { expectInvalid, expectProblem, uuidPattern } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  // Far more sign-ins than the limits per client address allow; those are tested in auth-rate-limits.
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

const verify = (token: string, headers: Record<string, string> = {}) =>
  call(server, "GET", `/auth/verify?token=${encodeURIComponent(token)}`, { headers })

describe("POST /auth/magic-link", () => {
  const path = "/auth/magic-link"

  it("answers 200 with the same body for a known and an unknown address, and emails each a link", async () => {
    const known = await server.signIn()
    const unknown = freshAddress("stranger")
    const forKnown = await call(server, "POST", path, { json: { email: known.email } })
    const forUnknown = await call(server, "POST", path, { json: { email: unknown } })
    expect(forKnown.status).toBe(200)
    expect(forUnknown.status).toBe(200)
    expect(forUnknown.headers.get("content-type")).toBe(forKnown.headers.get("content-type"))
    expect(forUnknown.text).toBe(forKnown.text)
    expect(forKnown.body).toEqual({ message: expect.stringContaining("15 minutes") })
    expect(await server.signInTokenFor(known.email, 1)).toEqual(expect.any(String))
    expect(await server.signInTokenFor(unknown)).toEqual(expect.any(String))
  })

  it("emails a link to the sign-in page, never to verify itself, with a fresh token each time", async () => {
    const email = freshAddress()
    const first = await server.requestSignInToken(email)
    const second = await server.requestSignInToken(email)
    expect(first).not.toBe(second)
    const sent = server.emails().filter((text) => text.includes(`To: ${email}`))
    expect(sent).toHaveLength(2)
    expect(sent[0]).toContain(`http://localhost:3000/auth/sign-in?token=${first}`)
    expect(sent[0]).not.toContain("/auth/verify")
    expect(sent[0]).toContain("Subject: Your sign-in link for Roster")
  })

  it("writes the email in German when asked for de", async () => {
    const email = freshAddress()
    await server.requestSignInToken(email, "de")
    const sent = server.emails().find((text) => text.includes(`To: ${email}`))
    expect(sent).toContain("Subject: Ihr Anmeldelink für Roster")
  })

  it("links under PUBLIC_BASE_URL, whatever Host the request names", async () => {
    const other = await startHttpServer({ config: { PUBLIC_BASE_URL: "https://news.example.com" } })
    try {
      const email = freshAddress()
      const answer = await call(other, "POST", path, { json: { email }, headers: { "x-forwarded-host": "evil.example" } })
      expect(answer.status).toBe(200)
      const token = await other.signInTokenFor(email)
      const sent = other.emails().find((text) => text.includes(`To: ${email}`))
      expect(sent).toContain(`https://news.example.com/auth/sign-in?token=${token}`)
      expect(sent).not.toContain("evil.example")
    } finally {
      await other.close()
    }
  })

  const refused: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string>]> = [
    ["an array of addresses", { email: ["a@example.com", "b@example.com"] }, ["email"]],
    ["a one-element array", { email: ["a@example.com"] }, ["email"]],
    ["a number", { email: 42 }, ["email"]],
    ["an object", { email: { address: "a@example.com" } }, ["email"]],
    ["no email", {}, ["email"]],
    ["an address that is not valid", { email: "not-an-address" }, ["email"]],
    ["a locale it does not speak", { email: "a@example.com", locale: "fr" }, ["locale"]],
    ["an unknown field", { email: "a@example.com", redirect_to: "https://evil.example" }, ["redirect_to"]]
  ]
  for (const [label, json, fields] of refused) {
    it(`answers 400 validation_error for ${label}, and emails no one`, async () => {
      const before = server.emails().length
      expectInvalid(await call(server, "POST", path, { json }), path, fields)
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(server.emails().length).toBe(before)
    })
  }

  it("answers 415 for a form post", async () => {
    const answer = await call(server, "POST", path, {
      body: "email=a%40example.com",
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expectProblem(answer, "unsupported_media_type", path)
  })
})

describe("GET /auth/verify", () => {
  const path = "/auth/verify"

  it("signs in a new user: 200 with the user and no organizations, and the session cookie", async () => {
    const email = freshAddress("Ada")
    const answer = await verify(await server.requestSignInToken(email))
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({
      user_id: expect.stringMatching(uuidPattern),
      email,
      has_organizations: false,
      organizations: []
    })
    expect(answer.headers.get("cache-control")).toBe("no-store")
    const cookies = answer.headers.getSetCookie()
    expect(cookies).toHaveLength(1)
    const [pair, ...attributes] = cookies[0]!.split("; ")
    expect(pair).toMatch(/^svc_session=[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(attributes.sort()).toEqual(["HttpOnly", "Max-Age=604800", "Path=/", "SameSite=Lax"])
  })

  it("marks the cookie Secure when NODE_ENV is production", async () => {
    const production = await startHttpServer({ config: { NODE_ENV: "production" } })
    try {
      const user = await production.signIn()
      expect(user.setCookie.split("; ")).toContain("Secure")
    } finally {
      await production.close()
    }
  })

  it("signs the same user in again, with their organizations and role", async () => {
    const first = await server.signIn()
    const organization = await server.createOrganizationAs(first)
    const again = await server.signIn(first.email)
    expect(again.userId).toBe(first.userId)
    expect(again.verified).toEqual({
      user_id: first.userId,
      email: first.email,
      has_organizations: true,
      organizations: [{ id: organization.id, name: organization.name, slug: organization.slug, role: "owner" }]
    })
    expect(again.sessionToken).not.toBe(first.sessionToken)
  })

  it("answers 401 magic_link_already_used the second time, setting no cookie", async () => {
    const token = await server.requestSignInToken(freshAddress())
    expect((await verify(token)).status).toBe(200)
    const again = await verify(token)
    expectProblem(again, "magic_link_already_used", path)
    expect(again.headers.getSetCookie()).toEqual([])
  })

  it("lets exactly one of 25 concurrent uses of a link sign in", async () => {
    const token = await server.requestSignInToken(freshAddress())
    const answers = await Promise.all(Array.from({ length: 25 }, () => verify(token)))
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 401)).toHaveLength(24)
    for (const answer of answers.filter((a) => a.status === 401)) {
      expectProblem(answer, "magic_link_already_used", path)
      expect(answer.headers.getSetCookie()).toEqual([])
    }
  })

  it("answers 401 magic_link_expired once 15 minutes have passed, and not a moment before", async () => {
    const early = await server.requestSignInToken(freshAddress())
    const late = await server.requestSignInToken(freshAddress())
    server.advanceClock("14 minutes")
    expect((await verify(early)).status).toBe(200)
    server.advanceClock("1 minute")
    const expired = await verify(late)
    expectProblem(expired, "magic_link_expired", path)
    expect(expired.headers.getSetCookie()).toEqual([])
  })

  it("answers 401 magic_link_already_used, not expired, for a used link past its 15 minutes", async () => {
    const token = await server.requestSignInToken(freshAddress())
    expect((await verify(token)).status).toBe(200)
    server.advanceClock("16 minutes")
    expectProblem(await verify(token), "magic_link_already_used", path)
  })

  const invalid: ReadonlyArray<readonly [string, string]> = [
    ["no token", path],
    ["an empty token", `${path}?token=`],
    ["a token of blanks", `${path}?token=%20%20`],
    ["a token never issued", `${path}?token=${"A".repeat(43)}`],
    ["a session token", `${path}?token=eyJhbGciOiJIUzI1NiJ9.e30.c2ln`]
  ]
  for (const [label, target] of invalid) {
    it(`answers 401 invalid_token for ${label}`, async () => {
      const answer = await call(server, "GET", target)
      expectProblem(answer, "invalid_token", path)
      expect(answer.headers.getSetCookie()).toEqual([])
    })
  }

  it("answers 401 invalid_token for an altered token, and the real one still works", async () => {
    const token = await server.requestSignInToken(freshAddress())
    const altered = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A")
    expectProblem(await verify(altered), "invalid_token", path)
    expect((await verify(token)).status).toBe(200)
  })
})

describe("GET /auth/sign-in", () => {
  const page = (query: string, headers: Record<string, string> = {}) =>
    call(server, "GET", `/auth/sign-in${query}`, { headers })

  const inline = (html: string, tag: "script" | "style") => {
    const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(html)
    expect(match, `an inline ${tag}`).not.toBeNull()
    return `'sha256-${createHash("sha256").update(match![1]!, "utf8").digest("base64")}'`
  }

  it("serves a self-contained page whose policy allows exactly its own script and style", async () => {
    const answer = await page("?token=abc")
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(answer.headers.get("referrer-policy")).toBe("no-referrer")
    expect(answer.headers.get("cache-control")).toBe("no-store")
    const policy = (answer.headers.get("content-security-policy") ?? "").split("; ")
    expect(policy).toEqual(expect.arrayContaining([
      "default-src 'none'",
      `script-src ${inline(answer.text, "script")}`,
      `style-src ${inline(answer.text, "style")}`,
      "connect-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'none'"
    ]))
    expect(policy.join(";")).not.toContain("unsafe")
    expect(answer.text).not.toMatch(/\s(src|href)=["']?(https?:)?\/\//i)
    expect(answer.text).not.toMatch(/\son[a-z]+=/i)
    expect(answer.text).toContain("fetch(\"/auth/verify?token=\"")
  })

  it("puts nothing of the address into the page", async () => {
    const answer = await page(`?token=${encodeURIComponent("\"><script>alert(1)</script>")}&locale=%3Cb%3E`)
    expect(answer.status).toBe(200)
    expect(answer.text).not.toContain("alert(1)")
    expect(answer.text).not.toContain("<b>")
  })

  it("uses nothing up: the link still signs in after the page was opened", async () => {
    const token = await server.requestSignInToken(freshAddress())
    expect((await page(`?token=${encodeURIComponent(token)}`)).status).toBe(200)
    expect((await page(`?token=${encodeURIComponent(token)}`)).status).toBe(200)
    expect((await verify(token)).status).toBe(200)
  })

  const languages: ReadonlyArray<readonly [string, string, Record<string, string>, "en" | "de"]> = [
    ["English by default", "", {}, "en"],
    ["German for Accept-Language de-DE", "", { "accept-language": "de-DE,de;q=0.9,en;q=0.8" }, "de"],
    ["the better of the languages asked for", "", { "accept-language": "fr;q=1, en;q=0.5, de;q=0.7" }, "de"],
    ["English when no language asked for is spoken", "", { "accept-language": "fr, es" }, "en"],
    ["?locale=en over Accept-Language", "?locale=en", { "accept-language": "de" }, "en"],
    ["?locale=de over Accept-Language", "?locale=de", { "accept-language": "en-US" }, "de"],
    ["Accept-Language when ?locale= names no language spoken", "?locale=fr", { "accept-language": "de" }, "de"]
  ]
  for (const [label, query, headers, locale] of languages) {
    it(`speaks ${label}`, async () => {
      const answer = await page(query === "" ? "?token=abc" : `${query}&token=abc`, headers)
      expect(answer.status).toBe(200)
      expect(answer.text).toContain(`<html lang="${locale}">`)
      expect(answer.text).toContain(locale === "de" ? "Bei Roster anmelden" : "Sign in to Roster")
    })
  }
})

/** An element of the page as its script sees it. */
interface PageElement {
  hidden: boolean
  disabled: boolean
  textContent: string
  readonly listeners: Map<string, () => void>
  addEventListener(type: string, listener: () => void): void
}

/**
 * Runs the page's own script as a browser would, against a small stand-in of the document: its
 * elements (hidden where the HTML says so) and `fetch` going to the real server.
 */
const openPage = async (query: string) => {
  const answer = await call(server, "GET", `/auth/sign-in${query}`)
  const script = /<script>([\s\S]*?)<\/script>/.exec(answer.text)![1]!
  const elements = new Map<string, PageElement>()
  for (const match of answer.text.matchAll(/<[a-z]+ id="([\w-]+)"([^>]*)>/g)) {
    const listeners = new Map<string, () => void>()
    elements.set(match[1]!, {
      hidden: /\shidden\b/.test(match[2]!),
      disabled: false,
      textContent: "",
      listeners,
      addEventListener: (type, listener) => void listeners.set(type, listener)
    })
  }
  const requests: Array<string> = []
  let pending: Promise<unknown> = Promise.resolve()
  const pageFetch = (url: string, init: { headers: Record<string, string> }) => {
    requests.push(url)
    const response = fetch(`${server.baseUrl}${url}`, { headers: init.headers })
    pending = response.then((r) => r.clone().text())
    return response
  }
  runInNewContext(script, {
    window: { location: { search: query } },
    document: { getElementById: (id: string) => elements.get(id) ?? null },
    URLSearchParams,
    encodeURIComponent,
    fetch: pageFetch
  })
  const shown = () => [...elements].filter(([id, e]) => !e.hidden && id !== "email").map(([id]) => id)
  const press = async () => {
    elements.get("sign-in")!.listeners.get("click")!()
    await pending
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return { elements, requests, shown, press }
}

describe("the sign-in page's button", () => {
  it("signs in through GET /auth/verify and shows who is signed in", async () => {
    const email = freshAddress()
    const token = await server.requestSignInToken(email)
    const page = await openPage(`?token=${encodeURIComponent(token)}`)
    expect(page.requests).toEqual([])
    expect(page.shown()).toEqual(["sign-in"])
    await page.press()
    expect(page.requests).toEqual([`/auth/verify?token=${encodeURIComponent(token)}`])
    expect(page.shown()).toEqual(["signed-in"])
    expect(page.elements.get("email")!.textContent).toBe(email)
    expectProblem(await verify(token), "magic_link_already_used", "/auth/verify")
  })

  it("tells a used link, an expired one and one that is not valid apart", async () => {
    const used = await server.requestSignInToken(freshAddress())
    await verify(used)
    const expired = await server.requestSignInToken(freshAddress())
    server.advanceClock("15 minutes")
    const cases: ReadonlyArray<readonly [string, string]> = [[used, "used"], [expired, "expired"], ["nonsense", "invalid"]]
    for (const [token, shown] of cases) {
      const page = await openPage(`?token=${encodeURIComponent(token)}`)
      await page.press()
      expect(page.shown(), token).toEqual([shown])
    }
  })

  it("says the link is incomplete, and offers no button, when it carries no token", async () => {
    const page = await openPage("")
    expect(page.shown()).toEqual(["missing"])
    expect(page.requests).toEqual([])
  })
})
