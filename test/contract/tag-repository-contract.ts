import { assert, expect, layer } from "@effect/vitest"
import { type KeysetPosition, TagAssignments, type TagFilter, type TagPageSort, TagRepository, type TagSort } from "@roster/application"
import { type OrganizationId, type SortBy, type SortOrder, Slug, Tag, TagId, tagNameKey } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import {
  aTag,
  expectedOrder,
  expectedOrderByKeys,
  givenOrganization,
  givenSubscriber,
  givenTag,
  instant,
  type PersistenceLayer,
  walkNumberedPages
} from "./fixtures.js"

const sortValue = (sort: TagSort) => (tag: Tag): string | number =>
  sort === "name" ? tagNameKey(tag.name) : sort === "created_at" ? tag.createdAt.toISOString() : tag.subscriberCount

const walk = (organizationId: OrganizationId, sort: TagSort, order: SortOrder, pageSize = 2) =>
  Effect.gen(function*() {
    const tags = yield* TagRepository
    const seen: Array<Tag> = []
    let after: KeysetPosition | undefined
    for (;;) {
      const page = yield* tags.list(organizationId, { sort, order, after, limit: pageSize })
      seen.push(...page)
      if (page.length < pageSize) return seen
      const last = page[page.length - 1]!
      after = { value: sortValue(sort)(last), id: last.id }
    }
  })

const pageSortValue = (sort: TagPageSort) => (tag: Tag): string | number | null =>
  sort === "category" ? tag.category : sortValue(sort)(tag)

/** Walks every numbered page of `perPage` rows in the given order; the ids seen. */
const walkPages = (
  organizationId: OrganizationId,
  sort: ReadonlyArray<SortBy<TagPageSort>>,
  filter: TagFilter = {},
  perPage = 2
) =>
  Effect.flatMap(TagRepository, (tags) =>
    walkNumberedPages((window) => tags.listPage(organizationId, { filter, sort, ...window }), perPage)).pipe(
      Effect.map((seen) => seen.map((tag) => tag.id))
    )

const pageSorts: ReadonlyArray<ReadonlyArray<SortBy<TagPageSort>>> = [
  [],
  [{ field: "name", order: "asc" }],
  [{ field: "name", order: "desc" }],
  [{ field: "created_at", order: "desc" }],
  [{ field: "subscriber_count", order: "desc" }],
  [{ field: "category", order: "asc" }],
  [{ field: "category", order: "desc" }],
  [{ field: "category", order: "asc" }, { field: "name", order: "desc" }],
  [{ field: "category", order: "desc" }, { field: "created_at", order: "asc" }],
  [{ field: "subscriber_count", order: "desc" }, { field: "category", order: "asc" }],
  [{ field: "created_at", order: "asc" }, { field: "subscriber_count", order: "asc" }, { field: "category", order: "desc" }]
]

const describeSort = (sort: ReadonlyArray<SortBy>) =>
  sort.length === 0 ? "the id alone" : sort.map(({ field, order }) => `${field} ${order}`).join(", ")

/** Eight tags whose names, categories, creation times and subscriber counts order differently, with ties. */
const givenEight = (organizationId: OrganizationId) =>
  Effect.gen(function*() {
    const assignments = yield* TagAssignments
    const specs = [
      { name: "zebra", category: "Animals", createdAt: instant(1), carriers: 2 },
      { name: "Apple", category: "fruit", createdAt: instant(2), carriers: 0 },
      { name: "Äpfel", category: "fruit", createdAt: instant(2), carriers: 2 },
      { name: "apple pie", category: null, createdAt: instant(2), carriers: 1 },
      { name: "Banana", category: "fruit", createdAt: instant(0), carriers: 0 },
      { name: "cherry", category: null, createdAt: instant(5), carriers: 2 },
      { name: "Date", category: "Älteres", createdAt: instant(1), carriers: 3 },
      { name: "elk", category: "Animals", createdAt: instant(1), carriers: 0 }
    ]
    const readers = yield* Effect.forEach(Array.from({ length: 3 }), () => givenSubscriber(organizationId))
    for (const spec of specs) {
      const tag = yield* givenTag(organizationId, { name: spec.name, category: spec.category, createdAt: spec.createdAt })
      for (const reader of readers.slice(0, spec.carriers)) {
        yield* assignments.attach(organizationId, reader.id, [tag.id], instant(10), null)
      }
    }
    // Read back, so that each holds its subscriber count.
    return yield* walkPages(organizationId, [], {}, 100).pipe(
      Effect.flatMap((ids) => Effect.flatMap(TagRepository, (tags) => tags.findByIds(organizationId, ids as Array<TagId>)))
    )
  })

