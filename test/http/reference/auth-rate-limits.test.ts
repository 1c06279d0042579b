/**
 * Sign-in links are limited per email address and per client address (the connection's own
 * address; forwarding headers are the client's to write and never trusted). Each test gets a
 * server of its own, so that counts start at zero.
 */
import { MAGIC_LINK_REQUEST_LIMITS } from "@roster/domain"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type Answer, call, freshAddress, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { expectProblem } from "../helpers.js"

let server: TestHttpServer
beforeEach(async () => {
  server = await startHttpServer()
})
afterEach(() => server.close())

const path = "/auth/magic-link"
const perEmail = MAGIC_LINK_REQUEST_LIMITS.perEmail.requests
const perIp = MAGIC_LINK_REQUEST_LIMITS.perIp.requests
const windowSeconds = MAGIC_LINK_REQUEST_LIMITS.perIp.windowMs / 1000

const ask = (email: string, headers: Record<string, string> = {}) => call(server, "POST", path, { json: { email }, headers })

const expectLimited = (answer: Answer) => {
  expectProblem(answer, "rate_limited", path)
  const retryAfter = Number(answer.headers.get("retry-after"))
  expect(Number.isInteger(retryAfter)).toBe(true)
  expect(retryAfter).toBeGreaterThan(0)
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds)
  expect(answer.body.detail).toContain(`${retryAfter} seconds`)
}

describe("per email address", () => {
  it(`answers 429 rate_limited with Retry-After after ${perEmail} links to one address, and sends no more`, async () => {
    const email = freshAddress()
    for (let i = 0; i < perEmail; i++) expect((await ask(email)).status).toBe(200)
    await server.signInTokenFor(email, perEmail - 1)
    expectLimited(await ask(email))
    expectLimited(await ask(email.toUpperCase()))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(server.emailCount(email)).toBe(perEmail)
    expect((await ask(freshAddress())).status).toBe(200)
  })

  it("lets the address ask again once the window has passed", async () => {
    const email = freshAddress()
    for (let i = 0; i < perEmail; i++) await ask(email)
    expectLimited(await ask(email))
    server.advanceClock(MAGIC_LINK_REQUEST_LIMITS.perEmail.windowMs)
    expect((await ask(email)).status).toBe(200)
  })
})

describe("per client address", () => {
  it(`answers 429 after ${perIp} links from one connection address, whatever forwarding headers claim`, async () => {
    for (let i = 0; i < perIp; i++) {
      const answer = await ask(freshAddress(), { "x-forwarded-for": `203.0.113.${i}`, "x-real-ip": `198.51.100.${i}` })
      expect(answer.status, answer.text).toBe(200)
    }
    expectLimited(await ask(freshAddress(), { "x-forwarded-for": "192.0.2.1", forwarded: "for=192.0.2.1" }))
    expectLimited(await ask(freshAddress()))
  })
})
