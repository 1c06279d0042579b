import { Schema } from "effect"
import { type Reason, reason, reasonTextOf } from "./reason.js"

export const MAX_SLUG_LENGTH = 64
const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** Why `s` cannot be a slug, if it cannot. */
export const slugReason = (s: string): Reason | undefined => {
  if (s.length === 0) return reason("empty")
  if (s.length > MAX_SLUG_LENGTH) return reason("tooLong", { max: MAX_SLUG_LENGTH })
  if (!slugPattern.test(s)) return reason("slugCharacters")
  return undefined
}

/** {@link slugReason} in English. */
export const slugProblem = (s: string): string | undefined => reasonTextOf(slugReason(s))

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
