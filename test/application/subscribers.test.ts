import { describe, expect, it } from "@effect/vitest"
import {
  encodeCursor,
  planLimits,
  Subscriber,
  type SubscriberId,
  type SubscriberStatus,
  type TagId
} from "@roster/domain"
import { Effect, Encoding, Option, TestClock } from "effect"
import {
  COUNT_CAP,
  Ids,
  MAX_SEARCH_LENGTH,
  OrganizationRepository,
  Outbox,
  type Principal,
  type SubscriberPage,
  SubscriberRepository,
  Subscribers,
  type SubscriberView,
  Tags
} from "@roster/application"
import { email, keyFor, openOrganization, recordedTypes, UseCasesInMemory } from "./test-kit.js"
import { MemoryStore } from "../../adapters/in-process/index.js"

const inMemory = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, UseCasesInMemory)

const startOfJune = Date.parse("2025-06-01T09:00:00.000Z")

const newTag = (principal: Principal, name: string) => Effect.flatMap(Tags, (tags) => tags.create(principal, { name }))

const tagIdsOf = (view: SubscriberView) => view.tags.map(({ tag }) => tag.id)

/** Puts a subscriber into a state only the email provider can cause, as its events would. */
const markAs = (id: SubscriberId, principal: Principal, status: SubscriberStatus) =>
  Effect.gen(function*() {
    const repository = yield* SubscriberRepository
    const current = Option.getOrThrow(yield* repository.findById(principal.organization.id, id))
    yield* repository.update(new Subscriber({ ...current, status }))
  })

/** A well-formed id that names nothing yet. */
const unknownId = Effect.flatMap(Ids, (ids) => ids.next)

describe("creating a subscriber", () => {
  it.effect("records subscriber.created and a tag.subscribed for each tag", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const digest = yield* newTag(principal, "Weekly digest")
      const subscribers = yield* Subscribers

      const created = yield* subscribers.create(principal, {
        email: email("ada@example.com"),
        tagIds: [news.id, digest.id],
        metadata: { source: "import" }
      })

      expect(created.subscriber.status).toBe("active")
      expect(created.subscriber.organizationId).toBe(organization.id)
      expect(tagIdsOf(created)).toEqual([news.id, digest.id])
      const events = yield* (yield* Outbox).recorded(organization.id)
      expect(events.map((e) => e.type)).toEqual(["subscriber.created", "tag.subscribed", "tag.subscribed"])
      expect(events[0]!.data).toMatchObject({
        subscriber: {
          id: created.subscriber.id,
          email: "ada@example.com",
          status: "active",
          metadata: { source: "import" },
          tags: [{ id: news.id, slug: "product-news" }, { id: digest.id, slug: "weekly-digest" }]
        }
      })
      expect(events.slice(1).map((e) => e.data)).toEqual([
        { subscriber: { id: created.subscriber.id, email: "ada@example.com" }, tag: { id: news.id, name: "Product news", slug: "product-news" } },
        { subscriber: { id: created.subscriber.id, email: "ada@example.com" }, tag: { id: digest.id, name: "Weekly digest", slug: "weekly-digest" } }
      ])
      const tags = yield* Tags
      expect((yield* tags.get(principal, news.id)).subscriberCount).toBe(1)
      expect((yield* subscribers.get(principal, created.subscriber.id)).tags.map(({ tag }) => tag.name))
        .toEqual(["Product news", "Weekly digest"])
    })))

  it.effect("a tag named twice is attached once", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const created = yield* (yield* Subscribers).create(principal, { email: email("ada@example.com"), tagIds: [news.id, news.id] })
      expect(tagIdsOf(created)).toEqual([news.id])
      expect(yield* recordedTypes(organization.id)).toEqual(["subscriber.created", "tag.subscribed"])
      expect((yield* (yield* Tags).get(principal, news.id)).subscriberCount).toBe(1)
    })))

  it.effect("an email already there in another letter case is a conflict, and nothing is recorded", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const subscribers = yield* Subscribers
      yield* subscribers.create(principal, { email: email("ada@example.com") })
      const before = yield* recordedTypes(organization.id)

      const error = yield* Effect.flip(subscribers.create(principal, { email: email("ADA@Example.COM"), tagIds: [news.id] }))

      expect(error).toMatchObject({ _tag: "EmailAlreadyExists", email: "ADA@Example.COM" })
      expect(yield* recordedTypes(organization.id)).toEqual(before)
      expect((yield* (yield* Tags).get(principal, news.id)).subscriberCount).toBe(0)
      const stored = Option.getOrThrow(yield* (yield* OrganizationRepository).findById(organization.id))
      expect(stored.subscriberCount).toBe(1)
      expect((yield* subscribers.getByEmail(principal, email("ADA@example.com"))).subscriber.email).toBe("ada@example.com")
    })))

  it.effect("the same email may subscribe in two organizations", () =>
    inMemory(Effect.gen(function*() {
      const first = yield* openOrganization()
      const second = yield* openOrganization()
      const subscribers = yield* Subscribers
      const a = yield* subscribers.create(first.principal, { email: email("ada@example.com") })
      const b = yield* subscribers.create(second.principal, { email: email("ada@example.com") })
      expect(a.subscriber.id).not.toBe(b.subscriber.id)
    })))

  it.effect("an unknown tag id is refused, naming its place in tags, and nothing is stored", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const missing = (yield* unknownId) as TagId
      const subscribers = yield* Subscribers

      const error = yield* Effect.flip(
        subscribers.create(principal, { email: email("ada@example.com"), tagIds: [news.id, missing] })
      )
      expect(error).toMatchObject({ _tag: "InvalidInput", field: "tags[1]" })
      expect(error.message).toContain(missing)

      const afterRepeat = yield* Effect.flip(
        subscribers.create(principal, { email: email("ada@example.com"), tagIds: [news.id, news.id, missing] })
      )
      expect(afterRepeat).toMatchObject({ _tag: "InvalidInput", field: "tags[2]" })

      expect(yield* Effect.flip(subscribers.getByEmail(principal, email("ada@example.com")))).toMatchObject({
        _tag: "ResourceNotFound"
      })
      expect(yield* recordedTypes(organization.id)).toEqual([])
    })))

  it.effect("a tag of another organization is refused like an unknown one", () =>
    inMemory(Effect.gen(function*() {
      const mine = yield* openOrganization()
      const theirs = yield* openOrganization()
      const theirTag = yield* newTag(theirs.principal, "Their news")
      const error = yield* Effect.flip(
        (yield* Subscribers).create(mine.principal, { email: email("ada@example.com"), tagIds: [theirTag.id] })
      )
      expect(error).toMatchObject({ _tag: "InvalidInput", field: "tags[0]" })
      expect((yield* (yield* Tags).get(theirs.principal, theirTag.id)).subscriberCount).toBe(0)
    })))

  it.effect("createdAt and updatedAt come from the clock", () =>
    inMemory(Effect.gen(function*() {
      yield* TestClock.setTime(startOfJune)
      const { principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      const created = yield* subscribers.create(principal, { email: email("ada@example.com") })
      expect(created.subscriber.createdAt).toEqual(new Date(startOfJune))
      expect(created.subscriber.updatedAt).toEqual(new Date(startOfJune))

      yield* TestClock.adjust("90 minutes")
      const updated = yield* subscribers.update(principal, created.subscriber.id, { firstName: "Ada" })
      expect(updated.subscriber.createdAt).toEqual(new Date(startOfJune))
      expect(updated.subscriber.updatedAt).toEqual(new Date("2025-06-01T10:30:00.000Z"))
    })))
})

