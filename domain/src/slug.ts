import { Schema } from "effect"

export const MAX_SLUG_LENGTH = 64
const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

export const slugProblem = (s: string): string | undefined => {
  if (s.length === 0) return "must not be empty"
  if (s.length > MAX_SLUG_LENGTH) return `must be at most ${MAX_SLUG_LENGTH} characters`
  if (!slugPattern.test(s)) return "must be lower-case letters, digits and single hyphens between them"
  return undefined
}

/** A URL-safe name: `weekly-digest`. */
export const Slug = Schema.String.pipe(
  Schema.filter((s) => slugProblem(s), {
    identifier: "Slug",
    description: "lower-case letters, digits and hyphens, at most 64 characters",
    examples: ["weekly-digest"]
  }),
  Schema.brand("Slug")
)
export type Slug = typeof Slug.Type

/** The slug a name suggests (`Café News!` -> `cafe-news`); empty when the name has no latin letters or digits. */
export const slugify = (name: string): string =>
  name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/^-+|-+$/g, "")

/**
 * `base` with a short distinguishing `suffix` (`weekly-news-3f9a2c`), cut so that the whole stays
 * within the slug length; `fallback` stands in for a base that is empty.
 */
export const suffixedSlug = (base: string, suffix: string, fallback: string): string => {
  const stem = base.length === 0 ? fallback : base
  return `${stem.slice(0, MAX_SLUG_LENGTH - suffix.length - 1).replace(/-+$/g, "")}-${suffix}`
}
