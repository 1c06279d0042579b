import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Option, Schema } from "effect"
import {
  activeSigningSecrets,
  hasFailedTooLong,
  judgeAttempt,
  MAX_RESPONSE_EXCERPT_LENGTH,
  MAX_DELIVERY_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  RETRY_DELAYS_MS,
  RETRY_JITTER,
  type SendResult,
  signingSecretFromBytes,
  WebhookEndpoint,
  WebhookEventTypes,
  WebhookUrl,
  withNewSigningSecret
} from "./webhook.js"

const at = new Date("2026-05-01T12:00:00.000Z")
const answered = (status: number, retryAfterMs?: number): Extract<SendResult, { _tag: "Answered" }> => ({
  _tag: "Answered",
  status,
  durationMs: 25,
  retryAfterMs: Option.fromNullable(retryAfterMs)
})

describe("judging an attempt", () => {
  it.each([200, 201, 204, 299])("%i succeeds and ends the delivery", (status) => {
    const verdict = judgeAttempt({ attempt: 1, at, result: answered(status), jitter: 0.5 })
    expect(verdict).toMatchObject({ deliveryStatus: "succeeded", nextAttemptAt: null, endpoint: "answered" })
    expect(verdict.attempt).toMatchObject({ number: 1, status: "succeeded", responseStatus: status, error: null })
  })

  it.each([
    [301, "answered 301; redirects are not followed"],
    [302, "answered 302; redirects are not followed"],
    [400, "answered 400"],
    [429, "answered 429 Too Many Requests"],
    [500, "answered 500"],
    [503, "answered 503"]
  ])("%i fails and is tried again (%s)", (status, error) => {
    const verdict = judgeAttempt({ attempt: 1, at, result: answered(status), jitter: 0.5 })
    expect(verdict).toMatchObject({ deliveryStatus: "pending", endpoint: "failed" })
    expect(verdict.attempt).toMatchObject({ status: "failed", responseStatus: status, error })
    expect(verdict.nextAttemptAt!.getTime() - at.getTime()).toBe(RETRY_DELAYS_MS[0])
  })

  it("410 ends the delivery and says the endpoint is gone", () => {
    const verdict = judgeAttempt({ attempt: 1, at, result: answered(410), jitter: 0.5 })
    expect(verdict).toMatchObject({ deliveryStatus: "failed", nextAttemptAt: null, endpoint: "gone" })
    expect(verdict.attempt.error).toContain("410")
  })

  it("no answer fails with what went wrong, and no response status", () => {
    const verdict = judgeAttempt({
      attempt: 3,
      at,
      result: { _tag: "NoAnswer", error: "timed out after 10 s", durationMs: 10_000 },
      jitter: 0.5
    })
    expect(verdict.attempt).toMatchObject({ number: 3, responseStatus: null, error: "timed out after 10 s", durationMs: 10_000 })
    expect(verdict.nextAttemptAt!.getTime() - at.getTime()).toBe(RETRY_DELAYS_MS[2])
  })

  it("follows the schedule, at once then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, and gives up after the eighth", () => {
    expect(RETRY_DELAYS_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000])
    expect(MAX_DELIVERY_ATTEMPTS).toBe(8)
    for (let attempt = 1; attempt < MAX_DELIVERY_ATTEMPTS; attempt++) {
      const verdict = judgeAttempt({ attempt, at, result: answered(500), jitter: 0.5 })
      expect(verdict.nextAttemptAt!.getTime() - at.getTime()).toBe(RETRY_DELAYS_MS[attempt - 1])
    }
    const last = judgeAttempt({ attempt: MAX_DELIVERY_ATTEMPTS, at, result: answered(500), jitter: 0.5 })
    expect(last).toMatchObject({ deliveryStatus: "failed", nextAttemptAt: null })
    expect(last.attempt.nextAttemptAt).toBeNull()
  })

  it("spreads each wait by the jitter, within its bounds", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 7 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, jitter) => {
      const verdict = judgeAttempt({ attempt, at, result: answered(502), jitter })
      const wait = verdict.nextAttemptAt!.getTime() - at.getTime()
      const base = RETRY_DELAYS_MS[attempt - 1]!
      return wait >= Math.floor(base * (1 - RETRY_JITTER)) && wait <= Math.ceil(base * (1 + RETRY_JITTER))
    }))
  })

  it("waits at least as long as a 429's Retry-After, up to a day", () => {
    const hour = judgeAttempt({ attempt: 1, at, result: answered(429, 3_600_000), jitter: 0 })
    expect(hour.nextAttemptAt!.getTime() - at.getTime()).toBe(3_600_000)
    const short = judgeAttempt({ attempt: 1, at, result: answered(429, 1_000), jitter: 0.5 })
    expect(short.nextAttemptAt!.getTime() - at.getTime()).toBe(RETRY_DELAYS_MS[0])
    const huge = judgeAttempt({ attempt: 1, at, result: answered(429, 90 * 86_400_000), jitter: 0.5 })
    expect(huge.nextAttemptAt!.getTime() - at.getTime()).toBe(MAX_RETRY_AFTER_MS)
    const notA429 = judgeAttempt({ attempt: 1, at, result: answered(503, 3_600_000), jitter: 0.5 })
    expect(notA429.nextAttemptAt!.getTime() - at.getTime()).toBe(RETRY_DELAYS_MS[0])
  })
})