describe("the plan's subscriber limit", () => {
  it.effect("a free organization fills its last slot, is refused the next, and has room again after a removal", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization({ tier: "free" })
      const max = planLimits.free.maxSubscribers!
      const organizations = yield* OrganizationRepository
      expect(yield* organizations.reserveSubscriberSlots(organization.id, max - 1, max)).toBe(true)
      const subscribers = yield* Subscribers

      const last = yield* subscribers.create(principal, { email: email("last@example.com") })
      const refused = yield* Effect.flip(subscribers.create(principal, { email: email("one-too-many@example.com") }))
      expect(refused).toMatchObject({ _tag: "PlanLimitExceeded", limit: "subscribers", tier: "free", max })
      expect(yield* Effect.flip(subscribers.getByEmail(principal, email("one-too-many@example.com")))).toMatchObject({
        _tag: "ResourceNotFound"
      })
      expect(yield* recordedTypes(organization.id)).toEqual(["subscriber.created"])

      yield* subscribers.remove(principal, last.subscriber.id)
      expect(Option.getOrThrow(yield* organizations.findById(organization.id)).subscriberCount).toBe(max - 1)
      yield* subscribers.create(principal, { email: email("one-too-many@example.com") })
      expect(Option.getOrThrow(yield* organizations.findById(organization.id)).subscriberCount).toBe(max)
    })))

  it.effect("an enterprise organization has no subscriber limit", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization({ tier: "enterprise" })
      yield* (yield* OrganizationRepository).reserveSubscriberSlots(organization.id, 50_000_000, null)
      const created = yield* (yield* Subscribers).create(principal, { email: email("ada@example.com") })
      expect(created.subscriber.status).toBe("active")
    })))
})

