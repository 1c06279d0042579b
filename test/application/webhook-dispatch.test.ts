import { describe, expect, it } from "@effect/vitest"
import {
  Outbox,
  type Principal,
  UnitOfWork,
  WebhookDispatch,
  WebhookEndpointRepository,
  Webhooks
} from "@roster/application"
import {
  DomainEvent,
  EventId,
  MAX_DELIVERY_ATTEMPTS,
  planLimits,
  RETRY_DELAYS_MS,
  type SendResult,
  type WebhookEndpoint,
  webhookPayload
} from "@roster/domain"
import { Deferred, Duration, Effect, Fiber, Logger, Option, TestClock } from "effect"
import { logRecord } from "../../apps/shared/logging.js"
import { answered, deliveriesOf, gatedReceiver, openOrganization, register, subscribe, withReceiver } from "./test-kit.js"

const LEASE_MS = 30_000

/** One fan-out; how many events it took. */
const fanOut = Effect.flatMap(WebhookDispatch, (dispatch) => dispatch.fanOut(100)).pipe(Effect.map(({ events }) => events))

/** An endpoint that hears every kind, with one delivery made for it: ada@example.com's creation. */
const endpointWithOneDelivery = (principal: Principal) =>
  Effect.gen(function*() {
    const endpoint = yield* register(principal)
    yield* subscribe(principal, "ada@example.com")
    yield* fanOut
    return endpoint
  })
/** Fan-out until the outbox is empty; how many events it took. */
const drainOutbox: Effect.Effect<number, never, WebhookDispatch> = Effect.flatMap(fanOut, (taken) =>
  taken === 0 ? Effect.succeed(0) : Effect.map(drainOutbox, (rest) => rest + taken))

const deliverDue = Effect.flatMap(WebhookDispatch, (dispatch) => dispatch.deliverDue(25, LEASE_MS))

const endpointNow = (endpoint: WebhookEndpoint) =>
  Effect.map(
    Effect.flatMap(WebhookEndpointRepository, (endpoints) => endpoints.findById(endpoint.organizationId, endpoint.id)),
    Option.getOrThrow
  )

describe("fan-out from the outbox", () => {
  it.effect("makes one delivery per endpoint that hears the event's kind, and takes each event once", () => {
    const receiver = withReceiver(() => answered(200))
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const other = yield* openOrganization()
      const everything = yield* register(principal)
      const tagsOnly = yield* register(principal, ["tag.subscribed"])
      const paused = yield* register(principal)
      yield* (yield* Webhooks).update(principal, paused.id, { status: "disabled" })
      const foreign = yield* register(other.principal)

      yield* subscribe(principal, "ada@example.com")
      expect(yield* fanOut).toBe(1)
      expect(yield* fanOut).toBe(0)

      expect((yield* deliveriesOf(principal, everything)).map(({ delivery }) => delivery.eventType))
        .toEqual(["subscriber.created"])
      expect(yield* deliveriesOf(principal, tagsOnly)).toEqual([])
      expect(yield* deliveriesOf(principal, paused)).toEqual([])
      expect(yield* deliveriesOf(other.principal, foreign)).toEqual([])
    }))
  })

  it.effect("a change that rolls back emits nothing", () => {
    const receiver = withReceiver(() => answered(200))
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization({ tier: "free" })
      yield* register(principal)
      const limit = planLimits.free.maxSubscribers ?? 0
      yield* Effect.forEach(
        Array.from({ length: limit }, (_, i) => `reader-${i}@example.com`),
        (address) => subscribe(principal, address),
        { discard: true }
      )
      expect(yield* drainOutbox).toBe(limit)

      // Over the plan's limit: the create records its event, then the limit check fails the transaction.
      const refused = yield* Effect.flip(subscribe(principal, "one-too-many@example.com"))
      expect(refused._tag).toBe("PlanLimitExceeded")
      const unitOfWork = yield* UnitOfWork
      yield* Effect.flip(unitOfWork.transaction(Effect.gen(function*() {
        const outbox = yield* Outbox
        yield* outbox.record([
          new DomainEvent({
            id: EventId.make("01936f4c-0000-7000-8000-000000000001"),
            organizationId: principal.organization.id,
            type: "subscriber.deleted",
            occurredAt: new Date(),
            data: {}
          })
        ])
        return yield* Effect.fail("changed my mind")
      })))

      expect(yield* fanOut).toBe(0)
      const recorded = yield* (yield* Outbox).recorded(principal.organization.id)
      expect(recorded).toHaveLength(limit)
      expect(recorded.some((event) => JSON.stringify(event.data).includes("one-too-many"))).toBe(false)
    }))
  }, 60_000)
})