export const tagRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("TagRepository", (it) => {
    it.effect("stores a tag and finds it by id, by ids and by name in any letter case", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const organization = yield* givenOrganization()
        const tag = new Tag({
          ...aTag(organization.id, { name: "Weekly Digest", slug: "weekly-digest", createdAt: instant(3) }),
          description: "Every Friday",
          displayName: "The weekly digest",
          category: "Newsletters",
          visibility: "private",
          metadata: { colour_code: "#ff0", order_hint: [1, 2] }
        })
        expect(yield* tags.insert(tag, null)).toBe(true)
        expect(yield* tags.findByNames(organization.id, ["WEEKLY digest", "unknown", " weekly digest"])).toStrictEqual([tag])
        expect(yield* tags.findByNames(organization.id, [])).toStrictEqual([])
        expect(Option.getOrThrow(yield* tags.findById(organization.id, tag.id))).toStrictEqual(tag)
        expect(Option.getOrThrow(yield* tags.findByName(organization.id, "  weekly DIGEST "))).toStrictEqual(tag)
        expect(yield* tags.findByIds(organization.id, [tag.id, tag.id])).toStrictEqual([tag])
        expect(yield* tags.organizationOf(tag.id)).toStrictEqual(Option.some(organization.id))
      }))

    it.effect("finds nothing of another organization", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const mine = yield* givenOrganization()
        const theirs = yield* givenTag((yield* givenOrganization()).id, { name: "Theirs" })
        const own = yield* givenTag(mine.id)
        assert.isTrue(Option.isNone(yield* tags.findById(mine.id, theirs.id)))
        assert.isTrue(Option.isNone(yield* tags.findByName(mine.id, "Theirs")))
        expect(yield* tags.findByNames(mine.id, ["Theirs", own.name])).toStrictEqual([own])
        expect(yield* tags.findByIds(mine.id, [theirs.id, own.id, TagId.make(randomUUID())])).toStrictEqual([own])
        expect(yield* tags.findByIds(mine.id, [])).toStrictEqual([])
        expect(yield* tags.organizationOf(TagId.make(randomUUID()))).toStrictEqual(Option.none())
      }))

    it.effect("refuses a name or a slug the organization already uses", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const organization = yield* givenOrganization()
        yield* givenTag(organization.id, { name: "News", slug: "news" })

        const sameName = yield* Effect.flip(tags.insert(aTag(organization.id, { name: "NEWS", slug: "other" }), null))
        expect({ field: sameName.field, value: sameName.value }).toStrictEqual({ field: "name", value: "NEWS" })
        const sameSlug = yield* Effect.flip(tags.insert(aTag(organization.id, { name: "Updates", slug: "news" }), null))
        expect({ field: sameSlug.field, value: sameSlug.value }).toStrictEqual({ field: "slug", value: "news" })
        const both = yield* Effect.flip(tags.insert(aTag(organization.id, { name: "news", slug: "news" }), null))
        expect(both.field).toBe("name")
        expect(yield* tags.count(organization.id)).toBe(1)
      }))

    it.effect("an insert past the organization's limit stores nothing; another organization is not held back", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* givenTag(organization.id)
        yield* givenTag(organization.id)
        expect(yield* tags.insert(aTag(organization.id), 3)).toBe(true)
        expect(yield* tags.insert(aTag(organization.id), 3)).toBe(false)
        expect(yield* tags.count(organization.id)).toBe(3)
        // Held past a limit set later, it keeps every tag and makes none.
        expect(yield* tags.insert(aTag(organization.id), 2)).toBe(false)
        expect(yield* tags.insert(aTag(other.id), 1)).toBe(true)
        expect(yield* tags.insert(aTag(organization.id), null)).toBe(true)
      }))

    it.effect("eight concurrent inserts at one below the limit: exactly one is stored", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const organization = yield* givenOrganization()
        for (let i = 0; i < 4; i++) yield* givenTag(organization.id)
        const stored = yield* Effect.forEach(
          Array.from({ length: 8 }, () => aTag(organization.id)),
          (tag) => tags.insert(tag, 5),
          { concurrency: "unbounded" }
        )
        expect(stored.filter((ok) => ok)).toHaveLength(1)
        expect(yield* tags.count(organization.id)).toBe(5)
      }))

    it.effect("stores many tags at once, each as a single insert would, and says which names and slugs were taken", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const organization = yield* givenOrganization()
        yield* givenTag(organization.id, { name: "News", slug: "news" })
        const fresh = new Tag({
          ...aTag(organization.id, { name: "Weekly Digest", slug: "weekly-digest", createdAt: instant(3) }),
          description: "Every Friday",
          category: "Newsletters",
          metadata: { colour_code: "#ff0" }
        })
        const wanted = [
          fresh,
          aTag(organization.id, { name: "NEWS", slug: "other-news" }),
          aTag(organization.id, { name: "Updates", slug: "news" }),
          aTag(organization.id, { name: "Offers", slug: "offers" })
        ]
        expect(yield* tags.insertMany(wanted, null)).toStrictEqual(["stored", "name-taken", "slug-taken", "stored"])
        expect(Option.getOrThrow(yield* tags.findById(organization.id, fresh.id))).toStrictEqual(fresh)
        expect((yield* tags.findByNames(organization.id, ["updates", "offers"])).map((tag) => tag.slug)).toStrictEqual(["offers"])
        expect(yield* tags.count(organization.id)).toBe(3)
        expect(yield* tags.insertMany([], 3)).toStrictEqual([])
      }))

    it.effect("many tags at once fill the organization's limit in the order given, and the rest are full", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* givenTag(organization.id, { name: "News", slug: "news" })
        const wanted = Array.from({ length: 5 }, () => aTag(organization.id))
        // A taken name takes no room.
        const clash = aTag(organization.id, { name: "news" })
        expect(yield* tags.insertMany([wanted[0]!, clash, ...wanted.slice(1)], 4)).toStrictEqual(
          ["stored", "name-taken", "stored", "stored", "full", "full"]
        )
        expect((yield* tags.findByIds(organization.id, wanted.map((tag) => tag.id))).map((tag) => tag.id).sort()).toStrictEqual(
          wanted.slice(0, 3).map((tag) => tag.id).sort()
        )
        expect(yield* tags.insertMany([aTag(organization.id)], 4)).toStrictEqual(["full"])
        expect(yield* tags.insertMany([aTag(other.id), aTag(other.id)], 1)).toStrictEqual(["stored", "full"])
        expect(yield* tags.count(organization.id)).toBe(4)
      }))

    it.effect("concurrent inserts of many tags never pass the limit together", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const organization = yield* givenOrganization()
        const outcomes = yield* Effect.forEach(
          Array.from({ length: 4 }, () => Array.from({ length: 3 }, () => aTag(organization.id))),
          (batch) => tags.insertMany(batch, 5),
          { concurrency: "unbounded" }
        )
        expect(outcomes.flat().filter((outcome) => outcome === "stored")).toHaveLength(5)
        expect(yield* tags.count(organization.id)).toBe(5)
      }))

    it.effect("lets two organizations use the same name and slug", () =>
      Effect.gen(function*() {
        const first = yield* givenOrganization()
        const second = yield* givenOrganization()
        yield* givenTag(first.id, { name: "News", slug: "news" })
        yield* givenTag(second.id, { name: "News", slug: "news" })
        expect(yield* (yield* TagRepository).count(second.id)).toBe(1)
      }))

    it.effect("an update changes name, slug, description and metadata, never the subscriber count", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const organization = yield* givenOrganization()
        const tag = yield* givenTag(organization.id)
        const subscriber = yield* givenSubscriber(organization.id)
        yield* (yield* TagAssignments).attach(organization.id, subscriber.id, [tag.id], instant(1), null)

        const changed = new Tag({
          ...tag,
          name: "Renamed",
          slug: Slug.make("renamed"),
          description: "now described",
          displayName: "Renamed, shown",
          category: "Announcements",
          visibility: "private",
          metadata: { a_b: true },
          subscriberCount: 99,
          updatedAt: instant(30)
        })
        yield* tags.update(changed)
        const stored = Option.getOrThrow(yield* tags.findById(organization.id, tag.id))
        expect(stored).toStrictEqual(new Tag({ ...changed, subscriberCount: 1 }))
        expect(Option.getOrThrow(yield* tags.findByName(organization.id, "renamed")).id).toBe(tag.id)
      }))

    it.effect("an update to a name or slug in use fails and changes nothing", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const organization = yield* givenOrganization()
        yield* givenTag(organization.id, { name: "Taken", slug: "taken" })
        const tag = yield* givenTag(organization.id, { name: "Mine", slug: "mine" })

        const byName = yield* Effect.flip(tags.update(new Tag({ ...tag, name: "TAKEN" })))
        expect(byName.field).toBe("name")
        const bySlug = yield* Effect.flip(tags.update(new Tag({ ...tag, slug: Slug.make("taken") })))
        expect(bySlug.field).toBe("slug")
        expect(Option.getOrThrow(yield* tags.findById(organization.id, tag.id))).toStrictEqual(tag)
        yield* tags.update(new Tag({ ...tag, name: "MINE" }))
        expect(Option.getOrThrow(yield* tags.findById(organization.id, tag.id)).name).toBe("MINE")
      }))

    it.effect("delete removes the tag with its assignments and says whether there was one", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const tag = yield* givenTag(organization.id)
        const kept = yield* givenTag(organization.id)
        const subscriber = yield* givenSubscriber(organization.id)
        yield* assignments.attach(organization.id, subscriber.id, [tag.id, kept.id], instant(1), null)

        assert.isFalse(yield* tags.delete((yield* givenOrganization()).id, tag.id))
        assert.isTrue(yield* tags.delete(organization.id, tag.id))
        assert.isFalse(yield* tags.delete(organization.id, tag.id))
        assert.isTrue(Option.isNone(yield* tags.findById(organization.id, tag.id)))
        const carried = (yield* assignments.tagsOf(organization.id, [subscriber.id])).get(subscriber.id) ?? []
        expect(carried.map(({ tag }) => tag.id)).toStrictEqual([kept.id])
      }))

    for (const sort of ["name", "created_at", "subscriber_count"] as const) {
      for (const order of ["asc", "desc"] as const) {
        it.effect(`pages through every tag exactly once by ${sort} ${order}`, () =>
          Effect.gen(function*() {
            const tags = yield* TagRepository
            const assignments = yield* TagAssignments
            const organization = yield* givenOrganization()
            const specs = [
              { name: "zebra", createdAt: instant(1), carriers: 2 },
              { name: "Apple", createdAt: instant(2), carriers: 0 },
              { name: "Äpfel", createdAt: instant(2), carriers: 2 },
              { name: "apple pie", createdAt: instant(2), carriers: 1 },
              { name: "Banana", createdAt: instant(0), carriers: 0 },
              { name: "cherry", createdAt: instant(5), carriers: 2 },
              { name: "Date", createdAt: instant(1), carriers: 3 }
            ]
            const readers = yield* Effect.forEach(Array.from({ length: 3 }), () => givenSubscriber(organization.id))
            for (const spec of specs) {
              const tag = yield* givenTag(organization.id, { name: spec.name, createdAt: spec.createdAt })
              for (const reader of readers.slice(0, spec.carriers)) {
                yield* assignments.attach(organization.id, reader.id, [tag.id], instant(10), null)
              }
            }
            yield* givenTag((yield* givenOrganization()).id)
            const stored = yield* walk(organization.id, "created_at", "asc", 100)
            expect(stored.map((tag) => tag.subscriberCount).sort()).toStrictEqual([0, 0, 1, 2, 2, 2, 3])

            const seen = yield* walk(organization.id, sort, order)
            expect(seen.map((tag) => tag.id)).toStrictEqual(expectedOrder(stored, sortValue(sort), order))
            expect(yield* tags.count(organization.id)).toBe(specs.length)
          }))
      }
    }

    for (const sort of pageSorts) {
      it.effect(`numbered pages hold every tag exactly once by ${describeSort(sort)}`, () =>
        Effect.gen(function*() {
          const organization = yield* givenOrganization()
          const eight = yield* givenEight(organization.id)
          yield* givenTag((yield* givenOrganization()).id, { category: "fruit" })
          expect(eight.map((tag) => tag.subscriberCount).sort()).toStrictEqual([0, 0, 0, 1, 2, 2, 2, 3])
          const keys = sort.map(({ field, order }) => ({ value: pageSortValue(field), order }))
          const expected = expectedOrderByKeys(eight, keys)
          for (const perPage of [1, 3, 8, 100]) {
            expect(yield* walkPages(organization.id, sort, {}, perPage)).toStrictEqual(expected)
          }
        }))
    }

    it.effect("numbered pages and counts filter by the exact category", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const organization = yield* givenOrganization()
        const eight = yield* givenEight(organization.id)
        yield* givenTag((yield* givenOrganization()).id, { category: "fruit" })
        const sort = [{ field: "subscriber_count", order: "asc" }] as const
        const fruit = eight.filter((tag) => tag.category === "fruit")
        expect(yield* walkPages(organization.id, sort, { category: "fruit" })).toStrictEqual(
          expectedOrderByKeys(fruit, [{ value: pageSortValue("subscriber_count"), order: "asc" }])
        )
        expect(yield* tags.count(organization.id, { category: "fruit" })).toBe(3)
        expect(yield* tags.count(organization.id, { category: "Fruit" })).toBe(0)
        expect(yield* walkPages(organization.id, sort, { category: "Fruit" })).toStrictEqual([])
        expect(yield* tags.count(organization.id, {})).toBe(8)
        expect(yield* tags.count(organization.id)).toBe(8)
        expect(yield* tags.listPage(organization.id, { filter: {}, sort, offset: 8, limit: 2 })).toStrictEqual([])
      }))
  })
