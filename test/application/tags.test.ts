import { describe, expect, it } from "@effect/vitest"
import type { TagId } from "@roster/domain"
import { Effect, TestClock } from "effect"
import {
  Ids,
  Outbox,
  type Principal,
  Subscribers,
  type TagPage,
  Tags
} from "@roster/application"
import { email, keyFor, openOrganization, recordedTypes, UseCasesInMemory } from "./test-kit.js"

const inMemory = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, UseCasesInMemory)

const unknownTagId = Effect.map(Effect.flatMap(Ids, (ids) => ids.next), (id) => id as TagId)

describe("creating a tag", () => {
  it.effect("makes the slug from the name unless one is given", () =>
    inMemory(Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-06-01T09:00:00.000Z"))
      const { organization, principal } = yield* openOrganization()
      const tags = yield* Tags
      const news = yield* tags.create(principal, { name: "Café News!", description: "What is new" })
      expect(news).toMatchObject({
        organizationId: organization.id,
        name: "Café News!",
        slug: "cafe-news",
        description: "What is new",
        metadata: {},
        subscriberCount: 0
      })
      expect(news.createdAt).toEqual(new Date("2025-06-01T09:00:00.000Z"))
      const given = yield* tags.create(principal, { name: "Weekly digest", slug: "weekly" })
      expect(given.slug).toBe("weekly")
    })))

  it.effect("a name that suggests no slug needs one given; a bad slug is refused", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      expect(yield* Effect.flip(tags.create(principal, { name: "新闻" }))).toMatchObject({
        _tag: "InvalidInput",
        field: "slug",
        problem: "cannot be made from the name; give one"
      })
      expect(yield* Effect.flip(tags.create(principal, { name: "News", slug: "Weekly News" }))).toMatchObject({
        _tag: "InvalidInput",
        field: "slug"
      })
      expect((yield* tags.create(principal, { name: "新闻", slug: "xinwen" })).slug).toBe("xinwen")
    })))

  it.effect("names are unique regardless of letter case, and slugs are unique", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      yield* tags.create(principal, { name: "Product news", slug: "product-news" })
      expect(yield* Effect.flip(tags.create(principal, { name: "PRODUCT NEWS", slug: "other" }))).toMatchObject({
        _tag: "TagAlreadyExists",
        field: "name"
      })
      expect(yield* Effect.flip(tags.create(principal, { name: "Releases", slug: "product-news" }))).toMatchObject({
        _tag: "TagAlreadyExists",
        field: "slug",
        value: "product-news"
      })
      const other = yield* openOrganization()
      expect((yield* tags.create(other.principal, { name: "Product news" })).slug).toBe("product-news")
    })))
})

describe("reading and changing a tag", () => {
  it.effect("finds a tag by name in any letter case", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      const news = yield* tags.create(principal, { name: "Product news" })
      expect((yield* tags.getByName(principal, "product NEWS")).id).toBe(news.id)
      expect(yield* Effect.flip(tags.getByName(principal, "Releases"))).toMatchObject({ _tag: "ResourceNotFound", resource: "tag" })
    })))

  it.effect("an update moves updatedAt only when something changed", () =>
    inMemory(Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-06-01T09:00:00.000Z"))
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      const news = yield* tags.create(principal, { name: "Product news", metadata: { colour: "red", rank: 1 } })

      yield* TestClock.adjust("1 hour")
      const same = yield* tags.update(principal, news.id, { name: "Product news", metadata: { rank: 1, colour: "red" } })
      expect(same.updatedAt).toEqual(news.updatedAt)

      const renamed = yield* tags.update(principal, news.id, { name: "Company news", description: null })
      expect(renamed).toMatchObject({ name: "Company news", slug: "product-news", metadata: { colour: "red", rank: 1 } })
      expect(renamed.updatedAt).toEqual(new Date("2025-06-01T10:00:00.000Z"))
      expect(renamed.createdAt).toEqual(news.createdAt)
      expect((yield* tags.get(principal, news.id)).name).toBe("Company news")
    })))
})

