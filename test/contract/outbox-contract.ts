import { expect, layer } from "@effect/vitest"
import { Outbox, UnitOfWork, WebhookDeliveryRepository } from "@roster/application"
import { DomainEvent, EventId, OrganizationId, SubscriberId } from "@roster/domain"
import { Effect, Exit, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import {
  aDelivery,
  anEraOfItsOwn,
  anEvent,
  deletingAfterwards,
  givenEndpoint,
  givenOrganization,
  instant,
  type PersistenceLayer
} from "./fixtures.js"

/** Claims up to `limit` events and marks them dispatched, in one transaction, as a dispatcher does. */
export const dispatchBatch = (limit: number) =>
  Effect.flatMap(Effect.all([Outbox, UnitOfWork]), ([outbox, unitOfWork]) =>
    unitOfWork.transaction(Effect.gen(function*() {
      const events = yield* outbox.claimUndispatched(limit)
      if (events.length > 0) yield* outbox.markDispatchedThrough(events[events.length - 1]!.id, instant(0))
      return events
    })))

/**
 * What claims of `limit` answer once every transaction older than the test's own has ended: an
 * event waits while one is open, and other files' tests write to the same server at the same time.
 * Claims again until the answer is `expected`, for at most ten seconds, and answers the last.
 */
const idsOf = (events: ReadonlyArray<DomainEvent>) => events.map((event) => event.id).join()

export const claimedOnceSettled = (limit: number, expected: ReadonlyArray<DomainEvent>) =>
  Effect.flatMap(Outbox, (outbox) =>
    outbox.claimUndispatched(limit).pipe(
      Effect.filterOrFail((claimed) => idsOf(claimed) === idsOf(expected), (claimed) => claimed),
      Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("10 seconds"))),
      Effect.merge
    ))

/**
 * Dispatches every event recorded so far, whoever recorded it, so that a test's claims see only
 * the events it records next: records a last event of its own and dispatches until that one is
 * gone too. The outbox is one queue for every organization; the tests of a file run one after
 * another, and no other file claims from its database.
 */
export const dispatchEverything: Effect.Effect<void, never, Outbox | UnitOfWork> = Effect.gen(function*() {
  const fence = anEvent(OrganizationId.make(randomUUID()), "subscriber.deleted")
  yield* (yield* Outbox).record([fence])
  yield* dispatchBatch(5_000).pipe(
    Effect.filterOrFail((events) => events.some((event) => event.id === fence.id)),
    Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("10 seconds"))),
    Effect.orDie
  )
})

