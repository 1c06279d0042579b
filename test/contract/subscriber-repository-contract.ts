import { assert, expect, layer } from "@effect/vitest"
import {
  type ExportedSubscriber,
  type KeysetPosition,
  SubscriberRepository,
  type SubscriberPageSort,
  type SubscriberSearch,
  type SubscriberSort,
  TagAssignments
} from "@roster/application"
import { emailKey, type OrganizationId, type SortBy, type SortOrder, Subscriber, SubscriberId } from "@roster/domain"
import { Chunk, Effect, Exit, Option, Stream } from "effect"
import { randomUUID } from "node:crypto"
import {
  aSubscriber,
  email,
  expectedOrder,
  expectedOrderByKeys,
  givenOrganization,
  givenSubscriber,
  givenTag,
  instant,
  type PersistenceLayer,
  walkNumberedPages
} from "./fixtures.js"

const sortValue = (sort: SubscriberSort) => (s: Subscriber): string =>
  sort === "email" ? emailKey(s.email) : (sort === "created_at" ? s.createdAt : s.updatedAt).toISOString()

/** Lists every page of `pageSize` rows, each page starting after the last row of the one before. */
const walk = (
  organizationId: OrganizationId,
  sort: SubscriberSort,
  order: SortOrder,
  filter: SubscriberSearch = {},
  pageSize = 3
) =>
  Effect.gen(function*() {
    const subscribers = yield* SubscriberRepository
    const seen: Array<Subscriber> = []
    let after: KeysetPosition | undefined
    for (;;) {
      const page = yield* subscribers.list(organizationId, { ...filter, sort, order, after, limit: pageSize })
      seen.push(...page)
      if (page.length < pageSize) return seen.map((s) => s.id)
      const last = page[page.length - 1]!
      after = { value: sortValue(sort)(last), id: last.id }
    }
  })

/** Seven subscribers whose emails, creation and update times order differently, with ties. */
const givenSeven = (organizationId: OrganizationId) =>
  Effect.forEach([
    { email: "zoe@example.com", createdAt: instant(1), updatedAt: instant(9) },
    { email: "Adam@example.com", createdAt: instant(2), updatedAt: instant(2) },
    { email: "émile@example.com", createdAt: instant(2), updatedAt: instant(7) },
    { email: "Ölaf@example.org", createdAt: instant(2), updatedAt: instant(7) },
    { email: "bob@example.com", createdAt: instant(3), updatedAt: instant(3) },
    { email: "bob.smith@example.com", createdAt: instant(0), updatedAt: instant(7) },
    { email: "ZED@example.net", createdAt: instant(3), updatedAt: instant(4) }
  ], (fields) => givenSubscriber(organizationId, fields))

const pageSortValue = (sort: SubscriberPageSort) => (s: Subscriber): string =>
  sort === "status" ? s.status : sortValue(sort)(s)

/** Walks every numbered page of `perPage` rows in the given order; the ids seen. */
const walkPages = (
  organizationId: OrganizationId,
  sort: ReadonlyArray<SortBy<SubscriberPageSort>>,
  filter: SubscriberSearch = {},
  perPage = 2
) =>
  Effect.flatMap(SubscriberRepository, (subscribers) =>
    walkNumberedPages((window) => subscribers.listPage(organizationId, { filter, sort, ...window }), perPage)).pipe(
      Effect.map((seen) => seen.map((s) => s.id))
    )

/** Nine subscribers whose statuses, emails, creation and update times order differently, with many ties. */
const givenNine = (organizationId: OrganizationId) =>
  Effect.forEach([
    { email: "zoe@example.com", status: "active", createdAt: instant(1), updatedAt: instant(9) },
    { email: "Adam@example.com", status: "unsubscribed", createdAt: instant(2), updatedAt: instant(2) },
    { email: "émile@example.com", status: "active", createdAt: instant(2), updatedAt: instant(7) },
    { email: "Ölaf@example.org", status: "bounced", createdAt: instant(2), updatedAt: instant(7) },
    { email: "bob@example.com", status: "active", createdAt: instant(3), updatedAt: instant(3) },
    { email: "bob.smith@example.com", status: "complained", createdAt: instant(0), updatedAt: instant(7) },
    { email: "ZED@example.net", status: "unsubscribed", createdAt: instant(3), updatedAt: instant(4) },
    { email: "carol@example.com", status: "active", createdAt: instant(2), updatedAt: instant(7) },
    { email: "dave@example.com", status: "active", createdAt: instant(2), updatedAt: instant(2) }
  ] as const, (fields) => givenSubscriber(organizationId, fields))

