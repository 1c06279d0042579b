import { assert, expect, layer } from "@effect/vitest"
import { Outbox, type WebhookAttemptStats, WebhookDeliveryRepository, WebhookEndpointRepository } from "@roster/application"
import {
  TEST_EVENT_TYPE,
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryId,
  type WebhookDeliveryStatus,
  WebhookEndpointId
} from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import {
  aDelivery,
  anAttempt,
  anEraOfItsOwn,
  anEvent,
  aTestDelivery,
  deletingAfterwards,
  givenAttempts,
  givenDelivery,
  givenEndpoint,
  givenOrganization,
  instant,
  type PersistenceLayer
} from "./fixtures.js"

const noStats: WebhookAttemptStats = {
  attempts: 0,
  succeeded: 0,
  failed: 0,
  p50Ms: null,
  p95Ms: null,
  lastSuccessAt: null,
  lastFailureAt: null,
  pending: 0
}

/** Long after any test's era: a delivery due then is never claimed by a test. */
const farFuture = instant(10 * 365 * 24 * 3600)

export const webhookDeliveryRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("WebhookDeliveryRepository", (it) => {
    it.effect("stores deliveries and finds each, without attempts yet, under its organization and endpoint only", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const endpoint = yield* givenEndpoint(organization.id)
        const other = yield* givenEndpoint(organization.id)
        const delivery = yield* givenDelivery(endpoint, { createdAt: instant(3) })

        expect(yield* deliveries.findById(organization.id, endpoint.id, delivery.id)).toStrictEqual(
          Option.some({ delivery, attempts: [] })
        )
        assert.isTrue(Option.isNone(yield* deliveries.findById((yield* givenOrganization()).id, endpoint.id, delivery.id)))
        assert.isTrue(Option.isNone(yield* deliveries.findById(organization.id, other.id, delivery.id)))
        assert.isTrue(
          Option.isNone(yield* deliveries.findById(organization.id, endpoint.id, WebhookDeliveryId.make(randomUUID())))
        )
      }))

    it.effect("skips a delivery whose endpoint already has one for the same event, in the store or in the batch", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const [endpoint, other] = [yield* givenEndpoint(organization.id), yield* givenEndpoint(organization.id)]
        const [event, second] = [anEvent(organization.id), anEvent(organization.id, "tag.subscribed")]
        yield* (yield* Outbox).record([event, second])
        const first = aDelivery(endpoint, event, { createdAt: instant(1) })
        yield* deliveries.insertMany([first])

        const again = aDelivery(endpoint, event, { createdAt: instant(2) })
        const toOther = aDelivery(other, event, { createdAt: instant(3) })
        const secondEvent = aDelivery(endpoint, second, { createdAt: instant(4) })
        const secondAgain = aDelivery(endpoint, second, { createdAt: instant(5) })
        yield* deliveries.insertMany([again, toOther, secondEvent, secondAgain])
        yield* deliveries.insertMany([])

        const listed = (endpointId: WebhookEndpointId) =>
          deliveries.listByEndpoint({
            organizationId: organization.id,
            endpointId,
            limit: 10,
            after: Option.none(),
            status: Option.none()
          }).pipe(Effect.map((page) => page.items.map((history) => history.delivery)))
        expect(yield* listed(endpoint.id)).toStrictEqual([secondEvent, first])
        expect(yield* listed(other.id)).toStrictEqual([toOther])
        assert.isTrue(Option.isNone(yield* deliveries.findById(organization.id, endpoint.id, again.id)))
      }))

    it.effect("stores a batch larger than one statement can carry", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const endpoint = yield* givenEndpoint(organization.id)
        const many = Array.from({ length: 12_000 }, (_, i) =>
          aDelivery(endpoint, anEvent(organization.id), { createdAt: instant(i), nextAttemptAt: farFuture }))
        yield* deliveries.insertMany(many)
        const figures = yield* deliveries.stats({
          organizationId: organization.id,
          endpointId: Option.some(endpoint.id),
          since: instant(0)
        })
        expect(figures).toStrictEqual({ ...noStats, pending: 12_000 })
        const newest = yield* deliveries.listByEndpoint({
          organizationId: organization.id,
          endpointId: endpoint.id,
          limit: 1,
          after: Option.none(),
          status: Option.none()
        })
        expect(newest.items.map((history) => history.delivery)).toStrictEqual([many[many.length - 1]])
      }), 60_000)

    it.effect("leases pending deliveries that are due to active endpoints, oldest due first, as many as asked", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const endpoint = yield* givenEndpoint(organization.id)
          const paused = yield* givenEndpoint(organization.id, { status: "disabled" })
          const second = yield* givenDelivery(endpoint, { createdAt: era(10) })
          const first = yield* givenDelivery(endpoint, { createdAt: era(5) })
          const third = yield* givenDelivery(endpoint, { createdAt: era(20), attemptCount: 3 })
          yield* givenDelivery(endpoint, { createdAt: era(31) })
          yield* givenDelivery(endpoint, { createdAt: era(1), status: "succeeded", nextAttemptAt: era(1) })
          yield* givenDelivery(endpoint, { createdAt: era(2), status: "failed", nextAttemptAt: era(2) })
          yield* givenDelivery(paused, { createdAt: era(3) })
          const recorded = yield* (yield* Outbox).recorded(organization.id)
          const eventOf = (delivery: WebhookDelivery) => recorded.find((event) => event.id === delivery.eventId)

          const leased = yield* deliveries.claimDue({ now: era(30), limit: 2, leaseToken: randomUUID(), leasedUntil: era(90) })
          // Each delivery as it was before the lease (due when it was due, its attempts as counted),
          // with its endpoint and its event, the event's data as recorded.
          expect(leased).toStrictEqual([
            { delivery: first, endpoint, event: eventOf(first) },
            { delivery: second, endpoint, event: eventOf(second) }
          ])

          const rest = yield* deliveries.claimDue({ now: era(30), limit: 10, leaseToken: randomUUID(), leasedUntil: era(90) })
          expect(rest).toStrictEqual([{ delivery: third, endpoint, event: eventOf(third) }])
          expect(yield* deliveries.claimDue({ now: era(30), limit: 10, leaseToken: randomUUID(), leasedUntil: era(90) }))
            .toStrictEqual([])
          expect(yield* deliveries.claimDue({ now: era(89), limit: 0, leaseToken: randomUUID(), leasedUntil: era(90) }))
            .toStrictEqual([])
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a leased delivery is next due when its lease runs out: not claimed before, claimed again after", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const endpoint = yield* givenEndpoint(organization.id)
          const delivery = yield* givenDelivery(endpoint, { createdAt: era(1) })
          const [worker, successor] = [randomUUID(), randomUUID()]

          const leased = yield* deliveries.claimDue({ now: era(1), limit: 5, leaseToken: worker, leasedUntil: era(31) })
          expect(leased.map((item) => item.delivery)).toStrictEqual([delivery])
          expect(yield* deliveries.findById(organization.id, endpoint.id, delivery.id)).toStrictEqual(
            Option.some({ delivery: new WebhookDelivery({ ...delivery, nextAttemptAt: era(31), updatedAt: era(1) }), attempts: [] })
          )
          expect(yield* deliveries.claimDue({ now: era(30), limit: 5, leaseToken: successor, leasedUntil: era(60) }))
            .toStrictEqual([])

          const taken = yield* deliveries.claimDue({ now: era(31), limit: 5, leaseToken: successor, leasedUntil: era(61) })
          expect(taken.map((item) => item.delivery)).toStrictEqual([
            new WebhookDelivery({ ...delivery, nextAttemptAt: era(31), updatedAt: era(1) })
          ])

          // The first worker's lease has passed to another: what it sent is not recorded.
          const late = anAttempt(1, { status: "succeeded", at: era(40) })
          assert.isFalse(
            yield* deliveries.recordAttempt({
              deliveryId: delivery.id,
              leaseToken: worker,
              attempt: late,
              status: "succeeded",
              nextAttemptAt: null
            })
          )
          expect(Option.getOrThrow(yield* deliveries.findById(organization.id, endpoint.id, delivery.id))).toStrictEqual({
            delivery: new WebhookDelivery({ ...delivery, nextAttemptAt: era(61), updatedAt: era(31) }),
            attempts: []
          })
          assert.isTrue(
            yield* deliveries.recordAttempt({
              deliveryId: delivery.id,
              leaseToken: successor,
              attempt: late,
              status: "succeeded",
              nextAttemptAt: null
            })
          )
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("records an attempt and the delivery's new state only under the lease that holds it, once", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const endpoint = yield* givenEndpoint(organization.id)
          const delivery = yield* givenDelivery(endpoint, { createdAt: era(1) })
          const worker = randomUUID()
          yield* deliveries.claimDue({ now: era(1), limit: 1, leaseToken: worker, leasedUntil: era(31) })

          const failure = anAttempt(1, { status: "failed", at: era(2), durationMs: 812 })
          const record = (leaseToken: string, attempt = failure) =>
            deliveries.recordAttempt({
              deliveryId: delivery.id,
              leaseToken,
              attempt,
              status: attempt.status === "succeeded" ? "succeeded" : "pending",
              nextAttemptAt: attempt.nextAttemptAt
            })
          assert.isFalse(yield* record(randomUUID()))
          expect(Option.getOrThrow(yield* deliveries.findById(organization.id, endpoint.id, delivery.id)).attempts)
            .toStrictEqual([])

          assert.isTrue(yield* record(worker))
          const retrying = new WebhookDelivery({
            ...delivery,
            attemptCount: 1,
            nextAttemptAt: failure.nextAttemptAt,
            updatedAt: era(2)
          })
          expect(yield* deliveries.findById(organization.id, endpoint.id, delivery.id)).toStrictEqual(
            Option.some({ delivery: retrying, attempts: [failure] })
          )
          // The lease ended with the attempt.
          assert.isFalse(yield* record(worker))
          expect(Option.getOrThrow(yield* deliveries.findById(organization.id, endpoint.id, delivery.id)).attempts)
            .toStrictEqual([failure])

          const next = randomUUID()
          const again = yield* deliveries.claimDue({ now: era(62), limit: 5, leaseToken: next, leasedUntil: era(92) })
          expect(again.map((item) => item.delivery)).toStrictEqual([retrying])
          const success = anAttempt(2, { status: "succeeded", at: era(63), durationMs: 95 })
          assert.isTrue(yield* record(next, success))
          expect(yield* deliveries.findById(organization.id, endpoint.id, delivery.id)).toStrictEqual(
            Option.some({
              delivery: new WebhookDelivery({
                ...delivery,
                status: "succeeded",
                attemptCount: 2,
                nextAttemptAt: null,
                updatedAt: era(63)
              }),
              attempts: [failure, success]
            })
          )
          expect(yield* deliveries.claimDue({ now: era(1000), limit: 5, leaseToken: randomUUID(), leasedUntil: era(1030) }))
            .toStrictEqual([])
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("renews a lease only for the worker holding it: the delivery stays its own until the new end", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const endpoint = yield* givenEndpoint(organization.id)
          const delivery = yield* givenDelivery(endpoint, { createdAt: era(1) })
          const [worker, other] = [randomUUID(), randomUUID()]
          expect(yield* deliveries.claimDue({ now: era(1), limit: 5, leaseToken: worker, leasedUntil: era(31) })).toHaveLength(1)

          assert.isFalse(yield* deliveries.renewLease({ deliveryId: delivery.id, leaseToken: other, leasedUntil: era(90) }))
          assert.isTrue(yield* deliveries.renewLease({ deliveryId: delivery.id, leaseToken: worker, leasedUntil: era(61) }))
          expect(yield* deliveries.claimDue({ now: era(40), limit: 5, leaseToken: other, leasedUntil: era(70) })).toStrictEqual([])
          assert.isTrue(
            yield* deliveries.recordAttempt({
              deliveryId: delivery.id,
              leaseToken: worker,
              attempt: anAttempt(1, { status: "succeeded", at: era(50) }),
              status: "succeeded",
              nextAttemptAt: null
            })
          )
          // Recorded, the lease is over: renewing it changes nothing.
          assert.isFalse(yield* deliveries.renewLease({ deliveryId: delivery.id, leaseToken: worker, leasedUntil: era(99) }))
          expect(Option.getOrThrow(yield* deliveries.findById(organization.id, endpoint.id, delivery.id)).delivery.nextAttemptAt)
            .toBeNull()
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("gives leased deliveries back, due again at once, only under their lease", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const endpoint = yield* givenEndpoint(organization.id)
          const [first, second] = [
            yield* givenDelivery(endpoint, { createdAt: era(1) }),
            yield* givenDelivery(endpoint, { createdAt: era(2) })
          ]
          const worker = randomUUID()
          expect(yield* deliveries.claimDue({ now: era(5), limit: 5, leaseToken: worker, leasedUntil: era(65) })).toHaveLength(2)

          yield* deliveries.release(worker, [first.id], era(10))
          yield* deliveries.release(randomUUID(), [second.id], era(10))
          yield* deliveries.release(worker, [], era(10))
          expect(Option.getOrThrow(yield* deliveries.findById(organization.id, endpoint.id, first.id)).delivery).toStrictEqual(
            new WebhookDelivery({ ...first, nextAttemptAt: era(10), updatedAt: era(10) })
          )

          const successor = randomUUID()
          const taken = yield* deliveries.claimDue({ now: era(10), limit: 5, leaseToken: successor, leasedUntil: era(70) })
          expect(taken.map((item) => item.delivery)).toStrictEqual([
            new WebhookDelivery({ ...first, nextAttemptAt: era(10), updatedAt: era(10) })
          ])
          // Given back, the first lease is over.
          assert.isFalse(
            yield* deliveries.recordAttempt({
              deliveryId: first.id,
              leaseToken: worker,
              attempt: anAttempt(1, { status: "succeeded", at: era(11) }),
              status: "succeeded",
              nextAttemptAt: null
            })
          )
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("passes over the endpoints it is told to skip", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const busy = yield* givenEndpoint(organization.id)
          const quiet = yield* givenEndpoint(organization.id)
          const other = yield* givenEndpoint(organization.id)
          yield* givenDelivery(busy, { createdAt: era(1) })
          yield* givenDelivery(busy, { createdAt: era(2) })
          const toQuiet = yield* givenDelivery(quiet, { createdAt: era(3) })
          const toOther = yield* givenDelivery(other, { createdAt: era(4) })
          const claimed = yield* deliveries.claimDue({
            now: era(10),
            limit: 10,
            leaseToken: randomUUID(),
            leasedUntil: farFuture,
            skipEndpoints: [busy.id]
          })
          expect(claimed.map((item) => item.delivery.id)).toStrictEqual([toQuiet.id, toOther.id])
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("holds an endpoint's pending deliveries out of every claim, leased ones aside, until resumed", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const endpoint = yield* givenEndpoint(organization.id)
          const other = yield* givenEndpoint(organization.id)
          const leased = yield* givenDelivery(endpoint, { createdAt: era(1) })
          const worker = randomUUID()
          expect(yield* deliveries.claimDue({ now: era(2), limit: 1, leaseToken: worker, leasedUntil: era(62) }))
            .toHaveLength(1)
          const waiting = yield* givenDelivery(endpoint, { createdAt: era(3) })
          const elsewhere = yield* givenDelivery(other, { createdAt: era(4) })

          yield* deliveries.holdPending(endpoint.id, era(5))
          expect(Option.getOrThrow(yield* deliveries.findById(organization.id, endpoint.id, waiting.id)).delivery)
            .toStrictEqual(new WebhookDelivery({ ...waiting, nextAttemptAt: null, updatedAt: era(5) }))
          const claimed = yield* deliveries.claimDue({ now: era(100), limit: 10, leaseToken: randomUUID(), leasedUntil: farFuture })
          expect(claimed.map((item) => item.delivery.id).sort()).toStrictEqual([leased.id, elsewhere.id].sort())

          yield* deliveries.resumeHeld(endpoint.id, era(200))
          expect(Option.getOrThrow(yield* deliveries.findById(organization.id, endpoint.id, waiting.id)).delivery)
            .toStrictEqual(new WebhookDelivery({ ...waiting, nextAttemptAt: era(200), updatedAt: era(200) }))
          const resumed = yield* deliveries.claimDue({ now: era(200), limit: 10, leaseToken: randomUUID(), leasedUntil: era(260) })
          expect(resumed.map((item) => item.delivery.id)).toStrictEqual([waiting.id])
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("forgets finished deliveries last changed before a moment, oldest first, as many as asked", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const endpoint = yield* givenEndpoint(organization.id)
          const oldest = yield* givenDelivery(endpoint, { status: "failed", createdAt: era(10) })
          const older = yield* givenDelivery(endpoint, { status: "succeeded", createdAt: era(20) })
          const waiting = yield* givenDelivery(endpoint, { status: "pending", createdAt: era(5), nextAttemptAt: farFuture })
          const recent = yield* givenDelivery(endpoint, { status: "succeeded", createdAt: era(100) })
          const find = (id: WebhookDeliveryId) => deliveries.findById(organization.id, endpoint.id, id)

          expect(yield* deliveries.pruneFinished(era(50), 1)).toBe(1)
          expect(Option.isNone(yield* find(oldest.id))).toBe(true)
          expect(Option.isSome(yield* find(older.id))).toBe(true)
          expect(yield* deliveries.pruneFinished(era(50), 10)).toBeGreaterThanOrEqual(1)
          expect(Option.isNone(yield* find(older.id))).toBe(true)
          expect(Option.isSome(yield* find(waiting.id))).toBe(true)
          expect(Option.isSome(yield* find(recent.id))).toBe(true)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("lists an endpoint's deliveries newest first, page by page and by status, each with its attempts oldest first", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const endpoint = yield* givenEndpoint(organization.id)
          const other = yield* givenEndpoint(organization.id)
          yield* givenDelivery(other, { createdAt: era(3), nextAttemptAt: farFuture })
          const d1 = yield* givenDelivery(endpoint, { createdAt: era(1) })
          const d2 = yield* givenDelivery(endpoint, { createdAt: era(2) })
          const d3 = yield* givenDelivery(endpoint, { createdAt: era(4) })
          const d4 = yield* givenDelivery(endpoint, { createdAt: era(5), nextAttemptAt: farFuture })
          const d5 = yield* givenDelivery(endpoint, { createdAt: era(6) })
          const h1 = yield* givenAttempts(d1, [{ status: "succeeded", at: era(10) }], { status: "succeeded", nextAttemptAt: null })
          const h2 = yield* givenAttempts(
            d2,
            [{ status: "failed", at: era(11) }, { status: "failed", at: era(12) }],
            { status: "failed", nextAttemptAt: null }
          )
          const h3 = yield* givenAttempts(d3, [{ status: "failed", at: era(13) }], { status: "pending", nextAttemptAt: farFuture })
          const h5 = yield* givenAttempts(d5, [{ status: "succeeded", at: era(14) }], { status: "succeeded", nextAttemptAt: null })
          const h4 = { delivery: d4, attempts: [] }

          const page = (limit: number, after?: WebhookDeliveryId, status?: WebhookDeliveryStatus) =>
            deliveries.listByEndpoint({
              organizationId: organization.id,
              endpointId: endpoint.id,
              limit,
              after: Option.fromNullable(after),
              status: Option.fromNullable(status)
            })
          expect(yield* page(2)).toStrictEqual({ items: [h5, h4], hasMore: true })
          expect(yield* page(2, d4.id)).toStrictEqual({ items: [h3, h2], hasMore: true })
          expect(yield* page(2, d2.id)).toStrictEqual({ items: [h1], hasMore: false })
          expect(yield* page(5)).toStrictEqual({ items: [h5, h4, h3, h2, h1], hasMore: false })
          expect(yield* page(10, d1.id)).toStrictEqual({ items: [], hasMore: false })

          expect(yield* page(10, undefined, "succeeded")).toStrictEqual({ items: [h5, h1], hasMore: false })
          expect(yield* page(1, d5.id, "succeeded")).toStrictEqual({ items: [h1], hasMore: false })
          expect(yield* page(1, undefined, "pending")).toStrictEqual({ items: [h4], hasMore: true })
          expect(yield* page(10, undefined, "failed")).toStrictEqual({ items: [h2], hasMore: false })

          const stranger = yield* givenOrganization()
          expect(
            yield* deliveries.listByEndpoint({
              organizationId: stranger.id,
              endpointId: endpoint.id,
              limit: 10,
              after: Option.none(),
              status: Option.none()
            })
          ).toStrictEqual({ items: [], hasMore: false })
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a retried delivery is due at once, keeps its attempts, and ends any lease on it", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const endpoint = yield* givenEndpoint(organization.id)
          const delivery = yield* givenDelivery(endpoint, { createdAt: era(1) })
          const failed = yield* givenAttempts(
            delivery,
            [{ status: "failed", at: era(2) }, { status: "failed", at: era(3) }],
            { status: "failed", nextAttemptAt: null }
          )
          expect(yield* deliveries.claimDue({ now: era(100), limit: 5, leaseToken: randomUUID(), leasedUntil: era(130) }))
            .toStrictEqual([])

          const stranger = yield* givenOrganization()
          assert.isTrue(Option.isNone(yield* deliveries.retryNow(stranger.id, endpoint.id, delivery.id, era(100))))
          assert.isTrue(
            Option.isNone(yield* deliveries.retryNow(organization.id, WebhookEndpointId.make(randomUUID()), delivery.id, era(100)))
          )
          assert.isTrue(
            Option.isNone(yield* deliveries.retryNow(organization.id, endpoint.id, WebhookDeliveryId.make(randomUUID()), era(100)))
          )

          const retried = new WebhookDelivery({
            ...failed.delivery,
            status: "pending",
            nextAttemptAt: era(100),
            updatedAt: era(100)
          })
          expect(yield* deliveries.retryNow(organization.id, endpoint.id, delivery.id, era(100))).toStrictEqual(
            Option.some({ delivery: retried, attempts: failed.attempts })
          )

          const worker = randomUUID()
          const leased = yield* deliveries.claimDue({ now: era(100), limit: 5, leaseToken: worker, leasedUntil: era(130) })
          expect(leased.map((item) => item.delivery)).toStrictEqual([retried])

          // Retried again while a worker sends it: that worker's attempt is not recorded.
          yield* deliveries.retryNow(organization.id, endpoint.id, delivery.id, era(110))
          assert.isFalse(
            yield* deliveries.recordAttempt({
              deliveryId: delivery.id,
              leaseToken: worker,
              attempt: anAttempt(3, { status: "succeeded", at: era(111) }),
              status: "succeeded",
              nextAttemptAt: null
            })
          )
          expect(yield* deliveries.findById(organization.id, endpoint.id, delivery.id)).toStrictEqual(
            Option.some({
              delivery: new WebhookDelivery({ ...retried, nextAttemptAt: era(110), updatedAt: era(110) }),
              attempts: failed.attempts
            })
          )
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("records a test delivery with each attempt, lists it marked as a test, and never leases it", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const endpoint = yield* givenEndpoint(organization.id)
          const event = yield* givenDelivery(endpoint, { createdAt: era(1), status: "succeeded" })
          const body = JSON.stringify({ id: "message", type: TEST_EVENT_TYPE })
          const made = aTestDelivery(endpoint, { at: era(2), status: "failed", testBody: body })
          const first = new WebhookAttempt({ ...anAttempt(1, { status: "failed", at: era(2) }), nextAttemptAt: null })
          yield* deliveries.recordTest({ delivery: made, attempt: first })
          expect(yield* deliveries.findById(organization.id, endpoint.id, made.id)).toStrictEqual(
            Option.some({ delivery: made, attempts: [first] })
          )

          // Sent again: the delivery takes the new attempt's outcome, the first attempt stays.
          const again = new WebhookDelivery({ ...made, status: "succeeded", attemptCount: 2, updatedAt: era(5) })
          const second = anAttempt(2, { status: "succeeded", at: era(5) })
          yield* deliveries.recordTest({ delivery: again, attempt: second })
          const page = yield* deliveries.listByEndpoint({
            organizationId: organization.id,
            endpointId: endpoint.id,
            limit: 10,
            after: Option.none(),
            status: Option.none()
          })
          expect(page.items).toStrictEqual([{ delivery: again, attempts: [first, second] }, { delivery: event, attempts: [] }])
          assert.isFalse(page.items[1]!.delivery.test)
          assert.isNull(page.items[1]!.delivery.testBody)

          // Holding and resuming the endpoint leaves it alone, and no claim takes it.
          yield* deliveries.holdPending(endpoint.id, era(6))
          yield* deliveries.resumeHeld(endpoint.id, era(7))
          expect(yield* deliveries.claimDue({ now: era(100), limit: 5, leaseToken: randomUUID(), leasedUntil: era(130) }))
            .toStrictEqual([])
          expect(yield* deliveries.findById(organization.id, endpoint.id, made.id)).toStrictEqual(
            Option.some({ delivery: again, attempts: [first, second] })
          )
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a test attempt never lands on an event's delivery of the same id", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const endpoint = yield* givenEndpoint(organization.id)
        const event = yield* givenDelivery(endpoint, { createdAt: instant(3), status: "failed", nextAttemptAt: null })
        yield* deliveries.recordTest({
          delivery: new WebhookDelivery({ ...event, status: "succeeded", attemptCount: 1, test: true, testBody: "{}" }),
          attempt: anAttempt(1, { status: "succeeded", at: instant(4) })
        })
        expect(yield* deliveries.findById(organization.id, endpoint.id, event.id)).toStrictEqual(
          Option.some({ delivery: event, attempts: [] })
        )
      }))

    it.effect("records no test for an endpoint that is gone", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const endpoint = yield* givenEndpoint(organization.id)
        const gone = aTestDelivery(endpoint, { at: instant(5), status: "succeeded", testBody: "{}" })
        yield* (yield* WebhookEndpointRepository).delete(organization.id, endpoint.id)
        yield* deliveries.recordTest({ delivery: gone, attempt: anAttempt(1, { status: "succeeded", at: instant(5) }) })
        assert.isTrue(Option.isNone(yield* deliveries.findById(organization.id, endpoint.id, gone.id)))
      }))

    it.effect("counts attempts since a moment, of one endpoint or of the organization, with percentiles of their durations", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const stranger = yield* givenOrganization()
        const era = anEraOfItsOwn()
        const since = era(1000)
        const after = (seconds: number) => new Date(since.getTime() + seconds * 1000)
        yield* Effect.gen(function*() {
          const [endpoint, sibling] = [yield* givenEndpoint(organization.id), yield* givenEndpoint(organization.id)]
          const foreign = yield* givenEndpoint(stranger.id)
          const done = { status: "succeeded", nextAttemptAt: null } as const
          const gaveUp = { status: "failed", nextAttemptAt: null } as const
          const waiting = { status: "pending", nextAttemptAt: farFuture } as const
          const send = (
            endpointOf: typeof endpoint,
            due: number,
            attempts: ReadonlyArray<readonly ["succeeded" | "failed", number, number]>,
            end: typeof done | typeof gaveUp | typeof waiting
          ) =>
            Effect.flatMap(givenDelivery(endpointOf, { createdAt: era(due) }), (delivery) =>
              givenAttempts(
                delivery,
                attempts.map(([status, seconds, durationMs]) => ({ status, at: after(seconds), durationMs })),
                end
              ))

          // The endpoint: 120, 80, 400, 250, 1000, 60, 90 and 300 ms since; one older attempt of 5 s.
          yield* send(endpoint, 1, [["failed", 10, 120], ["failed", 20, 80], ["succeeded", 30, 400]], done)
          yield* send(endpoint, 2, [["failed", -100, 5_000], ["failed", 40, 250]], gaveUp)
          yield* send(endpoint, 3, [["succeeded", 50, 1_000]], done)
          yield* send(endpoint, 4, [["failed", 60, 60], ["succeeded", 70, 90]], done)
          yield* send(endpoint, 5, [["failed", 80, 300]], waiting)
          yield* givenDelivery(endpoint, { createdAt: era(6), nextAttemptAt: farFuture })
          // Its sibling: 200 and 700 ms.
          yield* send(sibling, 7, [["succeeded", 15, 200]], done)
          yield* send(sibling, 8, [["failed", 90, 700]], waiting)
          // Another organization's endpoint counts for neither.
          yield* send(foreign, 9, [["succeeded", 100, 5], ["failed", 110, 7]], done)
          yield* givenDelivery(foreign, { createdAt: era(10), nextAttemptAt: farFuture })

          const stats = (endpointId: Option.Option<WebhookEndpointId>, organizationId = organization.id) =>
            deliveries.stats({ organizationId, endpointId, since })
          // Sorted 60 80 90 120 250 300 400 1000: p50 between 120 and 250, p95 at 6.65 of 7 steps.
          expect(yield* stats(Option.some(endpoint.id))).toStrictEqual({
            attempts: 8,
            succeeded: 3,
            failed: 5,
            p50Ms: 185,
            p95Ms: 790,
            lastSuccessAt: after(70),
            lastFailureAt: after(80),
            pending: 2
          })
          // Sorted 60 80 90 120 200 250 300 400 700 1000: p50 between 200 and 250, p95 at 8.55 of 9 steps.
          expect(yield* stats(Option.none())).toStrictEqual({
            attempts: 10,
            succeeded: 4,
            failed: 6,
            p50Ms: 225,
            p95Ms: 865,
            lastSuccessAt: after(70),
            lastFailureAt: after(90),
            pending: 3
          })
          expect(yield* deliveries.stats({ organizationId: organization.id, endpointId: Option.some(sibling.id), since: after(16) }))
            .toStrictEqual({
              attempts: 1,
              succeeded: 0,
              failed: 1,
              p50Ms: 700,
              p95Ms: 700,
              lastSuccessAt: null,
              lastFailureAt: after(90),
              pending: 1
            })
          expect(yield* deliveries.stats({ organizationId: organization.id, endpointId: Option.none(), since: after(111) }))
            .toStrictEqual({ ...noStats, pending: 3 })
          // Another organization's endpoint, asked about under this one, has nothing.
          expect(yield* stats(Option.some(foreign.id))).toStrictEqual(noStats)
          expect(yield* stats(Option.some(endpoint.id), stranger.id)).toStrictEqual(noStats)
          expect(yield* stats(Option.none(), (yield* givenOrganization()).id)).toStrictEqual(noStats)
        }).pipe(deletingAfterwards([organization.id, stranger.id]))
      }))
  })