describe("deleting a tag", () => {
  it.effect("records tag.unsubscribed for each subscriber that carried it, and the counts drop", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const tags = yield* Tags
      const subscribers = yield* Subscribers
      const news = yield* tags.create(principal, { name: "Product news" })
      const digest = yield* tags.create(principal, { name: "Weekly digest" })
      const ada = yield* subscribers.create(principal, { email: email("ada@example.com"), tagIds: [news.id, digest.id] })
      const grace = yield* subscribers.create(principal, { email: email("grace@example.com"), tagIds: [news.id] })
      yield* subscribers.create(principal, { email: email("alan@example.com"), tagIds: [digest.id] })
      const recordedBefore = (yield* recordedTypes(organization.id)).length

      yield* tags.remove(principal, news.id)

      const events = (yield* (yield* Outbox).recorded(organization.id)).slice(recordedBefore)
      expect(events.map((e) => e.type)).toEqual(["tag.unsubscribed", "tag.unsubscribed"])
      expect(events.map((e) => e.data).sort((a, b) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)).toEqual(
        [
          { subscriber: { id: ada.subscriber.id, email: "ada@example.com" }, tag: { id: news.id, name: "Product news", slug: "product-news" }, reason: "tag_deleted" },
          { subscriber: { id: grace.subscriber.id, email: "grace@example.com" }, tag: { id: news.id, name: "Product news", slug: "product-news" }, reason: "tag_deleted" }
        ].sort((a, b) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)
      )
      expect(yield* Effect.flip(tags.get(principal, news.id))).toMatchObject({ _tag: "ResourceNotFound", id: news.id })
      expect((yield* tags.list(principal, { sort: "name", order: "asc", limit: 50 })).total).toBe(1)
      expect((yield* subscribers.listTags(principal, ada.subscriber.id)).map(({ tag }) => tag.id)).toEqual([digest.id])
      expect(yield* subscribers.listTags(principal, grace.subscriber.id)).toEqual([])
      expect((yield* tags.get(principal, digest.id)).subscriberCount).toBe(2)
      expect((yield* subscribers.list(principal, { tagId: digest.id, sort: "email", order: "asc", limit: 50 })).total).toBe(2)
    })))

  it.effect("a tag nobody carries is deleted without events", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const tags = yield* Tags
      const news = yield* tags.create(principal, { name: "Product news" })
      yield* tags.remove(principal, news.id)
      expect(yield* recordedTypes(organization.id)).toEqual([])
      expect((yield* tags.create(principal, { name: "Product news" })).slug).toBe("product-news")
    })))
})

describe("listing tags", () => {
  const allPages = (principal: Principal, request: { sort: "name" | "created_at" | "subscriber_count"; order: "asc" | "desc" }) =>
    Effect.gen(function*() {
      const tags = yield* Tags
      const names: Array<string> = []
      let cursor: string | undefined = undefined
      do {
        const page: TagPage = yield* tags.list(principal, { ...request, limit: 2, cursor })
        expect(page.items.length).toBeLessThanOrEqual(2)
        names.push(...page.items.map((tag) => tag.name))
        cursor = page.nextCursor ?? undefined
      } while (cursor !== undefined)
      return names
    })

  it.effect("walks tags by name and by how many subscribers carry them", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      const subscribers = yield* Subscribers
      const created = []
      for (const name of ["weekly", "Announcements", "events", "Beta", "offers"]) {
        created.push(yield* tags.create(principal, { name }))
      }
      const [weekly, announcements, events] = created
      yield* subscribers.create(principal, { email: email("ada@example.com"), tagIds: [weekly!.id, announcements!.id, events!.id] })
      yield* subscribers.create(principal, { email: email("grace@example.com"), tagIds: [weekly!.id, events!.id] })
      yield* subscribers.create(principal, { email: email("alan@example.com"), tagIds: [weekly!.id] })

      expect(yield* allPages(principal, { sort: "name", order: "asc" })).toEqual(["Announcements", "Beta", "events", "offers", "weekly"])
      const byCount = yield* allPages(principal, { sort: "subscriber_count", order: "desc" })
      expect(byCount.slice(0, 3)).toEqual(["weekly", "events", "Announcements"])
      expect([...byCount.slice(3)].sort()).toEqual(["Beta", "offers"])
    })))

  it.effect("refuses a cursor of another sort", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      for (const name of ["one", "two", "three"]) yield* tags.create(principal, { name })
      const first = yield* tags.list(principal, { sort: "name", order: "asc", limit: 1 })
      expect(first.total).toBe(3)
      expect(yield* Effect.flip(tags.list(principal, { sort: "created_at", order: "asc", limit: 1, cursor: first.nextCursor! })))
        .toMatchObject({ _tag: "InvalidInput", field: "cursor" })
    })))
})