describe("sending deliveries", () => {
  it.effect("sends the event as the Standard Webhooks message: the event's id, its payload, the endpoint's secret", () => {
    const receiver = withReceiver(() => answered(200))
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* register(principal)
      yield* TestClock.setTime(Date.parse("2026-03-01T10:00:00.000Z"))
      yield* subscribe(principal, "ada@example.com")
      yield* fanOut
      yield* TestClock.adjust("2 seconds")
      expect(yield* deliverDue).toBe(1)

      const [message] = receiver.sent()
      const [{ attempts, delivery }] = yield* deliveriesOf(principal, endpoint)
      expect(message).toMatchObject({
        url: endpoint.url,
        id: delivery!.eventId,
        secrets: [endpoint.signingSecret],
        timestamp: new Date("2026-03-01T10:00:02.000Z")
      })
      const body = JSON.parse(message!.body)
      expect(body).toMatchObject({
        id: delivery!.eventId,
        type: "subscriber.created",
        created_at: "2026-03-01T10:00:00.000Z",
        organization_id: principal.organization.id,
        data: { subscriber: { email: "ada@example.com", status: "active" } }
      })
      expect(delivery).toMatchObject({ status: "succeeded", attemptCount: 1, nextAttemptAt: null })
      expect(attempts).toMatchObject([{ number: 1, status: "succeeded", responseStatus: 200, error: null }])
      expect(yield* deliverDue).toBe(0)
    }))
  })

  it.effect("a receiver that fails then recovers gets the event, with the same webhook-id on every attempt", () => {
    let failuresLeft = 2
    const receiver = withReceiver(() => failuresLeft-- > 0 ? answered(503) : answered(204))
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* endpointWithOneDelivery(principal)

      expect(yield* deliverDue).toBe(1)
      const [afterFirst] = yield* deliveriesOf(principal, endpoint)
      expect(afterFirst!.delivery.status).toBe("pending")
      const wait = afterFirst!.delivery.nextAttemptAt!.getTime() - afterFirst!.attempts[0]!.attemptedAt.getTime()
      expect(wait).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0]! * 0.9)
      expect(wait).toBeLessThanOrEqual(RETRY_DELAYS_MS[0]! * 1.1)
      expect(yield* deliverDue).toBe(0)

      yield* TestClock.adjust(Duration.millis(wait))
      expect(yield* deliverDue).toBe(1)
      const [afterSecond] = yield* deliveriesOf(principal, endpoint)
      const secondWait = afterSecond!.delivery.nextAttemptAt!.getTime() - afterSecond!.attempts[1]!.attemptedAt.getTime()
      expect(secondWait).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[1]! * 0.9)
      yield* TestClock.adjust(Duration.millis(secondWait))
      expect(yield* deliverDue).toBe(1)

      const [done] = yield* deliveriesOf(principal, endpoint)
      expect(done!.delivery.status).toBe("succeeded")
      expect(done!.attempts.map((attempt) => [attempt.status, attempt.responseStatus, attempt.error])).toEqual([
        ["failed", 503, "answered 503"],
        ["failed", 503, "answered 503"],
        ["succeeded", 204, null]
      ])
      expect(new Set(receiver.sent().map((message) => message.id)).size).toBe(1)
      expect(new Set(receiver.sent().map((message) => message.body)).size).toBe(1)
      expect((yield* endpointNow(endpoint)).failingSince).toBeNull()
    }))
  })

  it.effect("logs each attempt at info: the delivery, the endpoint, the answer and when it is tried again", () => {
    let failuresLeft = 1
    const receiver = withReceiver(() => failuresLeft-- > 0 ? answered(503) : answered(204))
    const lines: Array<Record<string, unknown>> = []
    const capture = Logger.replace(Logger.defaultLogger, Logger.make((options) => void lines.push(logRecord(options))))
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* endpointWithOneDelivery(principal)
      yield* deliverDue
      const [afterFirst] = yield* deliveriesOf(principal, endpoint)
      yield* TestClock.adjust(Duration.millis(afterFirst!.delivery.nextAttemptAt!.getTime() - afterFirst!.attempts[0]!.attemptedAt.getTime()))
      yield* deliverDue
      const attempts = lines.filter((line) => line.delivery_id === afterFirst!.delivery.id)
      expect(attempts).toMatchObject([
        {
          level: "info",
          msg: "webhook failed",
          webhook_id: endpoint.id,
          organization_id: principal.organization.id,
          event_type: "subscriber.created",
          attempt: 1,
          response_status: 503,
          error: "answered 503",
          next_attempt_at: afterFirst!.delivery.nextAttemptAt
        },
        { level: "info", msg: "webhook succeeded", attempt: 2, response_status: 204, error: null, next_attempt_at: null }
      ])
    }).pipe(Effect.provide(capture)))
  })

  it.effect("gives up after the last attempt of the schedule", () => {
    const receiver = withReceiver(() => ({ _tag: "NoAnswer", error: "connection refused (ECONNREFUSED)", durationMs: 3 }))
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* endpointWithOneDelivery(principal)
      for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt++) {
        expect(yield* deliverDue).toBe(1)
        yield* TestClock.adjust((RETRY_DELAYS_MS[attempt - 1] ?? 0) * 1.1)
      }
      expect(yield* deliverDue).toBe(0)
      const [history] = yield* deliveriesOf(principal, endpoint)
      expect(history!.delivery).toMatchObject({ status: "failed", attemptCount: MAX_DELIVERY_ATTEMPTS, nextAttemptAt: null })
      expect(history!.attempts.at(-1)).toMatchObject({ responseStatus: null, error: "connection refused (ECONNREFUSED)" })
    }))
  })

  it.effect("410 Gone ends the delivery and disables the endpoint; its other deliveries wait, new events skip it", () => {
    const receiver = withReceiver(() => answered(410))
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* register(principal, ["subscriber.created"])
      yield* subscribe(principal, "ada@example.com")
      yield* subscribe(principal, "grace@example.com")
      yield* fanOut
      expect(yield* Effect.flatMap(WebhookDispatch, (dispatch) => dispatch.deliverDue(1, LEASE_MS))).toBe(1)
      expect(yield* deliverDue).toBe(0)
      expect(yield* endpointNow(endpoint)).toMatchObject({ status: "disabled", disabledReason: "gone" })

      yield* subscribe(principal, "linus@example.com")
      yield* fanOut
      const histories = yield* deliveriesOf(principal, endpoint)
      expect(histories.map(({ delivery }) => delivery.status).sort()).toEqual(["failed", "pending"])
      expect(receiver.sent()).toHaveLength(1)
    }))
  })

  it.effect("429 waits at least as long as Retry-After asks", () => {
    let first = true
    const receiver = withReceiver(() => {
      const answer = first ? answered(429, 3_600_000) : answered(200)
      first = false
      return answer
    })
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* endpointWithOneDelivery(principal)
      yield* deliverDue
      const [history] = yield* deliveriesOf(principal, endpoint)
      expect(history!.delivery.nextAttemptAt!.getTime() - history!.attempts[0]!.attemptedAt.getTime())
        .toBeGreaterThanOrEqual(3_600_000)
      yield* TestClock.adjust("59 minutes")
      expect(yield* deliverDue).toBe(0)
      yield* TestClock.adjust("1 minute")
      expect(yield* deliverDue).toBe(1)
    }))
  })

  it.effect("an endpoint that has failed for five days is disabled", () => {
    const receiver = withReceiver(() => answered(500))
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* endpointWithOneDelivery(principal)
      yield* deliverDue
      const since = (yield* endpointNow(endpoint)).failingSince
      expect(since).not.toBeNull()

      yield* TestClock.adjust("4 days")
      yield* subscribe(principal, "grace@example.com")
      yield* fanOut
      yield* deliverDue
      expect(yield* endpointNow(endpoint)).toMatchObject({ status: "active", failingSince: since })

      yield* TestClock.adjust("1 day")
      yield* subscribe(principal, "linus@example.com")
      yield* fanOut
      yield* deliverDue
      expect(yield* endpointNow(endpoint)).toMatchObject({ status: "disabled", disabledReason: "failing" })
    }))
  })

  it.effect("a paused endpoint holds its deliveries; resumed, it gets them", () => {
    const receiver = withReceiver(() => answered(200))
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      const endpoint = yield* endpointWithOneDelivery(principal)
      yield* webhooks.update(principal, endpoint.id, { status: "disabled" })
      expect(yield* endpointNow(endpoint)).toMatchObject({ status: "disabled", disabledReason: "by_user" })
      expect(yield* deliverDue).toBe(0)

      yield* webhooks.update(principal, endpoint.id, { status: "active" })
      expect(yield* endpointNow(endpoint)).toMatchObject({ status: "active", disabledReason: null })
      expect(yield* deliverDue).toBe(1)
    }))
  })

  it.effect("a retried delivery goes out again with the same webhook-id", () => {
    const receiver = withReceiver(() => answered(200))
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* endpointWithOneDelivery(principal)
      yield* deliverDue
      const [history] = yield* deliveriesOf(principal, endpoint)

      const retried = yield* (yield* Webhooks).retryDelivery(principal, endpoint.id, history!.delivery.id)
      expect(retried.delivery.status).toBe("pending")
      expect(yield* deliverDue).toBe(1)
      const [first, second] = receiver.sent()
      expect(second!.id).toBe(first!.id)
      const [after] = yield* deliveriesOf(principal, endpoint)
      expect(after!.attempts.map((attempt) => attempt.number)).toEqual([1, 2])
    }))
  })
})

