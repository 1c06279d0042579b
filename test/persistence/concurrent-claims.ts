import { expect, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { EmailUsage, OrganizationRepository, Outbox, UnitOfWork, WebhookDeliveryRepository } from "@roster/application"
import { Deferred, Effect, Fiber, type Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import {
  aDelivery,
  anAttempt,
  anEraOfItsOwn,
  anEvent,
  deletingAfterwards,
  givenEndpoint,
  givenOrganization,
  instant,
  type Persistence
} from "../contract/fixtures.js"
import { claimedOnceSettled, dispatchEverything } from "../contract/outbox-contract.js"

const DELIVERIES = 200
const WORKERS = 8
const BATCH = 25

/**
 * Claims made side by side on separate connections of one database server: what the contract
 * suites cannot show on a database that runs one statement at a time. Both claims skip rows that
 * another connection holds locked rather than wait for them.
 */
export const concurrentClaims = (persistence: Layer.Layer<Persistence | SqlClient.SqlClient, unknown>) =>
  // Real time, so that a claim that waits for another's locks fails on its time-out.
  layer(persistence, { excludeTestServices: true })("claims made at once on separate connections", (it) => {
    it.effect("workers leasing due deliveries at once never lease the same one, and together lease them all", () =>
      Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const endpoint = yield* givenEndpoint(organization.id)
          const events = Array.from({ length: DELIVERIES }, (_, n) => anEvent(organization.id, "subscriber.created", { n }))
          yield* (yield* Outbox).record(events)
          const due = events.map((event, n) => aDelivery(endpoint, event, { createdAt: era(n) }))
          yield* deliveries.insertMany(due)

          const workers = Array.from({ length: WORKERS }, () => randomUUID())
          const leased = yield* Effect.all(
            workers.map((leaseToken) =>
              Effect.map(
                deliveries.claimDue({ now: era(DELIVERIES), limit: BATCH, leaseToken, leasedUntil: era(10_000) }),
                (items) => ({ leaseToken, items })
              )
            ),
            { concurrency: "unbounded" }
          )

          const ids = leased.flatMap(({ items }) => items.map((item) => item.delivery.id))
          expect(leased.every(({ items }) => items.length <= BATCH)).toBe(true)
          expect(ids).toHaveLength(DELIVERIES)
          expect(new Set(ids).size).toBe(DELIVERIES)
          expect([...ids].sort()).toStrictEqual(due.map((delivery) => delivery.id).sort())

          // Each worker holds the lease on what it was given: its attempts are all recorded.
          const recorded = yield* Effect.all(
            leased.flatMap(({ items, leaseToken }) =>
              items.map((item) =>
                deliveries.recordAttempt({
                  deliveryId: item.delivery.id,
                  leaseToken,
                  attempt: anAttempt(1, { status: "succeeded", at: era(DELIVERIES + 1) }),
                  status: "succeeded",
                  nextAttemptAt: null
                })
              )
            ),
            { concurrency: WORKERS }
          )
          expect(recorded.every((done) => done)).toBe(true)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("two fan-outs at once never take the same event: the second gets none while the first holds the outbox", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        const unitOfWork = yield* UnitOfWork
        yield* dispatchEverything
        const organization = yield* givenOrganization()
        const events = Array.from({ length: 40 }, (_, n) => anEvent(organization.id, "tag.subscribed", { n }))
        yield* outbox.record(events)
        yield* claimedOnceSettled(events.length, events)

        const firstClaimed = yield* Deferred.make<void>()
        const secondDone = yield* Deferred.make<void>()
        const fanOut = (claimed: Effect.Effect<void>, beforeMarking: Effect.Effect<void>) =>
          unitOfWork.transaction(Effect.gen(function*() {
            const taken = yield* outbox.claimUndispatched(20)
            yield* claimed
            yield* beforeMarking
            if (taken.length > 0) yield* outbox.markDispatchedThrough(taken[taken.length - 1]!.id, instant(1))
            return taken
          }))

        // The first holds the outbox until the second has claimed and committed.
        const first = yield* Effect.fork(fanOut(Deferred.succeed(firstClaimed, undefined), Deferred.await(secondDone)))
        yield* Deferred.await(firstClaimed)
        const second = yield* fanOut(Effect.void, Effect.void).pipe(
          Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the second fan-out waited for the first") }),
          Effect.orDie
        )
        yield* Deferred.succeed(secondDone, undefined)
        const taken = yield* Fiber.join(first)

        expect(taken).toStrictEqual(events.slice(0, 20))
        expect(second).toStrictEqual([])
        // What the first did not take is the next claim's.
        expect(yield* outbox.claimUndispatched(40)).toStrictEqual(events.slice(20))
      }))

    it.effect("subscriber slots of one organization are reserved side by side: none waits for another's transaction", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization({ tier: "pro" })
        yield* organizations.reserveSubscriberSlots(organization.id, 1, 100_000) // shares the room out
        const held = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const reserve = unitOfWork.transaction(organizations.reserveSubscriberSlots(organization.id, 1, 100_000))
        const first = yield* Effect.fork(unitOfWork.transaction(Effect.gen(function*() {
          const reserved = yield* organizations.reserveSubscriberSlots(organization.id, 1, 100_000)
          yield* Deferred.succeed(held, undefined)
          yield* Deferred.await(release)
          return reserved
        })))
        yield* Deferred.await(held)
        // Three more, each in its own transaction, while the first still holds its own open.
        const others = yield* Effect.all([reserve, reserve, reserve], { concurrency: "unbounded" }).pipe(
          Effect.zipLeft(Deferred.succeed(release, undefined)),
          Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("a reservation waited for another's transaction") }),
          Effect.orDie
        )
        expect([yield* Fiber.join(first), ...others]).toStrictEqual([true, true, true, true])
        const count = Option.getOrThrow(yield* organizations.findById(organization.id)).subscriberCount
        expect(count).toBe(5)
      }))

    it.effect("emails counted in an open transaction hold up no other sender of the organization, and stay counted", () =>
      Effect.gen(function*() {
        const usage = yield* EmailUsage
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const counted = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          // A sequence batch: it counts its emails, then goes on with its transaction, which fails.
          const batch = yield* Effect.fork(unitOfWork.transaction(Effect.gen(function*() {
            const reserved = yield* usage.reserve(organization.id, "2026-11", 6, 10)
            yield* Deferred.succeed(counted, undefined)
            yield* Deferred.await(release)
            return yield* Effect.fail(reserved)
          })))
          yield* Deferred.await(counted)
          // Two other senders, while the batch still holds its transaction open: the first fits, the second would pass 10.
          const others = yield* Effect.all([
            unitOfWork.transaction(usage.reserve(organization.id, "2026-11", 4, 10)),
            usage.reserve(organization.id, "2026-11", 1, 10)
          ]).pipe(
            Effect.zipLeft(Deferred.succeed(release, undefined)),
            Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("a reservation waited for another's transaction") }),
            Effect.orDie
          )
          expect(others).toStrictEqual([true, false])
          expect(yield* Effect.flip(Fiber.join(batch))).toBe(true)
          // The rolled-back batch gives back what it knows it did not queue; until then its emails count.
          expect(yield* usage.sentIn(organization.id, "2026-11")).toBe(10)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("reservations made while a rebalance holds every row wait for it, then count on its rows without rebalancing again", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const organizations = yield* OrganizationRepository
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization({ tier: "pro" })
        yield* organizations.reserveSubscriberSlots(organization.id, 1, 1_000) // shares the room out
        const allowances = sql`
          SELECT shard, allowance FROM organization_subscriber_slots WHERE organization_id = ${organization.id} ORDER BY shard`
        const shared = yield* allowances
        expect(shared).toHaveLength(16)

        // What a rebalance holds: the organization's row and every slot row.
        const held = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const rebalance = yield* Effect.fork(unitOfWork.transaction(Effect.gen(function*() {
          yield* sql`SELECT id FROM organizations WHERE id = ${organization.id} FOR NO KEY UPDATE`
          yield* sql`SELECT shard FROM organization_subscriber_slots WHERE organization_id = ${organization.id} FOR UPDATE`
          yield* Deferred.succeed(held, undefined)
          yield* Deferred.await(release)
        })))
        yield* Deferred.await(held)
        const reserve = unitOfWork.transaction(organizations.reserveSubscriberSlots(organization.id, 1, 1_000))
        const reservations = yield* Effect.fork(Effect.all(Array.from({ length: 6 }, () => reserve), { concurrency: "unbounded" }))
        yield* Effect.sleep("300 millis")
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(rebalance)

        expect(yield* Fiber.join(reservations)).toStrictEqual([true, true, true, true, true, true])
        expect(Option.getOrThrow(yield* organizations.findById(organization.id)).subscriberCount).toBe(7)
        // No reservation shared the room out again: every row keeps the allowance it was given.
        expect(yield* allowances).toStrictEqual(shared)
      }))

    it.effect("at the limit, a reservation says no without waiting for the organization's row, and yes again once there is room", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const unitOfWork = yield* UnitOfWork
        const sql = yield* SqlClient.SqlClient
        const organization = yield* givenOrganization({ tier: "free" })
        expect(yield* organizations.reserveSubscriberSlots(organization.id, 100, 100)).toBe(true)
        // What a rebalance holds while it counts.
        const held = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const rebalance = yield* Effect.fork(unitOfWork.transaction(Effect.gen(function*() {
          yield* sql`SELECT id FROM organizations WHERE id = ${organization.id} FOR NO KEY UPDATE`
          yield* Deferred.succeed(held, undefined)
          yield* Deferred.await(release)
        })))
        yield* Deferred.await(held)
        const reserve = unitOfWork.transaction(organizations.reserveSubscriberSlots(organization.id, 1, 100))
        const refused = yield* Effect.all([reserve, reserve, reserve], { concurrency: "unbounded" }).pipe(
          Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("a reservation at the limit waited for the organization's row") }),
          Effect.orDie
        )
        expect(refused).toStrictEqual([false, false, false])
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(rebalance)

        yield* organizations.releaseSubscriberSlots(organization.id, 2)
        expect(yield* reserve).toBe(true)
        expect(yield* reserve).toBe(true)
        expect(yield* reserve).toBe(false)
        expect(Option.getOrThrow(yield* organizations.findById(organization.id)).subscriberCount).toBe(100)
      }))

    it.effect("of 200 concurrent reservations at the edge of a limit of 1,000, exactly the room left is granted", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization({ tier: "free" })
        yield* organizations.reserveSubscriberSlots(organization.id, 960, 1_000)
        const granted = yield* Effect.all(
          Array.from({ length: 200 }, () => unitOfWork.transaction(organizations.reserveSubscriberSlots(organization.id, 1, 1_000))),
          // As many at once as the pool has connections: more would wait for one, on a busy machine
          // past the time a statement may wait, which is the pool's test and not this one's.
          { concurrency: 10 }
        )
        expect(granted.filter(Boolean)).toHaveLength(40)
        expect(Option.getOrThrow(yield* organizations.findById(organization.id)).subscriberCount).toBe(1_000)
      }))
  })