describe("tenancy and scopes", () => {
  it.effect("another organization's tag cannot be read, changed or deleted", () =>
    inMemory(Effect.gen(function*() {
      const owner = yield* openOrganization()
      const intruder = yield* openOrganization()
      const tags = yield* Tags
      const news = yield* tags.create(owner.principal, { name: "Product news" })
      const attempts: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }>> = [
        tags.get(intruder.principal, news.id),
        tags.update(intruder.principal, news.id, { name: "Taken" }),
        tags.remove(intruder.principal, news.id)
      ]
      for (const attempt of attempts) {
        expect(yield* Effect.flip(attempt)).toMatchObject({ _tag: "ResourceOfAnotherOrganization", resource: "tag", id: news.id })
      }
      expect(yield* Effect.flip(tags.getByName(intruder.principal, "Product news"))).toMatchObject({ _tag: "ResourceNotFound" })
      expect(yield* tags.get(owner.principal, news.id)).toEqual(news)
    })))

  it.effect("an id that names no tag is not found", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      const id = yield* unknownTagId
      const attempts: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }>> = [
        tags.get(principal, id),
        tags.update(principal, id, { name: "Nothing" }),
        tags.remove(principal, id)
      ]
      for (const attempt of attempts) {
        expect(yield* Effect.flip(attempt)).toMatchObject({ _tag: "ResourceNotFound", resource: "tag", id })
      }
    })))

  it.effect("a key without scopes may do nothing with tags; a tags:read key only reads", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const tags = yield* Tags
      const news = yield* tags.create(principal, { name: "Product news" })
      const none = yield* keyFor(organization.id, [])
      const attempts = [
        ["tags:write", tags.create(none, { name: "Releases" })],
        ["tags:read", tags.get(none, news.id)],
        ["tags:read", tags.getByName(none, "Product news")],
        ["tags:read", tags.list(none, { sort: "name", order: "asc", limit: 10 })],
        ["tags:write", tags.update(none, news.id, { name: "Taken" })],
        ["tags:write", tags.remove(none, news.id)]
      ] as const
      for (const [scope, attempt] of attempts) {
        expect(yield* Effect.flip(attempt as Effect.Effect<unknown, { readonly _tag: string }>)).toMatchObject({
          _tag: "MissingScope",
          scope
        })
      }
      const reader = yield* keyFor(organization.id, ["tags:read"])
      expect((yield* tags.get(reader, news.id)).name).toBe("Product news")
      expect(yield* Effect.flip(tags.remove(reader, news.id))).toMatchObject({ _tag: "MissingScope", scope: "tags:write" })
      expect((yield* tags.get(principal, news.id)).name).toBe("Product news")
    })))
})

describe("a tag's display name and category", () => {
  it.effect("are kept trimmed on create, changed or cleared on update, and checked", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      const news = yield* tags.create(principal, { name: "news", displayName: "  Product news ", category: " Newsletters " })
      expect(news).toMatchObject({ displayName: "Product news", category: "Newsletters" })
      const plain = yield* tags.create(principal, { name: "plain" })
      expect(plain).toMatchObject({ displayName: null, category: null })

      expect(yield* tags.update(principal, news.id, { category: "Announcements" })).toMatchObject({
        displayName: "Product news",
        category: "Announcements"
      })
      expect(yield* tags.update(principal, news.id, { displayName: null })).toMatchObject({
        displayName: null,
        category: "Announcements"
      })
      expect(yield* tags.get(principal, news.id)).toMatchObject({ displayName: null, category: "Announcements" })

      expect(yield* Effect.flip(tags.create(principal, { name: "long", category: "c".repeat(65) }))).toMatchObject({
        _tag: "InvalidInput",
        field: "category"
      })
      expect((yield* tags.create(principal, { name: "long", category: "c".repeat(64) })).category).toBe("c".repeat(64))
      expect(yield* Effect.flip(tags.update(principal, news.id, { category: "  " }))).toMatchObject({
        _tag: "InvalidInput",
        field: "category"
      })
      expect(yield* Effect.flip(tags.update(principal, news.id, { displayName: "Bell\u0007" }))).toMatchObject({
        _tag: "InvalidInput",
        field: "display_name"
      })
      expect(yield* Effect.flip(tags.create(principal, { name: "nul", displayName: "a\u0000b" }))).toMatchObject({
        _tag: "InvalidInput",
        field: "display_name"
      })
    })))
})