describe("updating a subscriber", () => {
  it.effect("records subscriber.updated with the changed fields, and nothing when nothing changed", () =>
    inMemory(Effect.gen(function*() {
      yield* TestClock.setTime(startOfJune)
      const { organization, principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      const { subscriber } = yield* subscribers.create(principal, { email: email("ada@example.com"), metadata: { plan: "free" } })

      yield* TestClock.adjust("1 hour")
      const updated = yield* subscribers.update(principal, subscriber.id, { metadata: { plan: "gold", seats: 2 }, status: "active" })
      expect(updated.subscriber.metadata).toEqual({ plan: "gold", seats: 2 })
      const events = yield* (yield* Outbox).recorded(organization.id)
      expect(events.map((e) => e.type)).toEqual(["subscriber.created", "subscriber.updated"])
      expect(events[1]!.data).toMatchObject({
        changed: ["metadata"],
        subscriber: { id: subscriber.id, metadata: { plan: "gold", seats: 2 }, updated_at: "2025-06-01T10:00:00.000Z" }
      })

      yield* TestClock.adjust("1 hour")
      const again = yield* subscribers.update(principal, subscriber.id, { metadata: { seats: 2, plan: "gold" }, status: "active" })
      expect(again.subscriber.updatedAt).toEqual(new Date("2025-06-01T10:00:00.000Z"))
      expect(yield* recordedTypes(organization.id)).toEqual(["subscriber.created", "subscriber.updated"])
    })))

  it.effect("the API can unsubscribe a subscriber and bring them back", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      const { subscriber } = yield* subscribers.create(principal, { email: email("ada@example.com") })
      expect((yield* subscribers.update(principal, subscriber.id, { status: "unsubscribed" })).subscriber.status).toBe("unsubscribed")
      expect((yield* subscribers.update(principal, subscriber.id, { status: "active" })).subscriber.status).toBe("active")
      const events = yield* (yield* Outbox).recorded(organization.id)
      expect(events.map((e) => [e.type, e.data["changed"]])).toEqual([
        ["subscriber.created", undefined],
        ["subscriber.updated", ["status"]],
        ["subscriber.updated", ["status"]]
      ])
    })))

  it.effect("a bounced subscriber can be reactivated by the API", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      const { subscriber } = yield* subscribers.create(principal, { email: email("ada@example.com") })
      yield* markAs(subscriber.id, principal, "bounced")
      const updated = yield* subscribers.update(principal, subscriber.id, { status: "active" })
      expect(updated.subscriber.status).toBe("active")
    })))

  it.effect("a complained subscriber cannot be reactivated through the API, and nothing is recorded", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      const { subscriber } = yield* subscribers.create(principal, { email: email("ada@example.com") })
      yield* markAs(subscriber.id, principal, "complained")

      const error = yield* Effect.flip(subscribers.update(principal, subscriber.id, { status: "active", firstName: "Ada" }))

      expect(error).toMatchObject({ _tag: "InvalidStatusTransition", from: "complained", to: "active", actor: "api" })
      const stored = yield* subscribers.get(principal, subscriber.id)
      expect(stored.subscriber.status).toBe("complained")
      expect(stored.subscriber.firstName).toBeNull()
      expect(yield* recordedTypes(organization.id)).toEqual(["subscriber.created"])
      expect((yield* subscribers.update(principal, subscriber.id, { status: "unsubscribed" })).subscriber.status)
        .toBe("unsubscribed")
    })))

  it.effect("the API cannot mark a subscriber bounced or complained", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      const { subscriber } = yield* subscribers.create(principal, { email: email("ada@example.com") })
      for (const status of ["bounced", "complained"] as const) {
        expect(yield* Effect.flip(subscribers.update(principal, subscriber.id, { status }))).toMatchObject({
          _tag: "InvalidStatusTransition",
          from: "active",
          to: status
        })
      }
    })))
})

describe("removing a subscriber", () => {
  it.effect("records subscriber.deleted, detaches its tags and frees its plan slot", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const subscribers = yield* Subscribers
      const { subscriber } = yield* subscribers.create(principal, { email: email("ada@example.com"), tagIds: [news.id] })

      yield* subscribers.remove(principal, subscriber.id)

      const events = yield* (yield* Outbox).recorded(organization.id)
      expect(events.map((e) => e.type)).toEqual(["subscriber.created", "tag.subscribed", "subscriber.deleted"])
      expect(events[2]!.data).toMatchObject({ subscriber: { id: subscriber.id, email: "ada@example.com" } })
      expect(yield* Effect.flip(subscribers.get(principal, subscriber.id))).toMatchObject({
        _tag: "ResourceNotFound",
        resource: "subscriber",
        id: subscriber.id
      })
      expect((yield* (yield* Tags).get(principal, news.id)).subscriberCount).toBe(0)
      expect(Option.getOrThrow(yield* (yield* OrganizationRepository).findById(organization.id)).subscriberCount).toBe(0)
      yield* subscribers.create(principal, { email: email("ada@example.com") })
    })))
})

describe("a subscriber's tags", () => {
  it.effect("attaching records tag.subscribed for new tags only; detaching records tag.unsubscribed once", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const digest = yield* newTag(principal, "Weekly digest")
      const subscribers = yield* Subscribers
      const { subscriber } = yield* subscribers.create(principal, { email: email("ada@example.com"), tagIds: [news.id] })

      const attached = yield* subscribers.attachTags(principal, subscriber.id, [news.id, digest.id])
      expect(tagIdsOf(attached)).toEqual([news.id, digest.id])
      yield* subscribers.attachTags(principal, subscriber.id, [digest.id])
      expect(yield* recordedTypes(organization.id)).toEqual(["subscriber.created", "tag.subscribed", "tag.subscribed"])

      yield* subscribers.detachTag(principal, subscriber.id, news.id)
      yield* subscribers.detachTag(principal, subscriber.id, news.id)
      const events = yield* (yield* Outbox).recorded(organization.id)
      expect(events.map((e) => e.type)).toEqual(["subscriber.created", "tag.subscribed", "tag.subscribed", "tag.unsubscribed"])
      expect(events[3]!.data).toMatchObject({ tag: { id: news.id } })
      expect((yield* subscribers.listTags(principal, subscriber.id)).map(({ tag }) => tag.id)).toEqual([digest.id])
      const tags = yield* Tags
      expect((yield* tags.get(principal, news.id)).subscriberCount).toBe(0)
      expect((yield* tags.get(principal, digest.id)).subscriberCount).toBe(1)
    })))

  it.effect("an unknown tag id is refused, naming its place in tag_ids", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const subscribers = yield* Subscribers
      const { subscriber } = yield* subscribers.create(principal, { email: email("ada@example.com") })
      const missing = (yield* unknownId) as TagId
      expect(yield* Effect.flip(subscribers.attachTags(principal, subscriber.id, [news.id, news.id, missing]))).toMatchObject({
        _tag: "InvalidInput",
        field: "tag_ids[2]"
      })
      expect(yield* subscribers.listTags(principal, subscriber.id)).toEqual([])
    })))
})

