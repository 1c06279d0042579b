import {
  allows,
  DEFAULT_TAG_VISIBILITY,
  InvalidInput,
  MAX_TAGS_PER_ORGANIZATION,
  type OrganizationId,
  reason,
  Slug,
  slugify,
  slugProblem,
  suffixedSlug,
  Tag,
  TagAlreadyExists,
  TagId,
  type TagLimitReached,
  tagNameKey,
  tagNameReason
} from "@roster/domain"
import { type Context, Effect, Option } from "effect"
import { now } from "./clock.js"
import type { Ids } from "../ports/ids.js"
import type { TagRepository } from "../ports/tag-repository.js"
import type { Principal } from "./principal.js"
import { insertTag } from "./tag-limits.js"

/**
 * What becomes of a name that names no tag of the organization: a new tag is made for it
 * (`create`, when the caller may write tags), it is refused (`refuse`), or it is left out
 * (`ignore`).
 */
export type UnknownTagNames = "create" | "refuse" | "ignore"

/** How many times a new tag's slug is tried with a fresh suffix before giving up. */
const SLUG_ATTEMPTS = 5

/** Slugs of tags made from names alone, when the name suggests none: `tag-3f9a2c`. */
const FALLBACK_SLUG_STEM = "tag"

/** How much of the end of the new tag's id (random, lower-case hex) sets its slug apart. */
const SUFFIX_LENGTH = 6

/** A tag made from a name alone. */
const newTag = (organizationId: OrganizationId, id: TagId, name: string, slug: Slug, at: Date) =>
  new Tag({
    id,
    organizationId,
    name,
    slug,
    description: null,
    displayName: null,
    category: null,
    visibility: DEFAULT_TAG_VISIBILITY,
    metadata: {},
    subscriberCount: 0,
    createdAt: at,
    updatedAt: at
  })

/**
 * Makes a new tag named `name` (or finds the one someone made meanwhile); its slug is made from
 * the name, with a suffix when that is taken or impossible.
 */
export const makeTagMaker = (
  tags: Context.Tag.Service<typeof TagRepository>,
  ids: Context.Tag.Service<typeof Ids>
) => {
  const createNamed = (
    organizationId: OrganizationId,
    name: string,
    field: string
  ): Effect.Effect<Tag, TagAlreadyExists | TagLimitReached> => {
    const base = slugify(name)
    const attempt = (n: number): Effect.Effect<Tag, TagAlreadyExists | TagLimitReached> =>
      Effect.gen(function*() {
        const id = yield* ids.next
        const slug = n === 0 && slugProblem(base) === undefined
          ? base
          : suffixedSlug(base, id.slice(-SUFFIX_LENGTH), FALLBACK_SLUG_STEM)
        const at = yield* now
        const tag = newTag(organizationId, TagId.make(id), name, Slug.make(slug), at)
        return yield* insertTag(tags, tag, field).pipe(
          Effect.catchTag("TagAlreadyExists", (clash) => {
            if (n + 1 >= SLUG_ATTEMPTS) return Effect.fail(clash)
            if (clash.field === "slug") return attempt(n + 1)
            // Someone made a tag of this name meanwhile: theirs is the one. If it is gone again
            // (their change was undone), make it anew.
            return Effect.flatMap(
              tags.findByName(organizationId, name),
              Option.match({ onSome: Effect.succeed, onNone: () => attempt(n + 1) })
            )
          })
        )
      })
    return attempt(0)
  }
  return createNamed
}

/**
 * Makes new tags for many names at once (or finds those someone made meanwhile), a statement per
 * round rather than one per tag: a name whose slug is taken, here or among the names themselves,
 * is tried again with a suffixed slug, and one whose name is taken is found. By name key, the tag
 * of each name, or `full` where the organization holds as many tags as it may. The names are
 * possible tag names, their keys distinct; the first get the room there is.
 */
