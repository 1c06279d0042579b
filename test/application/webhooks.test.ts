import { describe, expect, it } from "@effect/vitest"
import { Subscribers, WebhookDispatch, Webhooks } from "@roster/application"
import { eventTypes, MAX_WEBHOOK_ENDPOINTS, type SendResult, TEST_EVENT_TYPE } from "@roster/domain"
import { Effect, Option, TestClock } from "effect"
import { email, keyFor, openOrganization, withReceiver } from "./test-kit.js"

const ok: SendResult = { _tag: "Answered", status: 200, durationMs: 40, retryAfterMs: Option.none() }
const url = "https://hooks.example.com/roster"

describe("registering an endpoint", () => {
  it.effect("gives it a whsec_ secret, every event kind unless told, and the active status", () =>
    withReceiver(() => ok).run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      const endpoint = yield* webhooks.create(principal, { url, description: "CRM sync" })
      expect(endpoint.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
      expect(endpoint).toMatchObject({ url, description: "CRM sync", status: "active", disabledReason: null })
      expect(endpoint.events).toEqual(eventTypes)
      const other = yield* webhooks.create(principal, { url, events: ["tag.subscribed"] })
      expect(other.events).toEqual(["tag.subscribed"])
      expect(other.signingSecret).not.toBe(endpoint.signingSecret)
      expect((yield* webhooks.list(principal)).map((e) => e.id)).toEqual([endpoint.id, other.id])
    })))

  it.effect("refuses loopback, private and metadata targets on url, at create and at update", () =>
    withReceiver(() => ok).run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      for (const target of ["http://127.0.0.1:8080/hook", "http://10.0.0.7/", "http://169.254.169.254/latest"]) {
        const refused = yield* Effect.flip(webhooks.create(principal, { url: target }))
        expect(refused).toMatchObject({ _tag: "InvalidInput", field: "url" })
      }
      const endpoint = yield* webhooks.create(principal, { url })
      const refused = yield* Effect.flip(webhooks.update(principal, endpoint.id, { url: "http://192.168.0.10/" }))
      expect(refused).toMatchObject({ _tag: "InvalidInput", field: "url" })
      expect((yield* webhooks.get(principal, endpoint.id)).url).toBe(url)
    })))

  it.effect(`allows at most ${MAX_WEBHOOK_ENDPOINTS} endpoints per organization`, () =>
    withReceiver(() => ok).run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      yield* Effect.forEach(Array.from({ length: MAX_WEBHOOK_ENDPOINTS }), () => webhooks.create(principal, { url }))
      const refused = yield* Effect.flip(webhooks.create(principal, { url }))
      expect(refused).toMatchObject({ _tag: "InvalidInput", field: "url" })
      expect(refused.message).toContain(String(MAX_WEBHOOK_ENDPOINTS))
    })))

  it.effect("needs the webhooks:manage scope", () =>
    withReceiver(() => ok).run(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      const endpoint = yield* webhooks.create(principal, { url })
      const reader = yield* keyFor(organization.id, ["subscribers:read"])
      expect(yield* Effect.flip(webhooks.create(reader, { url }))).toMatchObject({ _tag: "MissingScope" })
      expect(yield* Effect.flip(webhooks.list(reader))).toMatchObject({ _tag: "MissingScope" })
      expect(yield* Effect.flip(webhooks.get(reader, endpoint.id))).toMatchObject({ _tag: "MissingScope" })
    })))

  it.effect("another organization's endpoint is told apart from one that does not exist", () =>
    withReceiver(() => ok).run(Effect.gen(function*() {
      const ours = yield* openOrganization()
      const theirs = yield* openOrganization()
      const webhooks = yield* Webhooks
      const endpoint = yield* webhooks.create(theirs.principal, { url })
      expect(yield* Effect.flip(webhooks.get(ours.principal, endpoint.id)))
        .toMatchObject({ _tag: "ResourceOfAnotherOrganization", resource: "webhook" })
      expect(yield* Effect.flip(webhooks.remove(ours.principal, endpoint.id)))
        .toMatchObject({ _tag: "ResourceOfAnotherOrganization" })
      yield* webhooks.remove(theirs.principal, endpoint.id)
      expect(yield* Effect.flip(webhooks.get(theirs.principal, endpoint.id)))
        .toMatchObject({ _tag: "ResourceNotFound", resource: "webhook" })
    })))
})

