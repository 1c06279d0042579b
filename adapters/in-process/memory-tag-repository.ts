import { type TagFilter, type TagInsertOutcome, type TagPageSort, TagRepository, type TagSort } from "@roster/application"
import { type Limit, Tag, TagAlreadyExists, tagNameKey, withinLimit } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore, type Tables } from "./memory-store.js"
import { compareBy, compareByKeys, instant, isAfter, type SortKey } from "./ordering.js"

const sortValue = (sort: TagSort) => (tag: Tag): SortKey =>
  sort === "name" ? tagNameKey(tag.name) : sort === "created_at" ? tag.createdAt.getTime() : tag.subscriberCount

const pageSortValue = (sort: TagPageSort) => (tag: Tag): SortKey | null =>
  sort === "category" ? tag.category : sortValue(sort)(tag)

const matches = (organizationId: string, filter: TagFilter) => (tag: Tag): boolean =>
  tag.organizationId === organizationId && (filter.category === undefined || tag.category === filter.category)

const clash = (t: Tables, tag: Tag): Option.Option<TagAlreadyExists> => {
  for (const other of t.tags.values()) {
    if (other.organizationId !== tag.organizationId || other.id === tag.id) continue
    if (tagNameKey(other.name) === tagNameKey(tag.name)) return Option.some(new TagAlreadyExists({ field: "name", value: tag.name }))
    if (other.slug === tag.slug) return Option.some(new TagAlreadyExists({ field: "slug", value: tag.slug }))
  }
  return Option.none()
}

export const MemoryTagRepositoryLive = Layer.effect(
  TagRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const owned = (t: Tables, organizationId: string, id: string) =>
      Option.fromNullable(t.tags.get(id)).pipe(Option.filter((tag) => tag.organizationId === organizationId))

    /**
     * Stores `tag` unless its name or slug is taken, or it is new and its organization holds `max`
     * tags already; the stored count is kept. Whether it stored it.
     */
    const save = (tag: Tag, isNew: boolean, max: Limit = null) =>
      Effect.flatten(store.write((t) => {
        if (isNew) {
          let held = 0
          for (const other of t.tags.values()) if (other.organizationId === tag.organizationId) held++
          if (!withinLimit(max, held, 1)) return Effect.succeed(false)
        }
        const problem = clash(t, tag)
        if (Option.isSome(problem)) return Effect.fail(problem.value)
        const current = t.tags.get(tag.id)
        if (isNew) t.tags.set(tag.id, tag)
        else if (current !== undefined && current.organizationId === tag.organizationId) {
          t.tags.set(tag.id, new Tag({ ...tag, subscriberCount: current.subscriberCount }))
        }
        return Effect.succeed(true)
      }))

    return TagRepository.of({
      insert: (tag, max) => save(tag, true, max),
      insertMany: (tags, max) =>
        store.write((t) => {
          const organizationId = tags[0]?.organizationId
          let held = 0
          for (const other of t.tags.values()) if (other.organizationId === organizationId) held++
          return tags.map((tag): TagInsertOutcome => {
            const problem = clash(t, tag)
            if (Option.isSome(problem)) return problem.value.field === "name" ? "name-taken" : "slug-taken"
            if (!withinLimit(max, held, 1)) return "full"
            t.tags.set(tag.id, tag)
            held++
            return "stored"
          })
        }),
      update: (tag) => Effect.asVoid(save(tag, false)),
      delete: (organizationId, id) =>
        store.write((t) => {
          if (Option.isNone(owned(t, organizationId, id))) return false
          t.tags.delete(id)
          for (const tags of t.assignments.values()) tags.delete(id)
          // As the database's cascade: a trigger for the tag goes with it.
          for (const trigger of t.triggers.values()) {
            if (trigger.tagId !== id) continue
            t.triggers.delete(trigger.id)
            for (const firing of t.triggerFirings.values()) if (firing.triggerId === trigger.id) t.triggerFirings.delete(firing.id)
          }
          return true
        }),
      findById: (organizationId, id) => store.read((t) => owned(t, organizationId, id)),
      findByName: (organizationId, name) =>
        store.read((t) => {
          const key = tagNameKey(name)
          for (const tag of t.tags.values()) {
            if (tag.organizationId === organizationId && tagNameKey(tag.name) === key) return Option.some(tag)
          }
          return Option.none()
        }),
      findByNames: (organizationId, names) =>
        store.read((t) => {
          const keys = new Set(names.map(tagNameKey))
          return [...t.tags.values()].filter((tag) => tag.organizationId === organizationId && keys.has(tagNameKey(tag.name)))
        }),
      findByIds: (organizationId, ids) =>
        store.read((t) => [...new Set(ids)].flatMap((id) => Option.toArray(owned(t, organizationId, id)))),
      organizationOf: (id) => store.read((t) => Option.fromNullable(t.tags.get(id)?.organizationId)),
      list: (organizationId, query) =>
        store.read((t) => {
          const value = sortValue(query.sort)
          const after = query.after === undefined ? undefined : {
            value: query.sort === "created_at" ? instant(query.after.value) : query.after.value,
            id: query.after.id
          }
          return [...t.tags.values()]
            .filter((tag) => tag.organizationId === organizationId)
            .filter((tag) => after === undefined || isAfter(tag, value, after, query.order))
            .sort(compareBy(value, query.order))
            .slice(0, query.limit)
        }),
      listPage: (organizationId, query) =>
        store.read((t) =>
          [...t.tags.values()]
            .filter(matches(organizationId, query.filter))
            .sort(compareByKeys(query.sort.map(({ field, order }) => ({ value: pageSortValue(field), order }))))
            .slice(query.offset, query.offset + query.limit)
        ),
      count: (organizationId, filter = {}) => store.read((t) => [...t.tags.values()].filter(matches(organizationId, filter)).length)
    })
  })
)