export const makeTagsMaker = (
  tags: Context.Tag.Service<typeof TagRepository>,
  ids: Context.Tag.Service<typeof Ids>
) =>
(
  organizationId: OrganizationId,
  names: ReadonlyArray<string>
): Effect.Effect<ReadonlyMap<string, Tag | "full">, TagAlreadyExists> =>
  Effect.gen(function*() {
    const made = new Map<string, Tag | "full">()
    let pending = names.map((name) => ({ name, base: slugify(name) }))
    for (let n = 0; pending.length > 0; n++) {
      if (n >= SLUG_ATTEMPTS) {
        return yield* new TagAlreadyExists({ field: "slug", value: pending[0]!.name })
      }
      const at = yield* now
      const slugs = new Set<string>()
      const wanted: Array<Tag> = []
      const fresh = yield* ids.take(pending.length)
      for (const [i, { base, name }] of pending.entries()) {
        const id = fresh[i]!
        const plain = n === 0 && slugProblem(base) === undefined && !slugs.has(base)
        const slug = plain ? base : suffixedSlug(base, id.slice(-SUFFIX_LENGTH), FALLBACK_SLUG_STEM)
        slugs.add(slug)
        wanted.push(newTag(organizationId, TagId.make(id), name, Slug.make(slug), at))
      }
      const outcomes = yield* tags.insertMany(wanted, MAX_TAGS_PER_ORGANIZATION)
      const again: Array<{ readonly name: string; readonly base: string }> = []
      const taken: Array<string> = []
      for (const [i, tag] of wanted.entries()) {
        const outcome = outcomes[i]
        if (outcome === "stored") made.set(tagNameKey(tag.name), tag)
        else if (outcome === "full") made.set(tagNameKey(tag.name), "full")
        else if (outcome === "name-taken") taken.push(tag.name)
        else again.push(pending[i]!)
      }
      // Someone made a tag of this name meanwhile: theirs is the one. If it is gone again (their
      // change was undone), it is made anew.
      const found = taken.length === 0 ? [] : yield* tags.findByNames(organizationId, taken)
      for (const tag of found) made.set(tagNameKey(tag.name), tag)
      for (const name of taken) if (!made.has(tagNameKey(name))) again.push({ name, base: slugify(name) })
      pending = again
    }
    return made
  })

/**
 * Finds tags by name, and makes the ones that are missing, as Kit and Mailchimp do when a
 * subscriber is tagged with a name they have not seen. Shared by the use cases that take tag names.
 */
export const makeTagNameResolver = (
  tags: Context.Tag.Service<typeof TagRepository>,
  ids: Context.Tag.Service<typeof Ids>
) => {
  const createNamed = makeTagMaker(tags, ids)

  /**
   * The tags `names` name, in the order given, each once (names compare as tag names do,
   * regardless of letter case). A name that is not a possible tag name is refused at its index in
   * `field`; so is an unknown one unless `unknown` says otherwise. Run it inside a transaction
   * when it may create tags, so that they go with the change that needed them.
   */
  const resolve = (
    principal: Principal,
    names: ReadonlyArray<string>,
    unknown: UnknownTagNames,
    field: string
  ): Effect.Effect<ReadonlyArray<Tag>, InvalidInput | TagAlreadyExists | TagLimitReached> =>
    Effect.gen(function*() {
      const organizationId = principal.organization.id
      const wanted: Array<{ readonly name: string; readonly key: string; readonly index: number }> = []
      const keys = new Set<string>()
      for (const [index, given] of names.entries()) {
        const name = given.trim()
        const problem = tagNameReason(name)
        if (problem !== undefined) return yield* new InvalidInput({ field: `${field}[${index}]`, reason: problem })
        const key = tagNameKey(name)
        if (keys.has(key)) continue
        keys.add(key)
        wanted.push({ name, key, index })
      }
      if (wanted.length === 0) return []

      const found = yield* tags.findByNames(organizationId, wanted.map(({ name }) => name))
      const byKey = new Map(found.map((tag) => [tagNameKey(tag.name), tag] as const))
      const missing = wanted.filter(({ key }) => !byKey.has(key))
      const first = missing[0]
      if (first !== undefined && unknown !== "ignore") {
        if (unknown === "refuse") {
          return yield* new InvalidInput({
            field: `${field}[${first.index}]`,
            reason: reason("noTagNamed", { name: first.name })
          })
        }
        if (!allows(principal.scopes, "tags:write")) {
          return yield* new InvalidInput({
            field: `${field}[${first.index}]`,
            reason: reason("noTagNamedNeedsScope", { name: first.name })
          })
        }
        // In the order of their keys, so that two changes making the same new tags never wait on
        // each other in a cycle.
        const byKeyOrder = [...missing].sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
        for (const { index, key, name } of byKeyOrder) byKey.set(key, yield* createNamed(organizationId, name, `${field}[${index}]`))
      }
      return wanted.flatMap(({ key }) => Option.toArray(Option.fromNullable(byKey.get(key))))
    })

  return resolve
}