describe("signing secrets", () => {
  it.effect("after a regeneration the old secret signs beside the new one for 24 hours", () => {
    const receiver = withReceiver(() => ok)
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      const endpoint = yield* webhooks.create(principal, { url })
      const regenerated = yield* webhooks.regenerateSecret(principal, endpoint.id)
      expect(regenerated.signingSecret).not.toBe(endpoint.signingSecret)

      yield* webhooks.test(principal, endpoint.id)
      yield* TestClock.adjust("23 hours")
      yield* webhooks.test(principal, endpoint.id)
      yield* TestClock.adjust("1 hour")
      yield* webhooks.test(principal, endpoint.id)
      expect(receiver.sent().map((message) => message.secrets)).toEqual([
        [regenerated.signingSecret, endpoint.signingSecret],
        [regenerated.signingSecret, endpoint.signingSecret],
        [regenerated.signingSecret]
      ])
    }))
  })
})

describe("testing an endpoint", () => {
  it.effect("sends a webhook.test message and reports the answer", () => {
    const receiver = withReceiver(() => ok)
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      const endpoint = yield* webhooks.create(principal, { url })
      const result = yield* webhooks.test(principal, endpoint.id)
      expect(result).toEqual({ success: true, statusCode: 200, responseTimeMs: 40, error: null, deliveryId: expect.any(String) })
      const [message] = receiver.sent()
      expect(JSON.parse(message!.body)).toMatchObject({
        id: message!.id,
        type: TEST_EVENT_TYPE,
        organization_id: principal.organization.id,
        data: { webhook_id: endpoint.id }
      })
      const log = yield* webhooks.deliveryLog(principal, endpoint.id, { limit: 10 })
      expect(log.items).toHaveLength(1)
      const [kept] = log.items
      expect(kept!.payload).toBe(message!.body)
      expect(kept!.delivery).toMatchObject({
        id: result.deliveryId,
        eventId: message!.id,
        eventType: TEST_EVENT_TYPE,
        test: true,
        status: "succeeded",
        attemptCount: 1,
        nextAttemptAt: null
      })
      expect(kept!.attempts).toMatchObject([{ number: 1, status: "succeeded", responseStatus: 200, durationMs: 40, error: null }])
    }))
  })

  it.effect("a failed test is never retried by the worker nor counted towards disabling; redelivering sends it again", () => {
    let answer: SendResult = { _tag: "Answered", status: 503, durationMs: 9, retryAfterMs: Option.none(), body: "x".repeat(1_500) }
    const receiver = withReceiver(() => answer)
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      const dispatch = yield* WebhookDispatch
      const endpoint = yield* webhooks.create(principal, { url })
      const result = yield* webhooks.test(principal, endpoint.id)
      expect(result.success).toBe(false)

      yield* TestClock.adjust("6 days")
      yield* dispatch.deliverDue(100, 30_000)
      expect(receiver.sent()).toHaveLength(1)
      expect(yield* webhooks.get(principal, endpoint.id)).toMatchObject({ status: "active", failingSince: null })
      const failed = yield* webhooks.getDelivery(principal, endpoint.id, result.deliveryId)
      expect(failed.delivery).toMatchObject({ status: "failed", nextAttemptAt: null, test: true })
      expect(failed.attempts[0]!.responseExcerpt).toBe("x".repeat(1_000))

      answer = ok
      const again = yield* webhooks.retryDelivery(principal, endpoint.id, result.deliveryId)
      expect(again.delivery).toMatchObject({ status: "succeeded", attemptCount: 2, nextAttemptAt: null })
      expect(again.attempts.map((attempt) => attempt.status)).toEqual(["failed", "succeeded"])
      const [first, second] = receiver.sent()
      expect(second!.id).toBe(first!.id)
      expect(second!.body).toBe(first!.body)
      yield* dispatch.deliverDue(100, 30_000)
      expect(receiver.sent()).toHaveLength(2)
    }))
  })

  it.effect("reports a failing answer and a missing one", () => {
    let answer: SendResult = { _tag: "Answered", status: 500, durationMs: 9, retryAfterMs: Option.none() }
    const receiver = withReceiver(() => answer)
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      const endpoint = yield* webhooks.create(principal, { url })
      expect(yield* webhooks.test(principal, endpoint.id))
        .toEqual({ success: false, statusCode: 500, responseTimeMs: 9, error: "answered 500", deliveryId: expect.any(String) })
      answer = { _tag: "NoAnswer", error: "timed out after 10 s", durationMs: 10_000 }
      expect(yield* webhooks.test(principal, endpoint.id))
        .toEqual({ success: false, statusCode: 0, responseTimeMs: 10_000, error: "timed out after 10 s", deliveryId: expect.any(String) })
    }))
  })
})