describe("listing subscribers", () => {
  /** Seven subscribers, some created in the same millisecond, so that ties break on the id. */
  const seven = (principal: Principal) =>
    Effect.gen(function*() {
      const subscribers = yield* Subscribers
      const created: Array<Subscriber> = []
      for (const [i, local] of ["grace", "Ada", "linus", "barbara", "Edsger", "alan", "margaret"].entries()) {
        if (i % 3 === 0) yield* TestClock.adjust("1 second")
        created.push((yield* subscribers.create(principal, { email: email(`${local}@example.com`) })).subscriber)
      }
      return created
    })

  const allPages = (principal: Principal, request: { sort: "created_at" | "updated_at" | "email"; order: "asc" | "desc" }) =>
    Effect.gen(function*() {
      const subscribers = yield* Subscribers
      const pages: Array<ReadonlyArray<string>> = []
      let cursor: string | undefined = undefined
      do {
        const page: SubscriberPage = yield* subscribers.list(principal, { ...request, limit: 3, cursor })
        expect(page.total).toBe(7)
        pages.push(page.items.map((view) => view.subscriber.email))
        cursor = page.nextCursor ?? undefined
      } while (cursor !== undefined)
      return pages
    })

  it.effect("walks every subscriber once, newest first, three to a page", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const created = yield* seven(principal)
      const newestFirst = [...created]
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
        .map((s) => s.email)
      const pages = yield* allPages(principal, { sort: "created_at", order: "desc" })
      expect(pages.map((page) => page.length)).toEqual([3, 3, 1])
      expect(pages.flat()).toEqual(newestFirst)
    })))

  it.effect("walks by email regardless of letter case", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      yield* seven(principal)
      const pages = yield* allPages(principal, { sort: "email", order: "asc" })
      expect(pages.flat()).toEqual([
        "Ada@example.com",
        "alan@example.com",
        "barbara@example.com",
        "Edsger@example.com",
        "grace@example.com",
        "linus@example.com",
        "margaret@example.com"
      ])
    })))

  it.effect("refuses a cursor that belongs to another sort", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      yield* seven(principal)
      const subscribers = yield* Subscribers
      const first = yield* subscribers.list(principal, { sort: "created_at", order: "desc", limit: 2 })
      const error = yield* Effect.flip(
        subscribers.list(principal, { sort: "email", order: "desc", limit: 2, cursor: first.nextCursor! })
      )
      expect(error).toMatchObject({ _tag: "InvalidInput", field: "cursor" })
      expect(error.message).toContain("sort=created_at&order=desc")
    })))

  it.effect("refuses a hand-made cursor whose value does not fit the sort", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      const id = yield* unknownId
      for (const value of ["yesterday", 1_700_000_000_000, "2025-13-45T99:99:99.999Z"]) {
        const cursor = encodeCursor({ sort: "created_at", order: "desc", value, id })
        expect(yield* Effect.flip(subscribers.list(principal, { sort: "created_at", order: "desc", limit: 2, cursor })))
          .toMatchObject({ _tag: "InvalidInput", field: "cursor" })
      }
      const mangled = Encoding.encodeBase64Url("[\"created_at\",\"desc\"]")
      expect(yield* Effect.flip(subscribers.list(principal, { sort: "created_at", order: "desc", limit: 2, cursor: mangled })))
        .toMatchObject({ _tag: "InvalidInput", field: "cursor" })
    })))

  it.effect("filters by status and by tag, and counts what the filter keeps", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const subscribers = yield* Subscribers
      const ada = yield* subscribers.create(principal, { email: email("ada@example.com"), tagIds: [news.id] })
      yield* subscribers.create(principal, { email: email("grace@example.com"), tagIds: [news.id] })
      yield* subscribers.create(principal, { email: email("alan@example.com") })
      yield* subscribers.update(principal, ada.subscriber.id, { status: "unsubscribed" })

      const tagged = yield* subscribers.list(principal, { tagId: news.id, sort: "email", order: "asc", limit: 50 })
      expect(tagged.total).toBe(2)
      expect(tagged.items.map((v) => v.subscriber.email)).toEqual(["ada@example.com", "grace@example.com"])
      expect(tagged.items.every((v) => tagIdsOf(v).includes(news.id))).toBe(true)
      const active = yield* subscribers.list(principal, { status: "active", sort: "email", order: "asc", limit: 50 })
      expect(active.items.map((v) => v.subscriber.email)).toEqual(["alan@example.com", "grace@example.com"])
      expect(active.total).toBe(2)
      expect(active.nextCursor).toBeNull()
    })))

  it.effect("searches by the start of the email, letter case ignored, with the filters and numbered pages alike", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const subscribers = yield* Subscribers
      const ada = yield* subscribers.create(principal, { email: email("Ada@example.com"), tagIds: [news.id] })
      yield* subscribers.create(principal, { email: email("adam@example.com") })
      yield* subscribers.create(principal, { email: email("ÉMILE@example.com"), tagIds: [news.id] })
      yield* subscribers.create(principal, { email: email("grace@example.com"), tagIds: [news.id] })
      yield* subscribers.update(principal, ada.subscriber.id, { status: "unsubscribed" })
      const emails = (page: { readonly items: ReadonlyArray<SubscriberView> }) => page.items.map((v) => v.subscriber.email)
      const list = (request: { readonly search?: string; readonly status?: SubscriberStatus; readonly tagId?: TagId }) =>
        subscribers.list(principal, { ...request, sort: "email", order: "asc", limit: 50 })

      const found = yield* list({ search: " AD" })
      expect(emails(found)).toEqual(["Ada@example.com", "adam@example.com"])
      expect(found).toMatchObject({ total: 2, totalCapped: false, nextCursor: null })
      expect(emails(yield* list({ search: "émi" }))).toEqual(["ÉMILE@example.com"])
      expect(emails(yield* list({ search: "ad", status: "active" }))).toEqual(["adam@example.com"])
      expect(emails(yield* list({ search: "ad", tagId: news.id }))).toEqual(["Ada@example.com"])
      expect(yield* list({ search: "ad", tagId: news.id, status: "active" })).toMatchObject({ items: [], total: 0 })
      expect((yield* list({ search: "" })).total).toBe(4)
      const numbered = yield* subscribers.listPage(principal, { page: 1, perPage: 1, search: "AD", sort: [{ field: "email", order: "asc" }] })
      expect(emails(numbered)).toEqual(["Ada@example.com"])
      expect(numbered).toMatchObject({ total: 2, totalPages: 2 })
      const named = yield* subscribers.listPage(principal, { page: 1, perPage: 10, search: "g", tagName: "PRODUCT NEWS" })
      expect(emails(named)).toEqual(["grace@example.com"])
    })))

  it.effect("refuses a search longer than 320 characters or holding a NUL, naming search", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      for (const search of ["a".repeat(MAX_SEARCH_LENGTH + 1), "ada\u0000"]) {
        const error = yield* Effect.flip(subscribers.list(principal, { search, sort: "email", order: "asc", limit: 50 }))
        expect(error).toMatchObject({ _tag: "InvalidInput", field: "search" })
        const numbered = yield* Effect.flip(subscribers.listPage(principal, { page: 1, perPage: 10, search }))
        expect(numbered).toMatchObject({ _tag: "InvalidInput", field: "search" })
      }
      const longest = yield* subscribers.list(principal, { search: "a".repeat(MAX_SEARCH_LENGTH), sort: "email", order: "asc", limit: 50 })
      expect(longest.total).toBe(0)
    })))

  it.effect("a capped count stops at 10,000 where rows are counted, and says so; an exact one counts them all", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization({ tier: "enterprise" })
      const ids = yield* Ids
      const at = new Date(startOfJune)
      const many = yield* Effect.forEach(Array.from({ length: COUNT_CAP + 1 }), () => ids.next)
      // Straight into the store: ten thousand creates through the use case would only slow the test.
      yield* (yield* MemoryStore).write((t) => {
        for (const [i, id] of many.entries()) {
          t.subscribers.set(id, new Subscriber({
            id: id as SubscriberId,
            organizationId: organization.id,
            email: email(`reader-${i}@example.com`),
            status: "active",
            metadata: {},
            firstName: null,
            lastName: null,
            createdAt: at,
            updatedAt: at
          }, true))
        }
      })
      const subscribers = yield* Subscribers
      const request = { sort: "created_at", order: "desc", limit: 10 } as const
      expect(yield* subscribers.list(principal, { ...request, status: "active", count: "capped" }))
        .toMatchObject({ total: COUNT_CAP, totalCapped: true })
      expect(yield* subscribers.list(principal, { ...request, search: "reader-", count: "capped" }))
        .toMatchObject({ total: COUNT_CAP, totalCapped: true })
      // reader-1, reader-10 to -19, -100 to -199, -1000 to -1999 and reader-10000.
      expect(yield* subscribers.list(principal, { ...request, search: "reader-1", count: "capped" }))
        .toMatchObject({ total: 1112, totalCapped: false })
      expect(yield* subscribers.list(principal, { ...request, status: "active" }))
        .toMatchObject({ total: COUNT_CAP + 1, totalCapped: false })
    })))

  it.effect("shows only the caller's own subscribers", () =>
    inMemory(Effect.gen(function*() {
      const mine = yield* openOrganization()
      const theirs = yield* openOrganization()
      const subscribers = yield* Subscribers
      yield* subscribers.create(mine.principal, { email: email("ada@example.com") })
      yield* subscribers.create(theirs.principal, { email: email("grace@example.com") })
      const page = yield* subscribers.list(mine.principal, { sort: "created_at", order: "desc", limit: 50 })
      expect(page.total).toBe(1)
      expect(page.items.map((v) => v.subscriber.email)).toEqual(["ada@example.com"])
    })))
})