describe("leases", () => {
  it.effect("a delivery being sent is not sent by a second worker, however long the send outlasts its lease", () => {
    const { gates, ...receiver } = gatedReceiver()
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* endpointWithOneDelivery(principal)

      const slowWorker = yield* Effect.fork(deliverDue)
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      expect(gates).toHaveLength(1)
      expect(yield* deliverDue).toBe(0)

      // The send goes on for three leases: the lease is renewed while it does.
      for (let term = 0; term < 3; term++) {
        yield* TestClock.adjust(LEASE_MS + 1)
        expect(yield* deliverDue).toBe(0)
      }
      expect(gates).toHaveLength(1)

      yield* Deferred.succeed(gates[0]!, answered(200))
      expect(yield* Fiber.join(slowWorker)).toBe(1)
      const [history] = yield* deliveriesOf(principal, endpoint)
      expect(history!.delivery.status).toBe("succeeded")
      expect(history!.attempts).toHaveLength(1)
    }))
  })

  it.effect("in a batch, the lease of a send still going is renewed after the others ended, and each ending is told", () => {
    const { gates, ...receiver } = gatedReceiver()
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* register(principal)
      yield* subscribe(principal, "ada@example.com")
      yield* subscribe(principal, "bob@example.com")
      yield* drainOutbox
      const dispatch = yield* WebhookDispatch

      const batch = yield* dispatch.claimDue({ limit: 25, leaseMs: LEASE_MS })
      expect(batch.leased).toHaveLength(2)
      const ended: Array<string> = []
      const sending = yield* Effect.fork(
        dispatch.attemptAll(batch, (item) => Effect.sync(() => ended.push(item.delivery.id))).pipe(Effect.uninterruptible)
      )
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      expect(gates).toHaveLength(2)
      yield* Deferred.succeed(gates[0]!, answered(200))
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      expect(ended).toHaveLength(1)

      // The other send goes on for three leases: its lease is renewed while it does.
      for (let term = 0; term < 3; term++) {
        yield* TestClock.adjust(LEASE_MS + 1)
        expect(yield* deliverDue).toBe(0)
      }
      yield* Deferred.succeed(gates[1]!, answered(200))
      yield* Fiber.join(sending)
      expect([...ended].sort()).toEqual(batch.leased.map((item) => item.delivery.id).sort())
      const [history] = yield* deliveriesOf(principal, endpoint)
      expect(history!.delivery.status).toBe("succeeded")
      expect((yield* deliveriesOf(principal, endpoint)).map(({ attempts }) => attempts.length)).toEqual([1, 1])
    }))
  })

  it.effect("the deliveries of a worker that died holding their lease come due for the others when it runs out", () => {
    const { gates, ...receiver } = gatedReceiver()
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* endpointWithOneDelivery(principal)
      const dispatch = yield* WebhookDispatch

      // A worker claims and is gone before it sends: nothing renews its lease.
      const gone = yield* dispatch.claimDue({ limit: 25, leaseMs: LEASE_MS })
      expect(gone.leased).toHaveLength(1)
      expect(yield* deliverDue).toBe(0)

      yield* TestClock.adjust(LEASE_MS + 1)
      const rescuer = yield* Effect.fork(deliverDue)
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      expect(gates).toHaveLength(1)
      yield* Deferred.succeed(gates[0]!, answered(200))
      expect(yield* Fiber.join(rescuer)).toBe(1)

      // Had the gone worker sent after all, its attempt would not count: the lease is no longer its own.
      const late = yield* Effect.fork(dispatch.attempt(gone.leased[0]!, gone.lease))
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      yield* Deferred.succeed(gates[1]!, answered(500))
      yield* Fiber.join(late)
      const [history] = yield* deliveriesOf(principal, endpoint)
      expect(history!.delivery.status).toBe("succeeded")
      expect(history!.attempts).toHaveLength(1)
    }))
  })

  it.effect("a worker told to stop finishes the batch in hand", () => {
    const { gates, ...receiver } = gatedReceiver()
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* endpointWithOneDelivery(principal)
      const worker = yield* Effect.fork(deliverDue)
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      const stopping = yield* Effect.fork(Fiber.interrupt(worker))
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      yield* Deferred.succeed(gates[0]!, answered(200))
      yield* Fiber.join(stopping)
      const [history] = yield* deliveriesOf(principal, endpoint)
      expect(history!.delivery.status).toBe("succeeded")
    }))
  })
})

