import { assert, expect, layer } from "@effect/vitest"
import { OutgoingMail, SegmentAudience, SegmentRepository, SubscriberRepository, TagAssignments } from "@roster/application"
import {
  type EngagementFacts,
  type FilterNode,
  matchesFilter,
  type MessageEventType,
  noEngagement,
  OrganizationId,
  Segment,
  SegmentFilter,
  SegmentId,
  type Subscriber,
  type SubscriberStatus,
  type Tag
} from "@roster/domain"
import { Effect, FastCheck as fc, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { deletingAfterwards, givenOrganization, givenSubscriber, givenTag, instant, type PersistenceLayer } from "./fixtures.js"
import { givenMessage } from "./mail-fixtures.js"

const DAY = 86_400_000
/** The instant every filter is evaluated at: 100 days into the story. */
const now = new Date(instant(0).getTime() + 100 * DAY)
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY)

const decodeFilter = Schema.decodeUnknownSync(SegmentFilter)

interface Person {
  readonly email: string
  readonly status: SubscriberStatus
  readonly metadata: Record<string, unknown>
  readonly createdAt: Date
  readonly tags: ReadonlyArray<"t1" | "t2" | "t3">
  /** Events of the email sent to them, each on a message of its own after a `queued` one. */
  readonly events: ReadonlyArray<readonly [MessageEventType, Date]>
}

/** Six subscribers whose differences every operator tells apart. */
const people: Readonly<Record<string, Person>> = {
  ada: {
    email: "ada@example.com",
    status: "active",
    metadata: { plan: "pro", seats: 5, renews: "2025-03-01", interests: ["news", "ai"], note: "VIP customer", nested: { tier: "gold" } },
    createdAt: instant(10),
    tags: ["t1"],
    events: [["sent", daysAgo(3)], ["opened", daysAgo(2)]]
  },
  bob: {
    email: "Bob@Example.org",
    status: "unsubscribed",
    metadata: { plan: "free", seats: "5", renews: "2025-02-30", interests: "news", nested: { tier: ["gold"] } },
    createdAt: instant(20),
    tags: ["t1", "t2"],
    events: [["sent", daysAgo(11)], ["clicked", daysAgo(10)]]
  },
  cyd: {
    email: "cyd@sub.example.com",
    status: "bounced",
    metadata: { plan: ["pro"], seats: 5.5, renews: "2025-03-01T01:00:00+02:00", interests: [["news"]] },
    createdAt: instant(30),
    tags: [],
    events: [["sent", daysAgo(40)]]
  },
  dee: {
    email: "dee@example.org",
    status: "active",
    metadata: { plan: null, nested: { tier: "silver" }, renews: "not a date", note: "vip" },
    createdAt: instant(40),
    tags: ["t2", "t3"],
    events: [["delivered", daysAgo(1)]]
  },
  eve: {
    email: "EVE@shop.example.com",
    status: "complained",
    metadata: {},
    createdAt: instant(50),
    tags: ["t3"],
    events: []
  },
  fay: {
    email: "fay+news@example.com",
    status: "active",
    metadata: { seats: 12, renews: "2024-12-31T23:59:59.999Z", interests: [5, "5"] },
    createdAt: instant(60),
    tags: [],
    events: [["queued", daysAgo(0)]]
  }
}

/** The engagement facts of a person, by the rules the port documents. */
const engagementOf = (person: Person): EngagementFacts => {
  const last = (types: ReadonlyArray<MessageEventType>) =>
    person.events.filter(([type]) => types.includes(type)).map(([, at]) => at).sort((a, b) => b.getTime() - a.getTime())[0] ?? null
  return {
    ...noEngagement,
    lastOpenedAt: last(["opened", "clicked"]),
    lastClickedAt: last(["clicked"]),
    lastReceivedAt: last(["sent", "delivered", "opened", "clicked"])
  }
}

interface World {
  readonly organizationId: OrganizationId
  /** A subscriber of another organization. */
  readonly stranger: Subscriber["id"]
  readonly tags: Readonly<Record<"t1" | "t2" | "t3", Tag>>
  readonly subscribers: Readonly<Record<string, Subscriber>>
  /** Names by subscriber id. */
  readonly names: ReadonlyMap<string, string>
}