describe("tenancy", () => {
  it.effect("another organization's subscriber cannot be read, changed, removed or tagged", () =>
    inMemory(Effect.gen(function*() {
      const owner = yield* openOrganization()
      const intruder = yield* openOrganization()
      const ownerTag = yield* newTag(owner.principal, "Product news")
      const intruderTag = yield* newTag(intruder.principal, "Intruder news")
      const subscribers = yield* Subscribers
      const { subscriber } = yield* subscribers.create(owner.principal, { email: email("ada@example.com"), tagIds: [ownerTag.id] })
      const before = yield* recordedTypes(owner.organization.id)
      const p = intruder.principal

      const attempts: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string; readonly message: string }>> = [
        subscribers.get(p, subscriber.id),
        subscribers.update(p, subscriber.id, { status: "unsubscribed", metadata: { taken: true } }),
        subscribers.remove(p, subscriber.id),
        subscribers.listTags(p, subscriber.id),
        subscribers.attachTags(p, subscriber.id, [intruderTag.id]),
        subscribers.detachTag(p, subscriber.id, ownerTag.id)
      ]
      for (const attempt of attempts) {
        const error = yield* Effect.flip(attempt)
        expect(error).toMatchObject({ _tag: "ResourceOfAnotherOrganization", resource: "subscriber", id: subscriber.id })
        expect(error.message).not.toContain("ada@example.com")
      }

      const own = yield* subscribers.create(p, { email: email("eve@example.com") })
      expect(yield* Effect.flip(subscribers.detachTag(p, own.subscriber.id, ownerTag.id))).toMatchObject({
        _tag: "ResourceOfAnotherOrganization",
        resource: "tag",
        id: ownerTag.id
      })

      const untouched = yield* subscribers.get(owner.principal, subscriber.id)
      expect(untouched.subscriber).toEqual(subscriber)
      expect(tagIdsOf(untouched)).toEqual([ownerTag.id])
      expect(yield* recordedTypes(owner.organization.id)).toEqual(before)
      expect(yield* Effect.flip(subscribers.getByEmail(p, email("ada@example.com")))).toMatchObject({ _tag: "ResourceNotFound" })
    })))

  it.effect("an id that names no subscriber is not found", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const id = (yield* unknownId) as SubscriberId
      const subscribers = yield* Subscribers
      const attempts: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }>> = [
        subscribers.get(principal, id),
        subscribers.update(principal, id, { status: "unsubscribed" }),
        subscribers.remove(principal, id),
        subscribers.listTags(principal, id),
        subscribers.attachTags(principal, id, [news.id]),
        subscribers.detachTag(principal, id, news.id)
      ]
      for (const attempt of attempts) {
        expect(yield* Effect.flip(attempt)).toMatchObject({ _tag: "ResourceNotFound", resource: "subscriber", id })
      }
      const { subscriber } = yield* subscribers.create(principal, { email: email("ada@example.com") })
      const tagId = (yield* unknownId) as TagId
      expect(yield* Effect.flip(subscribers.detachTag(principal, subscriber.id, tagId))).toMatchObject({
        _tag: "ResourceNotFound",
        resource: "tag",
        id: tagId
      })
    })))
})