describe("deliveries and stats", () => {
  it.effect("lists deliveries newest first in pages, by status, and counts attempts", () => {
    let calls = 0
    const receiver = withReceiver(() =>
      ++calls % 2 === 0
        ? { _tag: "Answered", status: 500, durationMs: 300, retryAfterMs: Option.none() }
        : { _tag: "Answered", status: 200, durationMs: 100, retryAfterMs: Option.none() }
    )
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      const dispatch = yield* WebhookDispatch
      const subscribers = yield* Subscribers
      const endpoint = yield* webhooks.create(principal, { url, events: ["subscriber.created"] })
      for (const address of ["a@example.com", "b@example.com", "c@example.com", "d@example.com"]) {
        yield* subscribers.create(principal, { email: email(address) })
        yield* TestClock.adjust("1 second")
      }
      yield* dispatch.fanOut(100)
      // One after another, so the answers alternate in a known order.
      for (let i = 0; i < 4; i++) yield* dispatch.deliverDue(1, 30_000)

      const first = yield* webhooks.listDeliveries(principal, endpoint.id, { limit: 3 })
      expect(first.items).toHaveLength(3)
      expect(first.nextCursor).not.toBeNull()
      const second = yield* webhooks.listDeliveries(principal, endpoint.id, { limit: 3, cursor: first.nextCursor! })
      expect(second.items).toHaveLength(1)
      expect(second.nextCursor).toBeNull()
      const ids = [...first.items, ...second.items].map(({ delivery }) => delivery.id)
      expect(ids).toEqual([...ids].sort().reverse())

      const failed = yield* webhooks.listDeliveries(principal, endpoint.id, { limit: 10, status: "pending" })
      expect(failed.items).toHaveLength(2)
      expect(failed.items.every(({ attempts }) => attempts[0]?.responseStatus === 500)).toBe(true)

      const stats = yield* webhooks.stats(principal, endpoint.id)
      expect(stats).toMatchObject({ attempts: 4, succeeded: 2, failed: 2, p50Ms: 200, pending: 2 })
      expect(stats.p95Ms).toBe(300)
      expect(stats.lastSuccessAt).not.toBeNull()
      expect(stats.lastFailureAt).not.toBeNull()

      const global = yield* webhooks.globalStats(principal)
      expect(global).toMatchObject({ endpoints: 1, activeEndpoints: 1, disabledEndpoints: 0, attempts: 4 })
    }))
  })

  it.effect("a cursor that is not ours is refused on cursor", () =>
    withReceiver(() => ok).run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      const endpoint = yield* webhooks.create(principal, { url })
      const refused = yield* Effect.flip(webhooks.listDeliveries(principal, endpoint.id, { limit: 10, cursor: "nope" }))
      expect(refused).toMatchObject({ _tag: "InvalidInput", field: "cursor" })
    })))

  it.effect("retrying a delivery of no such id is not found", () =>
    withReceiver(() => ok).run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      const endpoint = yield* webhooks.create(principal, { url })
      const refused = yield* Effect.flip(
        webhooks.retryDelivery(principal, endpoint.id, "01936f4c-0000-7000-8000-00000000beef" as never)
      )
      expect(refused).toMatchObject({ _tag: "ResourceNotFound", resource: "webhook_delivery" })
    })))
})
