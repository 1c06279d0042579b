/**
 * The rate limits of `/api/v1` over the real server with the in-process limiter: every answer
 * tells the budget, an organization gets its plan's requests per minute, callers without a valid
 * credential are counted per client address, and a request past the limit is refused without
 * being carried out until the window has passed (the server's clock is moved, not waited for).
 */
import { Clock } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Answer, call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { expectProblem, freshEmail } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer()
})
afterAll(() => server.close())

const WINDOW_MS = 60_000
const FREE_RATE = 100
const PRO_RATE = 1000
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

/** The server's time in Unix seconds (its clock is moved by the tests). */
const serverNowSeconds = async () => Math.floor((await server.run(Clock.currentTimeMillis)) / 1000)

interface Budget {
  readonly limit: number
  readonly remaining: number
  readonly reset: number
}

/** The rate-limit headers of an answer, each an integer. */
const budgetOf = (answer: Answer): Budget => {
  const read = (name: string) => {
    const value = answer.headers.get(name)
    expect(value, `${name} of ${answer.status} ${answer.text}`).toMatch(/^\d+$/)
    return Number(value)
  }
  return { limit: read("x-ratelimit-limit"), remaining: read("x-ratelimit-remaining"), reset: read("x-ratelimit-reset") }
}

/** The reset lies in the window that started at most a minute ago. */
const expectResetWithinAMinute = async (budget: Budget) => {
  const now = await serverNowSeconds()
  expect(budget.reset).toBeGreaterThanOrEqual(now)
  expect(budget.reset).toBeLessThanOrEqual(now + WINDOW_MS / 1000 + 1)
}

/** Sends `count` requests one after the other and answers the last. */
const sendInTurn = async (count: number, send: () => Promise<Answer>): Promise<Answer> => {
  let last: Answer | undefined
  for (let i = 0; i < count; i++) last = await send()
  return last!
}

/** Lets every window that is running now pass. */
const letTheWindowPass = () => server.advanceClock(WINDOW_MS + 1_000)

describe("the rate-limit headers of /api/v1", () => {
  it("come with a success: the free plan's limit, what is left and when the window ends in Unix seconds", async () => {
    const { key } = await server.seedOrganization()
    const first = await call(server, "GET", "/api/v1/subscribers", { key })
    expect(first.status).toBe(200)
    const budget = budgetOf(first)
    expect(budget).toMatchObject({ limit: FREE_RATE, remaining: FREE_RATE - 1 })
    await expectResetWithinAMinute(budget)

    const second = await call(server, "GET", "/api/v1/tags", { key })
    expect(budgetOf(second)).toEqual({ limit: FREE_RATE, remaining: FREE_RATE - 2, reset: budget.reset })
  })

  it("come with every error of an organization's request, each one counted", async () => {
    const { key } = await server.seedOrganization()
    const email = freshEmail()
    const answers = [
      await call(server, "GET", `/api/v1/subscribers/${nothing}`, { key }),
      await call(server, "POST", "/api/v1/subscribers", { key, json: { email: "not an address" } }),
      await call(server, "POST", "/api/v1/subscribers", { key, json: { email } }),
      await call(server, "POST", "/api/v1/subscribers", { key, json: { email } }),
      await call(server, "GET", "/api/v1/subscribers?limit=0", { key }),
      await call(server, "GET", "/api/v1/no-such-thing", { key }),
      await call(server, "PATCH", "/api/v1/subscribers", { key, json: {} }),
      await call(server, "POST", "/api/v1/subscribers", { key, body: "email=a", headers: { "content-type": "text/plain" } })
    ]
    expect(answers.map((a) => a.status)).toEqual([404, 400, 201, 409, 400, 404, 405, 415])
    expect(answers.map((a) => budgetOf(a).remaining)).toEqual([99, 98, 97, 96, 95, 94, 93, 92])
    for (const answer of answers) expect(budgetOf(answer).limit).toBe(FREE_RATE)
  })

  it("come with a 401, counted against the client address at the free plan's rate", async () => {
    const first = await call(server, "GET", "/api/v1/subscribers")
    expectProblem(first, "unauthorized", "/api/v1/subscribers")
    const budget = budgetOf(first)
    expect(budget.limit).toBe(FREE_RATE)
    await expectResetWithinAMinute(budget)

    const second = await call(server, "GET", "/api/v1/subscribers", { key: "not-a-key" })
    expectProblem(second, "unauthorized", "/api/v1/subscribers")
    expect(budgetOf(second).remaining).toBe(budget.remaining - 1)
  })

  it("come with a session's answers, counted against the organization it acts for", async () => {
    const { key, organization } = await server.seedOrganization()
    const user = await server.signIn()
    await server.addMember(organization.id, user, "owner")

    const byKey = await call(server, "GET", "/api/v1/subscribers", { key })
    const bySession = await call(server, "GET", "/api/v1/subscribers", { headers: user.headers(organization.id) })
    expect(bySession.status).toBe(200)
    expect(budgetOf(byKey).remaining).toBe(FREE_RATE - 1)
    expect(budgetOf(bySession).remaining).toBe(FREE_RATE - 2)
  })

  it("are not on probes, docs, error pages or sign-in, which are not limited by them", async () => {
    const answers = [
      await call(server, "GET", "/health"),
      await call(server, "GET", "/ready"),
      await call(server, "GET", "/openapi.json"),
      await call(server, "GET", "/errors/rate_limited", { headers: { accept: "application/json" } }),
      await call(server, "GET", "/auth/organizations")
    ]
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 401])
    for (const answer of answers) {
      expect(answer.headers.get("x-ratelimit-limit"), answer.text).toBeNull()
      expect(answer.headers.get("x-ratelimit-remaining")).toBeNull()
      expect(answer.headers.get("x-ratelimit-reset")).toBeNull()
    }
  })
})