describe("scopes", () => {
  it.effect("a key without scopes may do nothing with subscribers", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const subscribers = yield* Subscribers
      const { subscriber } = yield* subscribers.create(principal, { email: email("ada@example.com"), tagIds: [news.id] })
      const before = yield* recordedTypes(organization.id)
      const none = yield* keyFor(organization.id, [])

      const attempts = [
        ["subscribers:write", subscribers.create(none, { email: email("grace@example.com") })],
        ["subscribers:read", subscribers.get(none, subscriber.id)],
        ["subscribers:read", subscribers.getByEmail(none, subscriber.email)],
        ["subscribers:read", subscribers.list(none, { sort: "created_at", order: "desc", limit: 10 })],
        ["subscribers:write", subscribers.update(none, subscriber.id, { status: "unsubscribed" })],
        ["subscribers:delete", subscribers.remove(none, subscriber.id)],
        ["subscribers:read", subscribers.listTags(none, subscriber.id)],
        ["subscribers:write", subscribers.attachTags(none, subscriber.id, [news.id])],
        ["subscribers:write", subscribers.detachTag(none, subscriber.id, news.id)]
      ] as const
      for (const [scope, attempt] of attempts) {
        expect(yield* Effect.flip(attempt as Effect.Effect<unknown, { readonly _tag: string }>)).toMatchObject({
          _tag: "MissingScope",
          scope
        })
      }
      expect(yield* recordedTypes(organization.id)).toEqual(before)
      expect((yield* subscribers.get(principal, subscriber.id)).subscriber.status).toBe("active")
    })))

  it.effect("a read-only key reads subscribers but cannot change them", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      const { subscriber } = yield* subscribers.create(principal, { email: email("ada@example.com") })
      const reader = yield* keyFor(organization.id, ["subscribers:read"])
      expect((yield* subscribers.get(reader, subscriber.id)).subscriber.id).toBe(subscriber.id)
      expect(yield* Effect.flip(subscribers.update(reader, subscriber.id, { firstName: "Ada" }))).toMatchObject({
        _tag: "MissingScope",
        scope: "subscribers:write"
      })
      const writer = yield* keyFor(organization.id, ["subscribers:write"])
      expect(yield* Effect.flip(subscribers.remove(writer, subscriber.id))).toMatchObject({
        _tag: "MissingScope",
        scope: "subscribers:delete"
      })
    })))
})

