import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import { MAX_SLUG_LENGTH, Slug, slugify, slugProblem, suffixedSlug } from "./slug.js"

const decode = Schema.decodeUnknownEither(Slug)

describe("slugs", () => {
  it.each(["weekly-digest", "a", "2025", "release-notes-v2", "x".repeat(MAX_SLUG_LENGTH)])("%s is a slug", (slug) => {
    expect(slugProblem(slug)).toBeUndefined()
    expect(decode(slug)).toEqual(Either.right(slug))
  })

  it.each([
    ["", "must not be empty"],
    ["x".repeat(MAX_SLUG_LENGTH + 1), "must be at most 64 characters"],
    ["Weekly", "must be lower-case letters, digits and single hyphens between them"],
    ["weekly digest", "must be lower-case letters, digits and single hyphens between them"],
    ["-weekly", "must be lower-case letters, digits and single hyphens between them"],
    ["weekly-", "must be lower-case letters, digits and single hyphens between them"],
    ["weekly--digest", "must be lower-case letters, digits and single hyphens between them"],
    ["weekly_digest", "must be lower-case letters, digits and single hyphens between them"],
    ["café", "must be lower-case letters, digits and single hyphens between them"]
  ])("%j is refused: %s", (slug, problem) => {
    expect(slugProblem(slug)).toBe(problem)
    expect(Either.isLeft(decode(slug))).toBe(true)
  })
})

describe("slugify", () => {
  it.each([
    ["Café News!", "cafe-news"],
    ["  Weekly   Digest  ", "weekly-digest"],
    ["Release notes v2.1", "release-notes-v2-1"],
    ["Ångström & Öl", "angstrom-ol"],
    ["ﬁne print", "fine-print"],
    ["日本語", ""],
    ["!!!", ""],
    ["", ""]
  ])("%j suggests %j", (name, slug) => {
    expect(slugify(name)).toBe(slug)
  })

  it("cuts long names to the slug length without leaving a hyphen at the end", () => {
    const name = `${"a".repeat(MAX_SLUG_LENGTH - 1)} tail`
    expect(slugify(name)).toBe("a".repeat(MAX_SLUG_LENGTH - 1))
  })

  it.prop(
    "always suggests either nothing or a valid slug",
    [fc.oneof(
      fc.string({ unit: "binary", maxLength: 200 }),
      fc.string({ unit: fc.constantFrom("A", "b", "É", "ß", "-", " ", "_", "9", "ﬁ", "\u0301", "日"), maxLength: 120 })
    )],
    ([name]) => {
      const slug = slugify(name)
      expect(slug === "" || slugProblem(slug) === undefined).toBe(true)
    }
  )

  it.prop("a valid slug suggests itself", [fc.stringMatching(/^[a-z0-9]{1,10}(-[a-z0-9]{1,10}){0,4}$/)], ([slug]) => {
    expect(slugify(slug)).toBe(slug)
  })
})

describe("suffixed slugs", () => {
  it.each([
    ["weekly", "3f9a2c", "weekly-3f9a2c"],
    ["", "3f9a2c", "tag-3f9a2c"],
    ["a".repeat(MAX_SLUG_LENGTH), "3f9a2c", `${"a".repeat(57)}-3f9a2c`],
    [`${"a".repeat(56)}-bcd`, "3f9a2c", `${"a".repeat(56)}-3f9a2c`]
  ])("%j with %s is %s", (base, suffix, slug) => {
    expect(suffixedSlug(base, suffix, "tag")).toBe(slug)
    expect(slugProblem(slug)).toBeUndefined()
  })

  it.prop(
    "are slugs for any name's slug and any hex suffix",
    [fc.string({ maxLength: 120 }), fc.stringMatching(/^[0-9a-f]{6}$/)],
    ([name, suffix]) => {
      expect(slugProblem(suffixedSlug(slugify(name), suffix, "tag"))).toBeUndefined()
    }
  )
})