export const outboxContract = (persistence: PersistenceLayer) =>
  // On the live clock: an event waits, for real, while an older transaction is open.
  layer(persistence, { excludeTestServices: true })("Outbox", (it) => {
    it.effect("answers an organization's events in the order they were recorded", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        const first = anEvent(organization.id, "subscriber.created", {
          subscriber: { id: "s1", first_name: null, metadata: { camel_case: false, list: [1, "two", { three: 3 }] } }
        })
        const batch = [
          anEvent(organization.id, "tag.subscribed"),
          anEvent(other.id, "subscriber.deleted"),
          anEvent(organization.id, "tag.unsubscribed"),
          anEvent(organization.id, "subscriber.updated")
        ]
        yield* outbox.record([first])
        yield* outbox.record(batch)
        yield* outbox.record([])
        const last = anEvent(organization.id, "subscriber.deleted")
        yield* outbox.record([last])

        expect(yield* outbox.recorded(organization.id)).toStrictEqual([
          first,
          batch[0],
          batch[2],
          batch[3],
          last
        ])
        expect(yield* outbox.recorded(other.id)).toStrictEqual([batch[1]])
      }))

    it.effect("answers the events about one subscriber, by their data's subscriber id, in order", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        const organization = yield* givenOrganization()
        const [ada, grace] = [randomUUID(), randomUUID()]
        const about = (id: string, type: Parameters<typeof anEvent>[1]) =>
          anEvent(organization.id, type, { subscriber: { id, email: "x@example.com" }, tag: { id: "t" } })
        const created = about(ada, "subscriber.created")
        const other = about(grace, "subscriber.created")
        const tagged = about(ada, "tag.subscribed")
        const noSubscriber = anEvent(organization.id, "subscriber.deleted", { subscriber: "not an object" })
        const elsewhere = anEvent((yield* givenOrganization()).id, "subscriber.updated", { subscriber: { id: ada } })
        yield* outbox.record([created, other, noSubscriber, tagged, elsewhere])
        expect(yield* outbox.recordedAbout(organization.id, SubscriberId.make(ada))).toStrictEqual([created, tagged])
        expect(yield* outbox.recordedAbout(organization.id, SubscriberId.make(randomUUID()))).toStrictEqual([])
      }))

    it.effect("answers the events about one subscriber newest first, a page at a time before one of theirs", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        const organization = yield* givenOrganization()
        const [ada, grace] = [randomUUID(), randomUUID()]
        const about = (id: string, n: number) =>
          anEvent(organization.id, n === 0 ? "subscriber.created" : "subscriber.updated", { subscriber: { id }, n })
        const theirs = Array.from({ length: 7 }, (_, n) => about(ada, n))
        const others = about(grace, 0)
        const elsewhere = anEvent((yield* givenOrganization()).id, "subscriber.updated", { subscriber: { id: ada } })
        // Recorded in two batches, with another subscriber's and another organization's between them.
        yield* outbox.record([...theirs.slice(0, 3), others, elsewhere])
        yield* outbox.record(theirs.slice(3))
        const page = (before: EventId | undefined, limit: number) =>
          outbox.recordedAboutNewestFirst(organization.id, SubscriberId.make(ada), { before, limit })
        const newestFirst = [...theirs].reverse()

        expect(yield* page(undefined, 3)).toStrictEqual(newestFirst.slice(0, 3))
        expect(yield* page(newestFirst[2]!.id, 3)).toStrictEqual(newestFirst.slice(3, 6))
        expect(yield* page(newestFirst[5]!.id, 3)).toStrictEqual(newestFirst.slice(6))
        expect(yield* page(newestFirst[6]!.id, 3)).toStrictEqual([])
        expect(yield* page(undefined, 100)).toStrictEqual(newestFirst)
        expect(yield* page(undefined, 0)).toStrictEqual([])
        // A position that is not one of their events answers none: another's, another organization's, or none at all.
        expect(yield* page(others.id, 3)).toStrictEqual([])
        expect(yield* page(elsewhere.id, 3)).toStrictEqual([])
        expect(yield* page(EventId.make(randomUUID()), 3)).toStrictEqual([])
        expect(
          yield* outbox.recordedAboutNewestFirst(organization.id, SubscriberId.make(randomUUID()), { before: undefined, limit: 3 })
        ).toStrictEqual([])
      }))

    it.effect("finds the organization's events by their ids, in the order recorded", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        const organization = yield* givenOrganization()
        const [first, second, third] = [anEvent(organization.id), anEvent(organization.id, "tag.subscribed"), anEvent(organization.id)]
        const elsewhere = anEvent((yield* givenOrganization()).id)
        yield* outbox.record([first, second, elsewhere])
        yield* outbox.record([third])
        expect(yield* outbox.findByIds(organization.id, [third.id, first.id, elsewhere.id, EventId.make(randomUUID())])).toStrictEqual([
          first,
          third
        ])
        expect(yield* outbox.findByIds(organization.id, [])).toStrictEqual([])
      }))

    it.effect("answers the status moves to the given statuses newest first, a page at a time before one of them", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        const organization = yield* givenOrganization()
        const moved = (status: string, changed: ReadonlyArray<string> = ["status"]) =>
          anEvent(organization.id, "subscriber.updated", { subscriber: { id: randomUUID(), status }, changed })
        const [bounced, complained, later] = [moved("bounced"), moved("complained"), moved("bounced")]
        const notMoves = [
          moved("bounced", ["metadata"]),
          moved("active"),
          anEvent(organization.id, "subscriber.created", { subscriber: { id: randomUUID(), status: "bounced" }, changed: ["status"] }),
          anEvent(organization.id, "subscriber.updated", { subscriber: { id: randomUUID() } })
        ]
        const elsewhere = anEvent((yield* givenOrganization()).id, "subscriber.updated", {
          subscriber: { id: randomUUID(), status: "bounced" },
          changed: ["status"]
        })
        yield* outbox.record([bounced, ...notMoves, elsewhere, complained])
        yield* outbox.record([later])
        const page = (before: EventId | undefined, limit: number, statuses: ReadonlyArray<"bounced" | "complained"> = ["bounced", "complained"]) =>
          outbox.statusMovesNewestFirst(organization.id, statuses, { before, limit })

        expect(yield* page(undefined, 10)).toStrictEqual([later, complained, bounced])
        expect(yield* page(undefined, 2)).toStrictEqual([later, complained])
        expect(yield* page(complained.id, 2)).toStrictEqual([bounced])
        expect(yield* page(bounced.id, 2)).toStrictEqual([])
        expect(yield* page(undefined, 10, ["complained"])).toStrictEqual([complained])
        expect(yield* page(undefined, 10, [])).toStrictEqual([])
        expect(yield* page(undefined, 0)).toStrictEqual([])
        // A position that is not one of these moves answers none.
        expect(yield* page(notMoves[0]!.id, 3)).toStrictEqual([])
        expect(yield* page(elsewhere.id, 3)).toStrictEqual([])
        expect(yield* page(EventId.make(randomUUID()), 3)).toStrictEqual([])
      }))

    it.effect("forgets a subscriber: their events keep only their id, other events stay as they were", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        const organization = yield* givenOrganization()
        const [ada, grace] = [randomUUID(), randomUUID()]
        const created = anEvent(organization.id, "subscriber.created", { subscriber: { id: ada, email: "ada@example.com" } })
        const tagged = anEvent(organization.id, "tag.subscribed", {
          subscriber: { id: ada, email: "ada@example.com" },
          tag: { id: "t", name: "News" }
        })
        const noted = anEvent(organization.id, "subscriber.note_added", {
          subscriber: { id: ada, email: "ada@example.com" },
          note: { id: "n", body: "Ada asked for a refund" }
        })
        const other = anEvent(organization.id, "subscriber.created", { subscriber: { id: grace, email: "grace@example.com" } })
        yield* outbox.record([created, tagged, noted, other])
        expect(yield* outbox.forgetSubscriber(organization.id, SubscriberId.make(ada))).toBe(3)
        // A note about them is about them too: it keeps only its id.
        expect((yield* outbox.recordedAbout(organization.id, SubscriberId.make(ada))).map((event) => event.data)).toStrictEqual([
          { subscriber: { id: ada } },
          { subscriber: { id: ada }, tag: { id: "t", name: "News" } },
          { subscriber: { id: ada }, note: { id: "n" } }
        ])
        expect(yield* outbox.recordedAbout(organization.id, SubscriberId.make(grace))).toStrictEqual([other])
        expect(yield* outbox.forgetSubscriber(organization.id, SubscriberId.make(ada))).toBe(0)
      }))

    it.effect("records a batch larger than one statement can carry, in order", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        const organization = yield* givenOrganization()
        const many = Array.from({ length: 14_000 }, (_, i) => anEvent(organization.id, "tag.unsubscribed", { n: i }))
        yield* outbox.record(many)
        const recorded = yield* outbox.recorded(organization.id)
        expect(recorded.map((event) => event.data.n)).toStrictEqual(many.map((_, i) => i))
      }), 60_000)

    it.effect("keeps events apart from the organizations they describe", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        // Events outlive what they describe: no organization row is needed.
        const event = anEvent(OrganizationId.make(randomUUID()), "subscriber.deleted")
        yield* outbox.record([event])
        expect(yield* outbox.recorded(event.organizationId)).toStrictEqual([event])
      }))

    it.effect("hands out undispatched events of every organization oldest first, until they are marked dispatched", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        yield* dispatchEverything
        const [organization, other] = [yield* givenOrganization(), yield* givenOrganization()]
        const events = [
          anEvent(organization.id, "subscriber.created", { n: 0 }),
          anEvent(other.id, "tag.subscribed", { n: 1 }),
          anEvent(organization.id, "subscriber.updated", { n: 2 })
        ]
        yield* outbox.record(events.slice(0, 2))
        yield* outbox.record(events.slice(2))
        const later = anEvent(organization.id, "subscriber.deleted", { n: 3 })
        yield* outbox.record([later])

        expect(yield* claimedOnceSettled(2, events.slice(0, 2))).toStrictEqual(events.slice(0, 2))
        // Outside a transaction nothing stays claimed: the same events come again.
        expect(yield* claimedOnceSettled(10, [...events, later])).toStrictEqual([...events, later])

        yield* outbox.markDispatchedThrough(events[1]!.id, instant(5))
        expect(yield* outbox.claimUndispatched(10)).toStrictEqual([events[2], later])
        // The mark never moves back.
        yield* outbox.markDispatchedThrough(events[0]!.id, instant(6))
        expect(yield* outbox.claimUndispatched(10)).toStrictEqual([events[2], later])
        yield* outbox.markDispatchedThrough(later.id, instant(6))
        expect(yield* outbox.claimUndispatched(10)).toStrictEqual([])
        expect(yield* outbox.claimUndispatched(0)).toStrictEqual([])
        // An id the outbox never recorded marks nothing.
        const unmarked = anEvent(other.id, "tag.subscribed")
        yield* outbox.record([unmarked])
        yield* outbox.markDispatchedThrough(EventId.make(randomUUID()), instant(7))
        expect(yield* claimedOnceSettled(10, [unmarked])).toStrictEqual([unmarked])

        // Dispatched events are still the organization's record.
        expect(yield* outbox.recorded(organization.id)).toStrictEqual([events[0], events[2], later])
      }))

    it.effect("forgets dispatched events that occurred before a moment once no delivery refers to them", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const occurred = (event: DomainEvent, second: number) => new DomainEvent({ ...event, occurredAt: era(second) })
          const [old, delivered, recent, waiting] = [
            occurred(anEvent(organization.id, "subscriber.created", { n: 0 }), 10),
            occurred(anEvent(organization.id, "subscriber.updated", { n: 1 }), 10),
            occurred(anEvent(organization.id, "subscriber.deleted", { n: 2 }), 100),
            occurred(anEvent(organization.id, "tag.subscribed", { n: 3 }), 10)
          ]
          yield* outbox.record([old, delivered, recent, waiting])
          yield* outbox.markDispatchedThrough(recent.id, era(100))
          const endpoint = yield* givenEndpoint(organization.id)
          yield* (yield* WebhookDeliveryRepository).insertMany([
            aDelivery(endpoint, delivered, { status: "succeeded", createdAt: era(11) })
          ])

          expect(yield* outbox.pruneDispatched(era(50), 1_000)).toBeGreaterThanOrEqual(1)
          expect(yield* outbox.recorded(organization.id)).toStrictEqual([delivered, recent, waiting])
          expect(yield* outbox.pruneDispatched(era(50), 0)).toBe(0)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("dispatchers working at once take every event exactly once", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        yield* dispatchEverything
        const organization = yield* givenOrganization()
        const events = Array.from({ length: 60 }, (_, n) => anEvent(organization.id, "tag.subscribed", { n }))
        yield* outbox.record(events)
        yield* claimedOnceSettled(events.length, events)

        // A claim may answer nothing while another file's transaction is open (see claimedOnceSettled):
        // a dispatcher stops once all were taken, or after ten seconds, which only catches a hang.
        let takenInAll = 0
        const until = Date.now() + 10_000
        const dispatcher: Effect.Effect<ReadonlyArray<DomainEvent>, never, Outbox | UnitOfWork> = Effect.flatMap(
          dispatchBatch(7),
          (taken) => {
            takenInAll += taken.length
            if (taken.length > 0) return Effect.map(dispatcher, (rest) => [...taken, ...rest])
            return takenInAll >= events.length || Date.now() > until ? Effect.succeed([]) : Effect.zipRight(Effect.promise(() => new Promise((resume) => setTimeout(resume, 20))), dispatcher)
          }
        )
        const taken = (yield* Effect.all(Array.from({ length: 4 }, () => dispatcher), { concurrency: "unbounded" })).flat()

        expect(taken).toHaveLength(events.length)
        expect(taken.map((event) => event.data.n).sort((a, b) => Number(a) - Number(b))).toStrictEqual(
          events.map((event) => event.data.n)
        )
        expect(yield* outbox.claimUndispatched(10)).toStrictEqual([])
      }))

    it.effect("a claim in a transaction that fails leaves its events undispatched", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        yield* dispatchEverything
        const organization = yield* givenOrganization()
        const events = [anEvent(organization.id), anEvent(organization.id, "subscriber.note_added")]
        yield* outbox.record(events)
        yield* claimedOnceSettled(10, events)

        const exit = yield* (yield* UnitOfWork).transaction(Effect.gen(function*() {
          const claimed = yield* outbox.claimUndispatched(10)
          yield* outbox.markDispatchedThrough(claimed[claimed.length - 1]!.id, instant(1))
          return yield* Effect.fail("the fan-out failed")
        })).pipe(Effect.exit)

        expect(exit).toStrictEqual(Exit.fail("the fan-out failed"))
        expect(yield* outbox.claimUndispatched(10)).toStrictEqual(events)
        expect(yield* dispatchBatch(10)).toStrictEqual(events)
      }))
  })