describe("tags by name", () => {
  it.effect("come in the order asked, each once, whatever the letter case", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const tags = yield* Tags
      const news = yield* tags.create(principal, { name: "Product news" })
      const events = yield* tags.create(principal, { name: "Events" })
      const found = yield* tags.resolveNames(principal, [" events", "PRODUCT NEWS", "Events", "product news "], {
        createMissing: false
      })
      expect(found.map((tag) => tag.id)).toEqual([events.id, news.id])
      expect(yield* tags.resolveNames(principal, [], { createMissing: true })).toEqual([])
      expect(yield* recordedTypes(organization.id)).toEqual([])
    })))

  it.effect("unknown names become tags when asked, with a slug from the name or a suffixed one", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      const cafe = yield* tags.create(principal, { name: "Café-News" })
      expect(cafe.slug).toBe("cafe-news")
      const resolved = yield* tags.resolveNames(principal, ["Launches", "café-news", "新闻", "Cafe News!", "LAUNCHES"], {
        createMissing: true
      })
      expect(resolved.map((tag) => tag.name)).toEqual(["Launches", "Café-News", "新闻", "Cafe News!"])
      const [launches, existing, chinese, other] = resolved
      expect(existing!.id).toBe(cafe.id)
      expect(launches).toMatchObject({ slug: "launches", description: null, displayName: null, category: null, subscriberCount: 0 })
      expect(chinese!.slug).toMatch(/^tag-[0-9a-f]{6}$/)
      expect(other!.slug).toMatch(/^cafe-news-[0-9a-f]{6}$/)
      for (const tag of [launches!, chinese!, other!]) {
        expect(yield* tags.getByName(principal, tag.name)).toEqual(tag)
      }
      const again = yield* tags.resolveNames(principal, ["新闻", "launches"], { createMissing: true })
      expect(again.map((tag) => tag.id)).toEqual([chinese!.id, launches!.id])
      expect((yield* tags.list(principal, { sort: "name", order: "asc", limit: 50 })).total).toBe(4)
    })))

  it.effect("a long name that suggests a taken slug gets a suffixed one within the slug length", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      const long = "a".repeat(70)
      yield* tags.create(principal, { name: "first", slug: "a".repeat(64) })
      const [tag] = yield* tags.resolveNames(principal, [long], { createMissing: true })
      expect(tag!.slug).toMatch(new RegExp(`^a{57}-[0-9a-f]{6}$`))
    })))

  it.effect("an unknown name is refused at its place when not to be made, and nothing is made", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      yield* tags.create(principal, { name: "News" })
      expect(yield* Effect.flip(tags.resolveNames(principal, ["news", "Launches", "Other"], { createMissing: false })))
        .toMatchObject({ _tag: "InvalidInput", field: "tags[1]" })
      expect(
        yield* Effect.flip(tags.resolveNames(principal, ["news", "Launches"], { createMissing: false, field: "add" }))
      ).toMatchObject({ _tag: "InvalidInput", field: "add[1]" })
      expect(yield* Effect.flip(tags.resolveNames(principal, ["news", "  "], { createMissing: true }))).toMatchObject({
        _tag: "InvalidInput",
        field: "tags[1]",
        problem: "must not be empty"
      })
      expect(yield* Effect.flip(tags.getByName(principal, "Launches"))).toMatchObject({ _tag: "ResourceNotFound" })
    })))

  it.effect("making tags needs tags:write; without it unknown names are refused, known ones found", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const tags = yield* Tags
      const news = yield* tags.create(principal, { name: "News" })
      const reader = yield* keyFor(organization.id, ["tags:read"])
      expect(yield* Effect.flip(tags.resolveNames(reader, ["News", "Launches"], { createMissing: true }))).toMatchObject({
        _tag: "InvalidInput",
        field: "tags[1]",
        problem: "no tag named 'Launches' in this organization, and making one needs the scope tags:write"
      })
      expect((yield* tags.resolveNames(reader, ["news"], { createMissing: true })).map((tag) => tag.id)).toEqual([news.id])
      expect(yield* Effect.flip(tags.getByName(principal, "Launches"))).toMatchObject({ _tag: "ResourceNotFound" })
      const none = yield* keyFor(organization.id, [])
      expect(yield* Effect.flip(tags.resolveNames(none, ["News"], { createMissing: false }))).toMatchObject({
        _tag: "MissingScope",
        scope: "tags:read"
      })
    })))

  it.effect("the same new name asked for at once by many is made once", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      const results = yield* Effect.forEach(
        Array.from({ length: 6 }, () => ["Launches", "Beta"]),
        (names) => tags.resolveNames(principal, names, { createMissing: true }),
        { concurrency: "unbounded" }
      )
      expect(new Set(results.map((found) => found.map((tag) => tag.id).join()))).toHaveProperty("size", 1)
      expect((yield* tags.list(principal, { sort: "name", order: "asc", limit: 50 })).total).toBe(2)
    })))
})