describe("the requests per minute of a plan", () => {
  it("are 1000 for a pro organization", async () => {
    const { key } = await server.seedOrganization({ tier: "pro" })
    const answer = await call(server, "GET", "/api/v1/subscribers", { key })
    expect(answer.status).toBe(200)
    expect(budgetOf(answer)).toMatchObject({ limit: PRO_RATE, remaining: PRO_RATE - 1 })
  })

  it("are 100 for a free organization: the 101st request answers 429 rate_limited with Retry-After and is not carried out", async () => {
    const { key } = await server.seedOrganization({ tier: "free" })
    const hundredth = await sendInTurn(FREE_RATE, () => call(server, "GET", "/api/v1/subscribers", { key }))
    expect(hundredth.status).toBe(200)
    expect(budgetOf(hundredth)).toMatchObject({ limit: FREE_RATE, remaining: 0 })

    const email = freshEmail()
    const refused = await call(server, "POST", "/api/v1/subscribers", { key, json: { email } })
    expectProblem(refused, "rate_limited", "/api/v1/subscribers")
    const budget = budgetOf(refused)
    expect(budget).toEqual({ limit: FREE_RATE, remaining: 0, reset: budgetOf(hundredth).reset })
    const retryAfter = Number(refused.headers.get("retry-after"))
    expect(Number.isInteger(retryAfter)).toBe(true)
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000)
    expect(refused.body.detail).toContain(`${retryAfter} seconds`)

    // Every kind of request is refused alike, and other organizations are not touched.
    expectProblem(await call(server, "GET", `/api/v1/subscribers/${nothing}`, { key }), "rate_limited", `/api/v1/subscribers/${nothing}`)
    const other = await server.seedOrganization()
    expect((await call(server, "GET", "/api/v1/subscribers", { key: other.key })).status).toBe(200)

    letTheWindowPass()
    const lookup = await call(server, "GET", `/api/v1/subscribers/by-email/${encodeURIComponent(email)}`, { key })
    expectProblem(lookup, "not_found", `/api/v1/subscribers/by-email/${encodeURIComponent(email)}`)
  })

  it("are 10,000 for an enterprise organization, or its custom limit", async () => {
    const plain = await server.seedOrganization({ tier: "enterprise" })
    expect(budgetOf(await call(server, "GET", "/api/v1/tags", { key: plain.key }))).toMatchObject({ limit: 10_000 })

    const { key } = await server.seedOrganization({ tier: "enterprise", customRateLimit: 3 })
    const third = await sendInTurn(3, () => call(server, "GET", "/api/v1/tags", { key }))
    expect(budgetOf(third)).toMatchObject({ limit: 3, remaining: 0 })
    const refused = await call(server, "GET", "/api/v1/tags", { key })
    expectProblem(refused, "rate_limited", "/api/v1/tags")
    expect(refused.body.detail).toContain("limit of 3 requests")
  })

  it("are not counted for an enterprise organization with a custom limit of 0, whose answers tell no budget", async () => {
    const { key } = await server.seedOrganization({ tier: "enterprise", customRateLimit: 0 })
    const last = await sendInTurn(FREE_RATE + 5, () => call(server, "GET", "/api/v1/tags", { key }))
    expect(last.status).toBe(200)
    expect(last.headers.get("x-ratelimit-limit")).toBeNull()
    expect(last.headers.get("x-ratelimit-remaining")).toBeNull()
  })

  it("follow a platform admin's change of the custom limit on the next request", async () => {
    const admin = await server.seedOrganization({ isPlatformAdmin: true, tier: "enterprise", customRateLimit: 0 })
    const target = await server.seedOrganization({ tier: "enterprise" })
    const path = `/api/v1/admin/organizations/${target.organization.id}`
    const changed = await call(server, "PATCH", path, { key: admin.key, json: { custom_rate_limit: 2 } })
    expect(changed.status, changed.text).toBe(200)
    expect(changed.body).toMatchObject({ custom_rate_limit: 2, rate_limit_per_minute: 2 })
    await sendInTurn(2, () => call(server, "GET", "/api/v1/tags", { key: target.key }))
    expect((await call(server, "GET", "/api/v1/tags", { key: target.key })).status).toBe(429)

    const lifted = await call(server, "PATCH", path, { key: admin.key, json: { custom_rate_limit: 0 } })
    expect(lifted.body).toMatchObject({ custom_rate_limit: 0, rate_limit_per_minute: null })
    expect((await call(server, "GET", "/api/v1/tags", { key: target.key })).status).toBe(200)
  })

  it("start again in the next window", async () => {
    const { key } = await server.seedOrganization()
    await sendInTurn(FREE_RATE, () => call(server, "GET", "/api/v1/tags", { key }))
    const refused = await call(server, "GET", "/api/v1/tags", { key })
    expect(refused.status).toBe(429)

    server.advanceClock(Number(refused.headers.get("retry-after")) * 1000)
    const allowed = await call(server, "GET", "/api/v1/tags", { key })
    expect(allowed.status).toBe(200)
    const budget = budgetOf(allowed)
    expect(budget).toMatchObject({ limit: FREE_RATE, remaining: FREE_RATE - 1 })
    expect(budget.reset).toBeGreaterThan(budgetOf(refused).reset)
    await expectResetWithinAMinute(budget)
  })
})

describe("requests without a valid credential", () => {
  it("past the client address's limit answer 429 with Retry-After and the headers, until the window has passed", async () => {
    letTheWindowPass()
    const last = await sendInTurn(FREE_RATE, () => call(server, "GET", "/api/v1/subscribers", { key: "not-a-key" }))
    expect(last.status).toBe(401)
    expect(budgetOf(last).remaining).toBe(0)

    const refused = await call(server, "POST", "/api/v1/tags", { json: { name: "Weekly" } })
    expectProblem(refused, "rate_limited", "/api/v1/tags")
    expect(budgetOf(refused)).toMatchObject({ limit: FREE_RATE, remaining: 0 })
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)

    // An organization's key is counted against the organization, not the address.
    const { key } = await server.seedOrganization()
    expect((await call(server, "GET", "/api/v1/tags", { key })).status).toBe(200)
    // Sign-in is not limited by the API's budget.
    expect((await call(server, "POST", "/auth/magic-link", { json: { email: freshEmail() } })).status).toBe(200)

    letTheWindowPass()
    const again = await call(server, "GET", "/api/v1/subscribers")
    expect(again.status).toBe(401)
    expect(budgetOf(again).remaining).toBe(FREE_RATE - 1)
  })
})