describe("the answer's excerpt", () => {
  it("keeps the start of the answer's body, without NUL characters, and none without an answer", () => {
    const body = `{"error":"nope"}\u0000${"x".repeat(2 * MAX_RESPONSE_EXCERPT_LENGTH)}`
    const verdict = judgeAttempt({ attempt: 1, at, result: { ...answered(500), body }, jitter: 0.5 })
    expect(verdict.attempt.responseExcerpt).toBe(`{"error":"nope"}${"x".repeat(MAX_RESPONSE_EXCERPT_LENGTH - 16)}`)
    expect(judgeAttempt({ attempt: 1, at, result: answered(204), jitter: 0.5 }).attempt.responseExcerpt).toBeNull()
    const timedOut = judgeAttempt({ attempt: 1, at, result: { _tag: "NoAnswer", error: "timed out", durationMs: 10 }, jitter: 0.5 })
    expect(timedOut.attempt.responseExcerpt).toBeNull()
  })
})

describe("Retry-After", () => {
  it("reads seconds and HTTP dates, and nothing else", () => {
    expect(parseRetryAfter("120", at)).toEqual(Option.some(120_000))
    expect(parseRetryAfter(" 0 ", at)).toEqual(Option.some(0))
    expect(parseRetryAfter("Fri, 01 May 2026 12:01:00 GMT", at)).toEqual(Option.some(60_000))
    expect(parseRetryAfter("Fri, 01 May 2026 11:00:00 GMT", at)).toEqual(Option.some(0))
    expect(parseRetryAfter(undefined, at)).toEqual(Option.none())
    expect(parseRetryAfter("soon", at)).toEqual(Option.none())
    expect(parseRetryAfter("-5", at)).toEqual(Option.none())
    expect(parseRetryAfter("2026-05-01", at)).toEqual(Option.none())
  })
})

describe("an endpoint failing for days", () => {
  it("is disabled after five days without a success", () => {
    expect(hasFailedTooLong(at, new Date(at.getTime() + 5 * 86_400_000 - 1))).toBe(false)
    expect(hasFailedTooLong(at, new Date(at.getTime() + 5 * 86_400_000))).toBe(true)
  })
})

describe("signing secrets", () => {
  const endpoint = new WebhookEndpoint({
    id: "01936f4c-0000-7000-8000-000000000010" as WebhookEndpoint["id"],
    organizationId: "01936f4c-0000-7000-8000-000000000011" as WebhookEndpoint["organizationId"],
    url: "https://example.com/hook",
    events: ["subscriber.created"],
    description: null,
    status: "active",
    disabledReason: null,
    signingSecret: signingSecretFromBytes(new Uint8Array(32).fill(1)),
    previousSigningSecret: null,
    previousSigningSecretExpiresAt: null,
    failingSince: null,
    createdAt: at,
    updatedAt: at
  })

  it("are whsec_ and the base64 of their bytes", () => {
    expect(endpoint.signingSecret).toBe(`whsec_${Buffer.from(new Uint8Array(32).fill(1)).toString("base64")}`)
  })

  it("after a regeneration, both sign for 24 hours, then only the new one", () => {
    const next = withNewSigningSecret(endpoint, "whsec_new", at)
    expect(activeSigningSecrets(next, at)).toEqual(["whsec_new", endpoint.signingSecret])
    expect(activeSigningSecrets(next, new Date(at.getTime() + 86_400_000 - 1))).toEqual(["whsec_new", endpoint.signingSecret])
    expect(activeSigningSecrets(next, new Date(at.getTime() + 86_400_000))).toEqual(["whsec_new"])
    expect(activeSigningSecrets(endpoint, at)).toEqual([endpoint.signingSecret])
  })

  it("an endpoint hears its kinds of its organization's events while active", () => {
    expect(endpoint.hears({ organizationId: endpoint.organizationId, type: "subscriber.created" })).toBe(true)
    expect(endpoint.hears({ organizationId: endpoint.organizationId, type: "tag.subscribed" })).toBe(false)
    expect(endpoint.hears({ organizationId: endpoint.id as never, type: "subscriber.created" })).toBe(false)
    const paused = new WebhookEndpoint({ ...endpoint, status: "disabled", disabledReason: "by_user" })
    expect(paused.hears({ organizationId: endpoint.organizationId, type: "subscriber.created" })).toBe(false)
  })
})

describe("what an endpoint accepts", () => {
  const url = Schema.decodeUnknownEither(WebhookUrl)
  it.each(["https://example.com/hooks", "http://example.com:8080/a?b=c", "  https://example.com/x  "])("accepts %s", (s) => {
    expect(Either.isRight(url(s))).toBe(true)
  })
  it.each([
    ["", "must not be empty"],
    ["example.com/hook", "must be an absolute URL"],
    ["ftp://example.com/", "must use http or https"],
    ["javascript:alert(1)", "must use http or https"],
    ["https://example.com/#frag", "must not have a fragment"],
    [`https://example.com/${"a".repeat(2100)}`, "at most 2048"]
  ])("refuses case %# (%s)", (s, problem) => {
    const result = url(s)
    expect(Either.isLeft(result) && String(result.left)).toContain(problem)
  })

  it("event kinds: at least one, each once, known ones", () => {
    const events = Schema.decodeUnknownEither(WebhookEventTypes)
    expect(Either.isRight(events(["subscriber.created", "tag.subscribed"]))).toBe(true)
    expect(String(Either.getLeft(events([])))).toContain("at least one")
    expect(String(Either.getLeft(events(["tag.subscribed", "tag.subscribed"])))).toContain("twice")
    expect(Either.isLeft(events(["subscriber.exploded"]))).toBe(true)
  })
})