describe("numbered pages of tags", () => {
  const givenCatalogue = (principal: Principal) =>
    Effect.gen(function*() {
      const tags = yield* Tags
      for (const [name, category] of [
        ["weekly", "Newsletters"],
        ["Announcements", "Newsletters"],
        ["events", null],
        ["Beta", "Programmes"],
        ["offers", "Newsletters"]
      ] as const) {
        yield* tags.create(principal, { name, category })
      }
    })

  it.effect("sort by name unless told otherwise, and tell the totals", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      yield* givenCatalogue(principal)
      const first = yield* tags.listPage(principal, { page: 1, perPage: 2 })
      expect(first).toMatchObject({ total: 5, page: 1, perPage: 2, totalPages: 3 })
      expect(first.items.map((tag) => tag.name)).toEqual(["Announcements", "Beta"])
      const last = yield* tags.listPage(principal, { page: 3, perPage: 2 })
      expect(last.items.map((tag) => tag.name)).toEqual(["weekly"])
      const beyond = yield* tags.listPage(principal, { page: 4, perPage: 2 })
      expect(beyond).toMatchObject({ items: [], total: 5, page: 4, totalPages: 3 })
    })))

  it.effect("sort by several fields and filter by category", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      yield* givenCatalogue(principal)
      const byCategory = yield* tags.listPage(principal, {
        page: 1,
        perPage: 10,
        sort: [{ field: "category", order: "asc" }, { field: "name", order: "desc" }]
      })
      expect(byCategory.items.map((tag) => tag.name)).toEqual(["weekly", "offers", "Announcements", "Beta", "events"])
      const newsletters = yield* tags.listPage(principal, {
        page: 1,
        perPage: 2,
        category: " Newsletters ",
        sort: [{ field: "name", order: "desc" }]
      })
      expect(newsletters).toMatchObject({ total: 3, totalPages: 2 })
      expect(newsletters.items.map((tag) => tag.name)).toEqual(["weekly", "offers"])
      expect(yield* tags.listPage(principal, { page: 1, perPage: 10, category: "newsletters" })).toMatchObject({
        items: [],
        total: 0,
        totalPages: 0
      })
    })))

  it.effect("refuse a page, a page size or a sort they cannot serve", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const tags = yield* Tags
      const refusals = [
        [{ page: 0, perPage: 10 }, "page"],
        [{ page: 1.5, perPage: 10 }, "page"],
        [{ page: Number.MAX_SAFE_INTEGER, perPage: 100 }, "page"],
        [{ page: 1, perPage: 0 }, "per_page"],
        [{ page: 1, perPage: 101 }, "per_page"],
        [{ page: 1, perPage: 10, sort: [{ field: "email", order: "asc" }] }, "sort"],
        [{ page: 1, perPage: 10, sort: [{ field: "name", order: "asc" }, { field: "name", order: "desc" }] }, "sort"],
        [{ page: 1, perPage: 10, category: "" }, "category"]
      ] as const
      for (const [request, field] of refusals) {
        expect(yield* Effect.flip(tags.listPage(principal, request))).toMatchObject({ _tag: "InvalidInput", field })
      }
      const none = yield* keyFor(principal.organization.id, [])
      expect(yield* Effect.flip(tags.listPage(none, { page: 1, perPage: 10 }))).toMatchObject({
        _tag: "MissingScope",
        scope: "tags:read"
      })
    })))
})