describe("subscribers with tags by name", () => {
  it.effect("a create names tags, known and new, with first and last name; each tag once, in order", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const subscribers = yield* Subscribers
      const created = yield* subscribers.create(principal, {
        email: email("ada@example.com"),
        firstName: "Ada",
        lastName: "Lovelace",
        tagNames: ["Launches", "product NEWS", "launches"]
      })
      expect(created.subscriber).toMatchObject({ firstName: "Ada", lastName: "Lovelace" })
      expect(created.tags.map(({ tag }) => tag.name)).toEqual(["Launches", "Product news"])
      expect(created.tags[1]!.tag.id).toBe(news.id)
      const launches = yield* (yield* Tags).getByName(principal, "launches")
      expect(launches).toMatchObject({ slug: "launches", subscriberCount: 1 })
      expect(yield* recordedTypes(organization.id)).toEqual(["subscriber.created", "tag.subscribed", "tag.subscribed"])
      expect((yield* subscribers.get(principal, created.subscriber.id)).tags.map(({ tag }) => tag.id).sort())
        .toEqual([launches.id, news.id].sort())
    })))

  it.effect("tag ids and tag names together are refused", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const error = yield* Effect.flip((yield* Subscribers).create(principal, {
        email: email("ada@example.com"),
        tagIds: [news.id],
        tagNames: ["Product news"]
      }))
      expect(error).toMatchObject({ _tag: "InvalidInput", field: "tags" })
      expect(yield* recordedTypes(organization.id)).toEqual([])
    })))

  it.effect("without tags:write an unknown name is refused at its place, and neither subscriber nor tag is made", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      yield* newTag(principal, "Product news")
      const writer = yield* keyFor(organization.id, ["subscribers:write", "subscribers:read"])
      const subscribers = yield* Subscribers
      const error = yield* Effect.flip(
        subscribers.create(writer, { email: email("ada@example.com"), tagNames: ["Product news", "Launches"] })
      )
      expect(error).toMatchObject({ _tag: "InvalidInput", field: "tags[1]" })
      expect(yield* Effect.flip(subscribers.getByEmail(principal, email("ada@example.com")))).toMatchObject({
        _tag: "ResourceNotFound"
      })
      expect(yield* Effect.flip((yield* Tags).getByName(principal, "Launches"))).toMatchObject({ _tag: "ResourceNotFound" })
      const created = yield* subscribers.create(writer, { email: email("ada@example.com"), tagNames: ["product news"] })
      expect(created.tags.map(({ tag }) => tag.name)).toEqual(["Product news"])
    })))

  it.effect("a create that fails leaves no tag it would have made", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      yield* subscribers.create(principal, { email: email("ada@example.com") })
      const error = yield* Effect.flip(subscribers.create(principal, { email: email("ADA@example.com"), tagNames: ["Launches"] }))
      expect(error).toMatchObject({ _tag: "EmailAlreadyExists" })
      expect(yield* Effect.flip((yield* Tags).getByName(principal, "Launches"))).toMatchObject({ _tag: "ResourceNotFound" })
    })))

  it.effect("changing tags records tag.subscribed and tag.unsubscribed for real changes only", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const news = yield* newTag(principal, "Product news")
      const offers = yield* newTag(principal, "Offers")
      const subscribers = yield* Subscribers
      const ada = yield* subscribers.create(principal, { email: email("ada@example.com"), tagIds: [news.id, offers.id] })
      const before = (yield* recordedTypes(organization.id)).length

      const changed = yield* subscribers.changeTags(principal, ada.subscriber.id, {
        add: ["product news", "Launches", "LAUNCHES"],
        remove: ["offers", "Never heard of it"]
      })
      expect(changed.subscriber.id).toBe(ada.subscriber.id)
      expect(changed.tags.map(({ tag }) => tag.name)).toEqual(["Product news", "Launches"])
      const events = (yield* (yield* Outbox).recorded(organization.id)).slice(before)
      expect(events.map((e) => e.type)).toEqual(["tag.subscribed", "tag.unsubscribed"])
      expect(events.map((e) => e.data)).toEqual([
        {
          subscriber: { id: ada.subscriber.id, email: "ada@example.com" },
          tag: { id: changed.tags[1]!.tag.id, name: "Launches", slug: "launches" }
        },
        {
          subscriber: { id: ada.subscriber.id, email: "ada@example.com" },
          tag: { id: offers.id, name: "Offers", slug: "offers" }
        }
      ])
      expect((yield* (yield* Tags).get(principal, offers.id)).subscriberCount).toBe(0)
      expect(yield* Effect.flip((yield* Tags).getByName(principal, "Never heard of it"))).toMatchObject({
        _tag: "ResourceNotFound"
      })

      const again = yield* subscribers.changeTags(principal, ada.subscriber.id, { add: ["Launches"], remove: ["Offers"] })
      expect(again.tags).toEqual(changed.tags)
      expect((yield* recordedTypes(organization.id)).length).toBe(before + 2)
      expect((yield* subscribers.changeTags(principal, ada.subscriber.id, {})).tags).toEqual(changed.tags)
    })))

  it.effect("changing tags refuses a name in both lists, a bad name, and another organization's subscriber", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      const ada = yield* subscribers.create(principal, { email: email("ada@example.com"), tagNames: ["News"] })
      expect(
        yield* Effect.flip(subscribers.changeTags(principal, ada.subscriber.id, { add: ["Offers"], remove: ["News", "offers "] }))
      ).toMatchObject({ _tag: "InvalidInput", field: "remove[1]" })
      expect(yield* Effect.flip(subscribers.changeTags(principal, ada.subscriber.id, { add: ["Fine", ""] }))).toMatchObject({
        _tag: "InvalidInput",
        field: "add[1]"
      })
      expect(yield* Effect.flip(subscribers.changeTags(principal, ada.subscriber.id, { remove: ["x".repeat(101)] })))
        .toMatchObject({ _tag: "InvalidInput", field: "remove[0]" })
      expect(yield* Effect.flip((yield* Tags).getByName(principal, "Fine"))).toMatchObject({ _tag: "ResourceNotFound" })
      const intruder = yield* openOrganization()
      expect(yield* Effect.flip(subscribers.changeTags(intruder.principal, ada.subscriber.id, { add: ["News"] })))
        .toMatchObject({ _tag: "ResourceOfAnotherOrganization", resource: "subscriber" })
      const reader = yield* keyFor(organization.id, ["subscribers:read"])
      expect(yield* Effect.flip(subscribers.changeTags(reader, ada.subscriber.id, { add: ["News"] }))).toMatchObject({
        _tag: "MissingScope",
        scope: "subscribers:write"
      })
      expect((yield* subscribers.get(principal, ada.subscriber.id)).tags.map(({ tag }) => tag.name)).toEqual(["News"])
    })))
})