const pageSorts: ReadonlyArray<ReadonlyArray<SortBy<SubscriberPageSort>>> = [
  [],
  [{ field: "created_at", order: "asc" }],
  [{ field: "created_at", order: "desc" }],
  [{ field: "updated_at", order: "desc" }],
  [{ field: "email", order: "asc" }],
  [{ field: "status", order: "asc" }],
  [{ field: "status", order: "desc" }],
  [{ field: "status", order: "asc" }, { field: "created_at", order: "desc" }],
  [{ field: "updated_at", order: "desc" }, { field: "email", order: "asc" }],
  [{ field: "status", order: "desc" }, { field: "updated_at", order: "asc" }, { field: "created_at", order: "asc" }],
  [{ field: "created_at", order: "asc" }, { field: "updated_at", order: "asc" }, { field: "status", order: "desc" }]
]

const describeSort = (sort: ReadonlyArray<SortBy>) =>
  sort.length === 0 ? "the id alone" : sort.map(({ field, order }) => `${field} ${order}`).join(", ")

export const subscriberRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("SubscriberRepository", (it) => {
    it.effect("stores a subscriber and finds it by id and by email in any letter case", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const subscriber = aSubscriber(organization.id, {
          email: "Ada.Lovelace@Example.com",
          firstName: "Ada",
          metadata: { plan_name: "gold", nested: { visit_count: 3, tags_seen: ["a", "b"] } },
          createdAt: instant(1.234),
          updatedAt: instant(5.678)
        })
        yield* subscribers.insert(subscriber)

        const byId = yield* subscribers.findById(organization.id, subscriber.id)
        expect(Option.getOrThrow(byId)).toStrictEqual(subscriber)
        const forUpdate = yield* subscribers.findByIdForUpdate(organization.id, subscriber.id)
        expect(Option.getOrThrow(forUpdate)).toStrictEqual(subscriber)
        const byEmail = yield* subscribers.findByEmail(organization.id, "ada.lovelace@EXAMPLE.COM")
        expect(Option.getOrThrow(byEmail)).toStrictEqual(subscriber)
      }))

    it.effect("finds nothing of another organization, and nothing that does not exist", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const mine = yield* givenOrganization()
        const theirs = yield* givenOrganization()
        const subscriber = yield* givenSubscriber(theirs.id)
        assert.isTrue(Option.isNone(yield* subscribers.findById(mine.id, subscriber.id)))
        assert.isTrue(Option.isNone(yield* subscribers.findByIdForUpdate(mine.id, subscriber.id)))
        assert.isTrue(Option.isNone(yield* subscribers.findByEmail(mine.id, subscriber.email)))
        assert.isTrue(Option.isNone(yield* subscribers.findById(mine.id, SubscriberId.make(randomUUID()))))
      }))

    it.effect("reads many of an organization's subscribers at once, in id order, with their token versions and erasures", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const theirs = yield* givenSubscriber((yield* givenOrganization()).id)
        const [a, b, c] = [
          yield* givenSubscriber(organization.id),
          yield* givenSubscriber(organization.id),
          yield* givenSubscriber(organization.id)
        ]
        const nobody = SubscriberId.make(randomUUID())
        const asked = [c.id, theirs.id, a.id, nobody, b.id]
        const locked = yield* subscribers.findManyForUpdate(organization.id, asked)
        expect(locked).toStrictEqual([a, b, c].sort((x, y) => (x.id < y.id ? -1 : 1)))
        expect(yield* subscribers.findManyForUpdate(organization.id, [])).toStrictEqual([])

        yield* subscribers.revokePreferenceTokens(organization.id, b.id)
        yield* subscribers.requestErasure(organization.id, c.id, instant(40))
        expect(yield* subscribers.preferenceAccesses(organization.id, asked)).toStrictEqual(new Map([
          [c.id, { tokenVersion: 0, erasureRequestedAt: instant(40) }],
          [a.id, { tokenVersion: 0, erasureRequestedAt: null }],
          [b.id, { tokenVersion: 1, erasureRequestedAt: null }]
        ]))
        expect(yield* subscribers.preferenceAccesses(organization.id, [])).toStrictEqual(new Map())
        // Erasures of this test are carried out, so that the next tests see their own only.
        yield* subscribers.delete(organization.id, c.id)
      }))

    it.effect("keeps a version of each subscriber's preference tokens, moved on by each revocation", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const subscriber = yield* givenSubscriber(organization.id)
        const other = yield* givenSubscriber(organization.id)
        const versionOf = (id: SubscriberId) =>
          Effect.map(subscribers.preferenceAccess(organization.id, id), Option.map((access) => access.tokenVersion))
        expect(yield* versionOf(subscriber.id)).toStrictEqual(Option.some(0))
        expect(yield* subscribers.revokePreferenceTokens(organization.id, subscriber.id)).toStrictEqual(Option.some(1))
        expect(yield* subscribers.revokePreferenceTokens(organization.id, subscriber.id)).toStrictEqual(Option.some(2))
        expect(yield* versionOf(subscriber.id)).toStrictEqual(Option.some(2))
        expect(yield* versionOf(other.id)).toStrictEqual(Option.some(0))
        // Another organization's subscriber, and one that does not exist, have no version.
        const foreign = (yield* givenOrganization()).id
        assert.isTrue(Option.isNone(yield* subscribers.preferenceAccess(foreign, subscriber.id)))
        assert.isTrue(Option.isNone(yield* subscribers.revokePreferenceTokens(foreign, subscriber.id)))
        const nobody = SubscriberId.make(randomUUID())
        assert.isTrue(Option.isNone(yield* subscribers.preferenceAccess(organization.id, nobody)))
        // A deleted subscriber's version goes with it.
        yield* subscribers.delete(organization.id, subscriber.id)
        assert.isTrue(Option.isNone(yield* subscribers.preferenceAccess(organization.id, subscriber.id)))
      }))

    it.effect("keeps each erasure request once, and hands them out longest waiting first until the subscriber is gone", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        // Requests of earlier tests are carried out: this test sees its own only.
        for (const due of yield* subscribers.claimErasures(10_000)) yield* subscribers.delete(due.organizationId, due.id)
        const [first, second, untouched] = [
          yield* givenSubscriber(organization.id),
          yield* givenSubscriber(organization.id),
          yield* givenSubscriber(organization.id)
        ]
        expect(yield* subscribers.requestErasure(organization.id, second.id, instant(20))).toBe(true)
        expect(yield* subscribers.requestErasure(organization.id, first.id, instant(10))).toBe(true)
        expect(yield* subscribers.requestErasure(organization.id, second.id, instant(30))).toBe(true)
        expect(yield* subscribers.requestErasure((yield* givenOrganization()).id, untouched.id, instant(5))).toBe(false)
        expect(yield* subscribers.claimErasures(10)).toStrictEqual([
          { organizationId: organization.id, id: first.id },
          { organizationId: organization.id, id: second.id }
        ])
        expect(yield* subscribers.claimErasures(1)).toStrictEqual([{ organizationId: organization.id, id: first.id }])
        const access = yield* subscribers.preferenceAccess(organization.id, second.id)
        expect(Option.map(access, (a) => a.erasureRequestedAt)).toStrictEqual(Option.some(instant(20)))
        expect(Option.map(yield* subscribers.preferenceAccess(organization.id, untouched.id), (a) => a.erasureRequestedAt))
          .toStrictEqual(Option.some(null))
        yield* subscribers.delete(organization.id, first.id)
        yield* subscribers.delete(organization.id, second.id)
        expect(yield* subscribers.claimErasures(10)).toStrictEqual([])
      }))

    it.effect("tells which organization a subscriber id belongs to", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const subscriber = yield* givenSubscriber(organization.id)
        expect(yield* subscribers.organizationOf(subscriber.id)).toStrictEqual(Option.some(organization.id))
        expect(yield* subscribers.organizationOf(SubscriberId.make(randomUUID()))).toStrictEqual(Option.none())
      }))

    it.effect("finds every organization's subscriber with an email, in any letter case, and no other", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const address = `Shared.${randomUUID()}@Example.com`
        const first = yield* givenOrganization()
        const second = yield* givenOrganization()
        const elsewhere = yield* givenOrganization()
        const mine = yield* givenSubscriber(first.id, { email: address })
        const theirs = yield* givenSubscriber(second.id, { email: address.toUpperCase() })
        yield* givenSubscriber(elsewhere.id, { email: `other.${address}` })
        const holders = yield* subscribers.holdersOf(` ${address.toLowerCase()} `)
        expect(holders).toStrictEqual(
          [{ organizationId: first.id, id: mine.id }, { organizationId: second.id, id: theirs.id }]
            .sort((a, b) => (a.organizationId < b.organizationId ? -1 : 1))
        )
        expect(yield* subscribers.holdersOf(`nobody.${address}`)).toStrictEqual([])
      }))

    it.effect("names every metadata key the matching subscribers use, once each, in code-point order", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const tag = yield* givenTag(organization.id)
        const tagged = yield* givenSubscriber(organization.id, { metadata: { plan: "pro", "Źródło": "x", score: 3 } })
        yield* (yield* TagAssignments).attach(organization.id, tagged.id, [tag.id], instant(1), null)
        yield* givenSubscriber(organization.id, { metadata: { plan: "free", Zone: null } })
        yield* givenSubscriber(organization.id, { status: "unsubscribed", metadata: { reason: "moved", plan: "free" } })
        yield* givenSubscriber(organization.id)
        yield* givenSubscriber((yield* givenOrganization()).id, { metadata: { elsewhere: true } })

        expect(yield* subscribers.metadataKeys(organization.id, {})).toStrictEqual(["Zone", "plan", "reason", "score", "Źródło"])
        expect(yield* subscribers.metadataKeys(organization.id, { status: "unsubscribed" })).toStrictEqual(["plan", "reason"])
        expect(yield* subscribers.metadataKeys(organization.id, { tagId: tag.id })).toStrictEqual(["plan", "score", "Źródło"])
        expect(yield* subscribers.metadataKeys(organization.id, { status: "bounced" })).toStrictEqual([])
      }))

    it.effect("streams an export oldest first, as its pages hold it: names, tags in attachment order, metadata of every kind", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const weekly = yield* givenTag(organization.id, { name: "Weekly, \"news\"" })
        const daily = yield* givenTag(organization.id, { name: "tab\there \\N" })
        const tricky = ["tab\tin", "line\nbreak\r\n", "back\\slash \\N", "\\N", "Zoë 日本語 🎉", "", "=SUM(1)"]
        const all = yield* Effect.forEach(tricky, (text, i) =>
          givenSubscriber(organization.id, {
            status: i % 3 === 2 ? "unsubscribed" : "active",
            firstName: text,
            createdAt: instant(i),
            metadata: i % 2 === 0
              ? { note: text, plan: "pro" }
              : { note: { nested: text, list: [1, 2.5, true, null] }, plan: null, seats: i }
          }))
        yield* assignments.attach(organization.id, all[0]!.id, [daily.id], instant(200), null)
        yield* assignments.attach(organization.id, all[0]!.id, [weekly.id], instant(100), null)
        yield* assignments.attach(organization.id, all[3]!.id, [weekly.id, daily.id], instant(100), null)
        yield* givenSubscriber((yield* givenOrganization()).id, { metadata: { elsewhere: true } })

        for (const filter of [{}, { status: "active" }, { tagId: weekly.id }, { tagId: daily.id, status: "active" }] as const) {
          const metadataKeys = yield* subscribers.metadataKeys(organization.id, filter)
          const streamed = Chunk.toReadonlyArray(
            yield* Stream.runCollect(subscribers.exportAll(organization.id, { ...filter, metadataKeys, pageSize: 2 }))
          ).flat()
          const paged = yield* subscribers.exportPage(organization.id, { ...filter, limit: 100 })
          const picked = (rows: ReadonlyArray<ExportedSubscriber>) =>
            rows.map((row) => ({ ...row, tagNames: [...row.tagNames], metadata: Object.fromEntries(metadataKeys.flatMap((key) => key in row.metadata ? [[key, row.metadata[key]]] : [])) }))
          expect(picked(streamed)).toStrictEqual(picked(paged))
          if (Object.keys(filter).length === 0) {
            expect(streamed.map((row) => row.firstName)).toStrictEqual(all.map((s) => s.firstName))
            expect(streamed[0]!.tagNames).toStrictEqual([weekly.name, daily.name])
            expect(streamed[1]!.metadata).toStrictEqual({ note: { nested: "line\nbreak\r\n", list: [1, 2.5, true, null] }, plan: null, seats: 1 })
          }
        }
        expect(Chunk.size(yield* Stream.runCollect(subscribers.exportAll(organization.id, { status: "bounced", metadataKeys: [], pageSize: 2 }))))
          .toBe(0)
      }))

    it.effect("refuses a second subscriber with the same email in any letter case", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        yield* givenSubscriber(organization.id, { email: "reader@example.com" })
        const duplicate = aSubscriber(organization.id, { email: "READER@Example.COM" })
        const error = yield* Effect.flip(subscribers.insert(duplicate))
        expect(error._tag).toBe("EmailAlreadyExists")
        expect(error.email).toBe("READER@Example.COM")
        expect(yield* subscribers.count(organization.id, {})).toBe(1)
      }))

    it.effect("lets two organizations each keep a subscriber with the same email", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const first = yield* givenOrganization()
        const second = yield* givenOrganization()
        yield* givenSubscriber(first.id, { email: "shared@example.com" })
        const exit = yield* Effect.exit(subscribers.insert(aSubscriber(second.id, { email: "Shared@example.com" })))
        assert.isTrue(Exit.isSuccess(exit))
      }))

    it.effect("an update replaces status, metadata, names and the update time", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const subscriber = yield* givenSubscriber(organization.id)
        const changed = new Subscriber({
          ...subscriber,
          status: "unsubscribed",
          metadata: { source: "import" },
          firstName: "Grace",
          lastName: "Hopper",
          updatedAt: instant(60)
        })
        yield* subscribers.update(changed)
        expect(Option.getOrThrow(yield* subscribers.findById(organization.id, subscriber.id))).toStrictEqual(changed)
      }))

    it.effect("an update of another organization's subscriber changes nothing", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const mine = yield* givenOrganization()
        const theirs = yield* givenOrganization()
        const subscriber = yield* givenSubscriber(theirs.id)
        yield* subscribers.update(new Subscriber({ ...subscriber, organizationId: mine.id, status: "unsubscribed" }))
        expect(Option.getOrThrow(yield* subscribers.findById(theirs.id, subscriber.id)).status).toBe("active")
      }))

    it.effect("delete removes the subscriber and says whether there was one", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        const subscriber = yield* givenSubscriber(organization.id)
        assert.isFalse(yield* subscribers.delete(other.id, subscriber.id))
        assert.isTrue(yield* subscribers.delete(organization.id, subscriber.id))
        assert.isFalse(yield* subscribers.delete(organization.id, subscriber.id))
        assert.isTrue(Option.isNone(yield* subscribers.findById(organization.id, subscriber.id)))
        assert.isTrue(Option.isNone(yield* subscribers.organizationOf(subscriber.id)))
      }))

    for (const sort of ["created_at", "updated_at", "email"] as const) {
      for (const order of ["asc", "desc"] as const) {
        it.effect(`pages through every subscriber exactly once by ${sort} ${order}`, () =>
          Effect.gen(function*() {
            const organization = yield* givenOrganization()
            const seven = yield* givenSeven(organization.id)
            yield* givenSubscriber((yield* givenOrganization()).id)
            const seen = yield* walk(organization.id, sort, order)
            expect(seen).toStrictEqual(expectedOrder(seven, sortValue(sort), order))
          }))
      }
    }

    it.effect("subscribers created in the same millisecond come in id order", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const same = yield* Effect.forEach(Array.from({ length: 8 }), () =>
          givenSubscriber(organization.id, { createdAt: instant(42) }))
        const byId = same.map((s) => s.id).sort()
        expect(yield* walk(organization.id, "created_at", "asc")).toStrictEqual(byId)
        expect(yield* walk(organization.id, "created_at", "desc")).toStrictEqual([...byId].reverse())
      }))

    it.effect("filters by status and by tag, and counts with the same filters", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const weekly = yield* givenTag(organization.id)
        const daily = yield* givenTag(organization.id)
        const all = yield* Effect.forEach(
          ["active", "unsubscribed", "active", "bounced", "active", "complained", "unsubscribed"] as const,
          (status, i) => givenSubscriber(organization.id, { status, createdAt: instant(i) })
        )
        const weeklyReaders = [all[0]!, all[1]!, all[4]!, all[5]!]
        for (const subscriber of weeklyReaders) {
          yield* assignments.attach(organization.id, subscriber.id, [weekly.id], instant(100), null)
        }
        yield* assignments.attach(organization.id, all[2]!.id, [daily.id], instant(100), null)

        const expectIds = (filter: SubscriberSearch, expected: ReadonlyArray<Subscriber>) =>
          Effect.gen(function*() {
            const ids = expected.map((s) => s.id)
            expect(yield* walk(organization.id, "created_at", "asc", filter, 2)).toStrictEqual(ids)
            expect(yield* subscribers.count(organization.id, filter)).toBe(ids.length)
          })
        yield* expectIds({}, all)
        yield* expectIds({ status: "active" }, [all[0]!, all[2]!, all[4]!])
        yield* expectIds({ status: "unsubscribed" }, [all[1]!, all[6]!])
        yield* expectIds({ tagId: weekly.id }, weeklyReaders)
        yield* expectIds({ tagId: weekly.id, status: "active" }, [all[0]!, all[4]!])
        yield* expectIds({ tagId: daily.id, status: "bounced" }, [])
      }))

    for (const sort of pageSorts) {
      it.effect(`numbered pages hold every subscriber exactly once by ${describeSort(sort)}`, () =>
        Effect.gen(function*() {
          const organization = yield* givenOrganization()
          const nine = yield* givenNine(organization.id)
          yield* givenSubscriber((yield* givenOrganization()).id)
          const keys = sort.map(({ field, order }) => ({ value: pageSortValue(field), order }))
          const expected = expectedOrderByKeys(nine, keys)
          for (const perPage of [1, 2, 4, 9, 100]) {
            expect(yield* walkPages(organization.id, sort, {}, perPage)).toStrictEqual(expected)
          }
        }))
    }

    it.effect("numbered pages filter by status and by tag, and past the last row hold nothing", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const weekly = yield* givenTag(organization.id)
        const nine = yield* givenNine(organization.id)
        const weeklyReaders = [nine[0]!, nine[1]!, nine[2]!, nine[5]!, nine[7]!]
        for (const subscriber of weeklyReaders) {
          yield* assignments.attach(organization.id, subscriber.id, [weekly.id], instant(100), null)
        }
        const sort = [{ field: "email", order: "desc" }] as const
        const byEmail = [{ value: pageSortValue("email"), order: "desc" }] as const

        const active = nine.filter((s) => s.status === "active")
        expect(yield* walkPages(organization.id, sort, { status: "active" })).toStrictEqual(expectedOrderByKeys(active, byEmail))
        expect(yield* walkPages(organization.id, sort, { tagId: weekly.id })).toStrictEqual(
          expectedOrderByKeys(weeklyReaders, byEmail)
        )
        const activeWeekly = weeklyReaders.filter((s) => s.status === "active")
        expect(yield* walkPages(organization.id, sort, { tagId: weekly.id, status: "active" }, 1)).toStrictEqual(
          expectedOrderByKeys(activeWeekly, byEmail)
        )
        expect(yield* subscribers.listPage(organization.id, { filter: {}, sort, offset: 9, limit: 5 })).toStrictEqual([])
        expect((yield* subscribers.listPage(organization.id, { filter: {}, sort, offset: 8, limit: 5 })).length).toBe(1)
      }))

    /** The ids of `all` whose email is one of `emails`, in the order of `all`. */
    const withEmails = (all: ReadonlyArray<Subscriber>, ...emails: ReadonlyArray<string>) =>
      all.filter((s) => emails.includes(s.email)).map((s) => s.id)

    it.effect("finds the subscribers whose email starts with a text, in any letter case, and counts them alike", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const all = yield* Effect.forEach(
          ["Ada@example.com", "adam@example.com", "ADRIAN@example.org", "bob@example.com", "Émile@example.com", "emil@example.com"],
          (address, i) => givenSubscriber(organization.id, { email: address, createdAt: instant(i) })
        )
        yield* givenSubscriber((yield* givenOrganization()).id, { email: "ada@other.example" })
        const expectFound = (emailPrefix: string, expected: ReadonlyArray<string>) =>
          Effect.gen(function*() {
            expect(yield* walk(organization.id, "created_at", "asc", { emailPrefix }, 2)).toStrictEqual(expected)
            expect(yield* subscribers.count(organization.id, { emailPrefix })).toBe(expected.length)
          })
        yield* expectFound("AD", withEmails(all, "Ada@example.com", "adam@example.com", "ADRIAN@example.org"))
        yield* expectFound("ada", withEmails(all, "Ada@example.com", "adam@example.com"))
        yield* expectFound("ADA@EXAMPLE.COM", withEmails(all, "Ada@example.com"))
        yield* expectFound("éMI", withEmails(all, "Émile@example.com"))
        yield* expectFound("e", withEmails(all, "emil@example.com"))
        yield* expectFound("adrian@example.org.", [])
        yield* expectFound("zz", [])
      }))

    it.effect("takes %, _ and \\ in a search as themselves", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const all = yield* Effect.forEach(
          ["a%b@example.com", "a_b@example.com", "axb@example.com", "a%%c@example.com"],
          (address, i) => givenSubscriber(organization.id, { email: address, createdAt: instant(i) })
        )
        const found = (emailPrefix: string) => walk(organization.id, "created_at", "asc", { emailPrefix })
        expect(yield* found("a%")).toStrictEqual(withEmails(all, "a%b@example.com", "a%%c@example.com"))
        expect(yield* found("a%b")).toStrictEqual(withEmails(all, "a%b@example.com"))
        expect(yield* found("a_")).toStrictEqual(withEmails(all, "a_b@example.com"))
        expect(yield* found("a\\")).toStrictEqual([])
        expect(yield* found("%")).toStrictEqual([])
        expect(yield* found("_")).toStrictEqual([])
        expect(yield* subscribers.count(organization.id, { emailPrefix: "a_" })).toBe(1)
      }))

    it.effect("ends a search at the right place when its text ends in the last code point or before the surrogates", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const all = yield* Effect.forEach(
          ["y\u{10FFFF}a@example.com", "y\u{10FFFF}@example.com", "z@example.com", "x\uD7FF@example.com", "x\uE000@example.com"],
          (address, i) => givenSubscriber(organization.id, { email: address, createdAt: instant(i) })
        )
        const found = (emailPrefix: string) => walk(organization.id, "created_at", "asc", { emailPrefix })
        expect(yield* found("y\u{10FFFF}")).toStrictEqual(withEmails(all, "y\u{10FFFF}a@example.com", "y\u{10FFFF}@example.com"))
        expect(yield* found("x\uD7FF")).toStrictEqual(withEmails(all, "x\uD7FF@example.com"))
        expect(yield* found("x\uE000")).toStrictEqual(withEmails(all, "x\uE000@example.com"))
      }))

    it.effect("pages through a search combined with status and tag, by keyset and by number, and counts it", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const weekly = yield* givenTag(organization.id)
        const all = yield* Effect.forEach(
          [
            ["news1@example.com", "active"],
            ["News2@example.com", "unsubscribed"],
            ["news3@example.com", "active"],
            ["other@example.com", "active"],
            ["NEWS4@example.com", "active"],
            ["news5@example.com", "bounced"],
            ["news6@example.com", "active"],
            ["news7@example.com", "active"]
          ] as const,
          ([address, status], i) => givenSubscriber(organization.id, { email: address, status, createdAt: instant(i) })
        )
        for (const subscriber of [all[0]!, all[1]!, all[3]!, all[4]!, all[6]!]) {
          yield* assignments.attach(organization.id, subscriber.id, [weekly.id], instant(100), null)
        }
        const news = all.filter((s) => s.email.toLowerCase().startsWith("news"))
        const activeNews = news.filter((s) => s.status === "active")
        const weeklyNews = [all[0]!, all[1]!, all[4]!, all[6]!]
        const activeWeeklyNews = [all[0]!, all[4]!, all[6]!]
        const cases: ReadonlyArray<readonly [SubscriberSearch, ReadonlyArray<Subscriber>]> = [
          [{ emailPrefix: "NEWS" }, news],
          [{ emailPrefix: "news", status: "active" }, activeNews],
          [{ emailPrefix: "News", tagId: weekly.id }, weeklyNews],
          [{ emailPrefix: "news", tagId: weekly.id, status: "active" }, activeWeeklyNews],
          [{ emailPrefix: "news", tagId: weekly.id, status: "bounced" }, []]
        ]
        for (const [filter, expected] of cases) {
          for (const sort of ["created_at", "email"] as const) {
            for (const order of ["asc", "desc"] as const) {
              expect(yield* walk(organization.id, sort, order, filter, 2)).toStrictEqual(expectedOrder(expected, sortValue(sort), order))
            }
          }
          const byEmail = [{ field: "email", order: "asc" }] as const
          expect(yield* walkPages(organization.id, byEmail, filter, 2)).toStrictEqual(
            expectedOrderByKeys(expected, [{ value: pageSortValue("email"), order: "asc" }])
          )
          expect(yield* subscribers.count(organization.id, filter)).toBe(expected.length)
        }
      }))

    it.effect("counts up to a number when asked to, whatever the filter", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        yield* Effect.forEach(["news1", "news2", "news3", "news4", "other"], (local) =>
          givenSubscriber(organization.id, { email: `${local}@example.com` }))
        expect(yield* subscribers.count(organization.id, {}, 3)).toBe(3)
        expect(yield* subscribers.count(organization.id, { emailPrefix: "news" }, 3)).toBe(3)
        expect(yield* subscribers.count(organization.id, { emailPrefix: "news" }, 4)).toBe(4)
        expect(yield* subscribers.count(organization.id, { emailPrefix: "news" }, 10)).toBe(4)
        expect(yield* subscribers.count(organization.id, { status: "active" }, 10)).toBe(5)
      }))

    it.effect("keeps an email exactly as given, apart from surrounding spaces", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const subscriber = aSubscriber(organization.id, { email: "Mixed.Case@Example.COM" })
        yield* subscribers.insert(subscriber)
        const found = Option.getOrThrow(yield* subscribers.findByEmail(organization.id, " mixed.case@example.com "))
        expect(found.email).toBe(email("Mixed.Case@Example.COM"))
      }))
  })