describe("the payload", () => {
  it("is {id, type, created_at, organization_id, data}", () => {
    const event = new DomainEvent({
      id: EventId.make("01936f4c-0000-7000-8000-000000000002"),
      organizationId: "01936f4c-0000-7000-8000-000000000003" as DomainEvent["organizationId"],
      type: "tag.subscribed",
      occurredAt: new Date("2026-01-02T03:04:05.678Z"),
      data: { tag: { id: "t" } }
    })
    expect(JSON.parse(webhookPayload(event))).toEqual({
      id: event.id,
      type: "tag.subscribed",
      created_at: "2026-01-02T03:04:05.678Z",
      organization_id: event.organizationId,
      data: { tag: { id: "t" } }
    })
  })
})

describe("history", () => {
  it.effect("finished deliveries and their events are forgotten after 30 days; waiting ones stay", () => {
    let answer: SendResult = answered(200)
    const receiver = withReceiver(() => answer)
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* register(principal, ["subscriber.created"])
      const dispatch = yield* WebhookDispatch
      yield* subscribe(principal, "ada@example.com")
      yield* fanOut
      yield* deliverDue
      answer = answered(500)
      yield* subscribe(principal, "grace@example.com")
      yield* fanOut
      yield* deliverDue

      yield* TestClock.adjust("29 days")
      expect(yield* dispatch.pruneHistory(100)).toBe(0)
      yield* TestClock.adjust(Duration.sum(Duration.days(1), Duration.millis(1)))
      expect(yield* dispatch.pruneHistory(100)).toBe(1)
      const left = yield* deliveriesOf(principal, endpoint)
      expect(left.map(({ delivery }) => delivery.status)).toEqual(["pending"])
      const events = yield* (yield* Outbox).recorded(principal.organization.id)
      expect(events.map((event) => event.id)).toEqual([left[0]!.delivery.eventId])
    }))
  })
})