describe("numbered pages of subscribers", () => {
  /** Five subscribers a minute apart, of mixed statuses, some tagged `News`. */
  const givenFive = (principal: Principal) =>
    Effect.gen(function*() {
      yield* TestClock.setTime(startOfJune)
      const subscribers = yield* Subscribers
      const created: Array<SubscriberView> = []
      for (const [address, tagNames] of [
        ["dora@example.com", ["News"]],
        ["ada@example.com", []],
        ["carl@example.com", ["news"]],
        ["bea@example.com", ["News"]],
        ["eve@example.com", []]
      ] as const) {
        yield* TestClock.adjust("1 minute")
        created.push(yield* subscribers.create(principal, { email: email(address), tagNames }))
      }
      yield* subscribers.update(principal, created[1]!.subscriber.id, { status: "unsubscribed" })
      yield* subscribers.update(principal, created[2]!.subscriber.id, { status: "unsubscribed" })
      return created
    })

  const emails = (page: { readonly items: ReadonlyArray<SubscriberView> }) => page.items.map((view) => view.subscriber.email)

  it.effect("come newest first unless told otherwise, with their tags and the totals", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      yield* givenFive(principal)
      const subscribers = yield* Subscribers
      const first = yield* subscribers.listPage(principal, { page: 1, perPage: 2 })
      expect(first).toMatchObject({ total: 5, page: 1, perPage: 2, totalPages: 3 })
      expect(emails(first)).toEqual(["eve@example.com", "bea@example.com"])
      expect(first.items[1]!.tags.map(({ tag }) => tag.name)).toEqual(["News"])
      expect(emails(yield* subscribers.listPage(principal, { page: 3, perPage: 2 }))).toEqual(["dora@example.com"])
      expect(yield* subscribers.listPage(principal, { page: 9, perPage: 2 })).toMatchObject({ items: [], total: 5, totalPages: 3 })
    })))

  it.effect("sort by several fields and filter by status and by tag name", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      yield* givenFive(principal)
      const subscribers = yield* Subscribers
      const byStatus = yield* subscribers.listPage(principal, {
        page: 1,
        perPage: 10,
        sort: [{ field: "status", order: "desc" }, { field: "email", order: "asc" }]
      })
      expect(emails(byStatus)).toEqual(["ada@example.com", "carl@example.com", "bea@example.com", "dora@example.com", "eve@example.com"])
      const tagged = yield* subscribers.listPage(principal, {
        page: 1,
        perPage: 10,
        tagName: "NEWS",
        sort: [{ field: "email", order: "asc" }]
      })
      expect(tagged).toMatchObject({ total: 3, totalPages: 1 })
      expect(emails(tagged)).toEqual(["bea@example.com", "carl@example.com", "dora@example.com"])
      const activeTagged = yield* subscribers.listPage(principal, { page: 1, perPage: 1, tagName: "news", status: "active" })
      expect(activeTagged).toMatchObject({ total: 2, totalPages: 2 })
      expect(emails(activeTagged)).toEqual(["bea@example.com"])
      expect(yield* subscribers.listPage(principal, { page: 1, perPage: 10, tagName: "Nothing by this name" })).toEqual({
        items: [],
        total: 0,
        page: 1,
        perPage: 10,
        totalPages: 0
      })
    })))

  it.effect("refuse a page, a page size or a sort they cannot serve", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      const refusals = [
        [{ page: 0, perPage: 10 }, "page"],
        [{ page: -1, perPage: 10 }, "page"],
        [{ page: 1, perPage: 0 }, "per_page"],
        [{ page: 1, perPage: 100.5 }, "per_page"],
        [{ page: 1, perPage: 101 }, "per_page"],
        [{ page: 1, perPage: 10, sort: [{ field: "name", order: "asc" }] }, "sort"],
        [{ page: 1, perPage: 10, sort: [{ field: "email", order: "asc" }, { field: "email", order: "asc" }] }, "sort"]
      ] as const
      for (const [request, field] of refusals) {
        expect(yield* Effect.flip(subscribers.listPage(principal, request))).toMatchObject({ _tag: "InvalidInput", field })
      }
      expect(yield* subscribers.listPage(principal, { page: 1, perPage: 100 })).toMatchObject({ items: [], total: 0 })
      const none = yield* keyFor(principal.organization.id, [])
      expect(yield* Effect.flip(subscribers.listPage(none, { page: 1, perPage: 10 }))).toMatchObject({
        _tag: "MissingScope",
        scope: "subscribers:read"
      })
    })))
})