const givenWorld = Effect.gen(function*() {
  const organization = yield* givenOrganization()
  const organizationId = organization.id
  const outgoing = yield* OutgoingMail
  const assignments = yield* TagAssignments
  const tags = {
    t1: yield* givenTag(organizationId, { name: "t1" }),
    t2: yield* givenTag(organizationId, { name: "t2" }),
    t3: yield* givenTag(organizationId, { name: "t3" })
  }
  const subscribers: Record<string, Subscriber> = {}
  for (const [name, person] of Object.entries(people)) {
    const subscriber = yield* givenSubscriber(organizationId, {
      email: person.email,
      status: person.status,
      metadata: person.metadata,
      createdAt: person.createdAt
    })
    subscribers[name] = subscriber
    if (person.tags.length > 0) yield* assignments.attach(organizationId, subscriber.id, person.tags.map((t) => tags[t].id), instant(70), null)
    for (const [type, at] of person.events) {
      const message = yield* givenMessage(subscriber, { createdAt: at })
      if (type !== "queued") {
        yield* outgoing.recordReport(message.id, { type, occurredAt: at, detail: null, key: randomUUID() }, (s) => s)
      }
    }
  }
  // Another organization's look-alike never matches.
  const other = yield* givenOrganization()
  const stranger = yield* givenSubscriber(other.id, { email: "ada@example.com", metadata: people.ada!.metadata })
  const names = new Map(Object.entries(subscribers).map(([name, s]) => [s.id as string, name]))
  return { organizationId, tags, subscribers, names, stranger: stranger.id, organizations: [organizationId, other.id] }
})

/** Who matches in the adapter, by name in id order, and how many it counts. */
const matchingNames = (world: World, filter: FilterNode) =>
  Effect.gen(function*() {
    const audience = yield* SegmentAudience
    const page = yield* audience.page(world.organizationId, filter, now, { limit: 100 })
    const count = yield* audience.count(world.organizationId, filter, now)
    return { names: page.map((s) => world.names.get(s.id) ?? `stranger ${s.id}`), count }
  })

/** Who matches by the domain's evaluator, by name in id order. */
const expectedNames = (world: World, filter: FilterNode): ReadonlyArray<string> =>
  Object.entries(world.subscribers)
    .filter(([name, subscriber]) =>
      matchesFilter(filter, {
        subscriber,
        tagIds: new Set(people[name]!.tags.map((t) => world.tags[t].id)),
        engagement: engagementOf(people[name]!)
      }, now))
    .sort(([, a], [, b]) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
    .map(([name]) => name)

const byName = (names: ReadonlyArray<string>, world: World) =>
  [...names].sort((a, b) => world.subscribers[a]!.id < world.subscribers[b]!.id ? -1 : 1)

/** Filters with the people they match; `tag:t1` stands for the tag's id. */
const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<string>]> = [
  [{ field: "status", op: "eq", value: "active" }, ["ada", "dee", "fay"]],
  [{ field: "status", op: "not_in", value: ["active", "bounced"] }, ["bob", "eve"]],
  [{ field: "tags", op: "has_any", value: ["tag:t1", "tag:t3"] }, ["ada", "bob", "dee", "eve"]],
  [{ field: "tags", op: "has_all", value: ["tag:t1", "tag:t2", "tag:t1"] }, ["bob"]],
  [{ field: "tags", op: "has_none", value: ["tag:t1", "tag:t2"] }, ["cyd", "eve", "fay"]],
  [{ field: "email", op: "eq", value: "BOB@example.ORG" }, ["bob"]],
  [{ field: "email", op: "domain", value: "example.com" }, ["ada", "fay"]],
  [{ field: "email", op: "ends_with", value: "example.com" }, ["ada", "cyd", "eve", "fay"]],
  [{ field: "email", op: "contains", value: "+news" }, ["fay"]],
  [{ field: "email", op: "starts_with", value: "E" }, ["eve"]],
  [{ field: "created_at", op: "between", value: ["2025-01-01T00:00:20Z", "2025-01-01T00:00:50Z"] }, ["bob", "cyd", "dee"]],
  [{ field: "created_at", op: "lte", value: "2025-01-01T00:00:20Z" }, ["ada", "bob"]],
  [{ field: "metadata.plan", op: "eq", value: "pro" }, ["ada"]],
  [{ field: "metadata.plan", op: "neq", value: "pro" }, ["bob", "cyd", "dee", "eve", "fay"]],
  [{ field: "metadata.nested.tier", op: "eq", value: "gold" }, ["ada"]],
  [{ field: "metadata.seats", op: "eq", value: 5 }, ["ada"]],
  [{ field: "metadata.plan", op: "exists" }, ["ada", "bob", "cyd", "dee"]],
  [{ field: "metadata.nested.tier.x", op: "not_exists" }, ["ada", "bob", "cyd", "dee", "eve", "fay"]],
  [{ field: "metadata.interests", op: "contains", value: "news" }, ["ada", "bob"]],
  [{ field: "metadata.interests", op: "contains", value: 5 }, ["fay"]],
  [{ field: "metadata.note", op: "contains", value: "VIP" }, ["ada"]],
  [{ field: "metadata.seats", op: "gt", value: 5 }, ["cyd", "fay"]],
  [{ field: "metadata.seats", op: "lte", value: 5.5 }, ["ada", "cyd"]],
  [{ field: "metadata.renews", op: "gte", value: "2025-03-01" }, ["ada"]],
  [{ field: "metadata.renews", op: "lt", value: "2025-03-01T00:00:00Z" }, ["cyd", "fay"]],
  [{ field: "engagement.opened_days", op: "within", value: 10 }, ["ada", "bob"]],
  [{ field: "engagement.opened_days", op: "within", value: 9 }, ["ada"]],
  [{ field: "engagement.clicked_days", op: "within", value: 30 }, ["bob"]],
  [{ field: "engagement.received_days", op: "within", value: 30 }, ["ada", "bob", "dee"]],
  [{ field: "engagement.received_days", op: "not_within", value: 30 }, ["cyd", "eve", "fay"]],
  [{ all: [] }, ["ada", "bob", "cyd", "dee", "eve", "fay"]],
  [{ any: [] }, []],
  [{
    all: [
      { field: "tags", op: "has_any", value: ["tag:t1"] },
      { field: "metadata.plan", op: "eq", value: "pro" },
      { not: { field: "email", op: "ends_with", value: "@example.org" } }
    ]
  }, ["ada"]],
  [{ any: [{ not: { field: "status", op: "eq", value: "active" } }, { field: "metadata.seats", op: "gt", value: 10 }] }, ["bob", "cyd", "eve", "fay"]]
]

/** Puts the world's tag ids where a case says `tag:t1`. */
const withTagIds = (world: World, u: unknown): unknown =>
  typeof u === "string" && u.startsWith("tag:")
    ? world.tags[u.slice(4) as "t1"].id
    : Array.isArray(u)
    ? u.map((x) => withTagIds(world, x))
    : typeof u === "object" && u !== null
    ? Object.fromEntries(Object.entries(u).map(([k, v]) => [k, withTagIds(world, v)]))
    : u

/** Every condition of the cases, the leaves random filters are built of. */
const leaves = cases.map(([filter]) => filter).filter((f) => typeof f === "object" && f !== null && "field" in f)

const randomFilters = (count: number, seed: number): ReadonlyArray<unknown> => {
  const tree = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom(...leaves),
      fc.array(tie("node"), { maxLength: 4 }).map((all) => ({ all })),
      fc.array(tie("node"), { maxLength: 4 }).map((any) => ({ any })),
      tie("node").map((not) => ({ not }))
    )
  })).node
  return fc.sample(tree, { numRuns: count, seed })
}

export const segmentContract = (persistence: PersistenceLayer) =>
  layer(persistence)("SegmentRepository and SegmentAudience", (it) => {
    it.effect("stores segments, finds them within their organization, lists them oldest first and deletes them", () =>
      Effect.gen(function*() {
        const segments = yield* SegmentRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const make = (name: string, at: Date) =>
            new Segment({
              id: SegmentId.make(randomUUID()),
              organizationId: organization.id,
              name,
              description: null,
              filter: decodeFilter({ all: [{ field: "metadata.plan", op: "eq", value: "pro" }, { not: { field: "status", op: "eq", value: "bounced" } }] }),
              createdAt: at,
              updatedAt: at
            })
          const late = make("Late", instant(9))
          const early = make("Early", instant(1))
          yield* segments.insert(late)
          yield* segments.insert(early)
          expect(yield* segments.findById(organization.id, early.id)).toStrictEqual(Option.some(early))
          assert.isTrue(Option.isNone(yield* segments.findById(OrganizationId.make(randomUUID()), early.id)))
          expect(yield* segments.organizationOf(early.id)).toStrictEqual(Option.some(organization.id))
          assert.isTrue(Option.isNone(yield* segments.organizationOf(SegmentId.make(randomUUID()))))
          expect(yield* segments.list({ organizationId: organization.id, limit: 10 })).toStrictEqual([early, late])
          expect(yield* segments.list({ organizationId: organization.id, limit: 10, offset: 1 })).toStrictEqual([late])
          expect(yield* segments.list({ organizationId: organization.id, limit: 10, after: { value: early.createdAt.toISOString(), id: early.id } }))
            .toStrictEqual([late])
          expect(yield* segments.count(organization.id)).toBe(2)

          const changed = new Segment({ ...early, name: "Renamed", description: "d", filter: decodeFilter({ any: [] }), updatedAt: instant(20) })
          yield* segments.update(changed)
          expect(yield* segments.findById(organization.id, early.id)).toStrictEqual(Option.some(changed))
          yield* segments.update(new Segment({ ...late, organizationId: OrganizationId.make(randomUUID()), name: "x" }))
          expect(Option.getOrThrow(yield* segments.findById(organization.id, late.id)).name).toBe("Late")

          assert.isFalse(yield* segments.delete(OrganizationId.make(randomUUID()), late.id))
          assert.isTrue(yield* segments.delete(organization.id, late.id))
          assert.isFalse(yield* segments.delete(organization.id, late.id))
          expect(yield* segments.count(organization.id)).toBe(1)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("every filter case matches exactly its subscribers, counted and listed alike", () =>
      Effect.gen(function*() {
        const audience = yield* SegmentAudience
        const world = yield* givenWorld
        yield* Effect.gen(function*() {
          for (const [raw, expected] of cases) {
            const filter = decodeFilter(withTagIds(world, raw))
            const found = yield* matchingNames(world, filter)
            expect({ filter: raw, names: found.names }).toStrictEqual({ filter: raw, names: byName(expected, world) })
            expect(expectedNames(world, filter), JSON.stringify(raw)).toStrictEqual(byName(expected, world))
            expect(found.count, JSON.stringify(raw)).toBe(expected.length)
            // One subscriber at a time, as a trigger asks: the same answer.
            const one = yield* Effect.forEach(Object.entries(world.subscribers), ([name, subscriber]) =>
              Effect.map(audience.matches(world.organizationId, filter, now, subscriber.id), (matches) => matches ? [name] : []))
            expect({ filter: raw, names: byName(one.flat(), world) }).toStrictEqual({ filter: raw, names: byName(expected, world) })
          }
          // Another organization's subscriber matches none of its filters.
          assert.isFalse(yield* audience.matches(world.organizationId, decodeFilter({ all: [] }), now, world.stranger))
        }).pipe(deletingAfterwards(world.organizations))
      }))

    it.effect("random trees of those conditions match as the domain's evaluator says, row for row", () =>
      Effect.gen(function*() {
        const world = yield* givenWorld
        yield* Effect.gen(function*() {
          for (const raw of randomFilters(60, 20250601)) {
            const filter = decodeFilter(withTagIds(world, raw))
            const found = yield* matchingNames(world, filter)
            const expected = expectedNames(world, filter)
            expect({ filter: raw, names: found.names }).toStrictEqual({ filter: raw, names: expected })
            expect(found.count).toBe(expected.length)
          }
        }).pipe(deletingAfterwards(world.organizations))
      }))

    it.effect("a subscriber whose erasure is under way is in no segment", () =>
      Effect.gen(function*() {
        const audience = yield* SegmentAudience
        const world = yield* givenWorld
        yield* Effect.gen(function*() {
          const ada = world.subscribers.ada!
          yield* (yield* SubscriberRepository).requestErasure(world.organizationId, ada.id, instant(5))
          const everyone = decodeFilter({ all: [] })
          const found = yield* matchingNames(world, everyone)
          expect(found).toStrictEqual({ names: byName(["bob", "cyd", "dee", "eve", "fay"], world), count: 5 })
          assert.isFalse(yield* audience.matches(world.organizationId, everyone, now, ada.id))
          assert.isFalse(yield* audience.matches(world.organizationId, decodeFilter({ field: "metadata.plan", op: "eq", value: "pro" }), now, ada.id))
        }).pipe(deletingAfterwards(world.organizations))
      }))

    it.effect("pages go by id, after a subscriber or past an offset", () =>
      Effect.gen(function*() {
        const world = yield* givenWorld
        yield* Effect.gen(function*() {
          const audience = yield* SegmentAudience
          const everyone = decodeFilter({ all: [] })
          const all = yield* audience.page(world.organizationId, everyone, now, { limit: 10 })
          expect(all.map((s) => s.id)).toStrictEqual([...all.map((s) => s.id)].sort())
          expect(all).toHaveLength(6)
          expect(yield* audience.page(world.organizationId, everyone, now, { limit: 2 })).toStrictEqual(all.slice(0, 2))
          expect(yield* audience.page(world.organizationId, everyone, now, { limit: 2, after: all[1]!.id })).toStrictEqual(all.slice(2, 4))
          expect(yield* audience.page(world.organizationId, everyone, now, { limit: 3, offset: 4 })).toStrictEqual(all.slice(4))
          expect(all[0]).toStrictEqual(world.subscribers[world.names.get(all[0]!.id)!])
        }).pipe(deletingAfterwards(world.organizations))
      }))
  })
