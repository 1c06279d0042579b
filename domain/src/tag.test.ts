import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import {
  MAX_CATEGORY_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_TAG_NAME_LENGTH,
  TagCategory,
  TagDescription,
  TagDisplayName,
  TagName,
  tagNameKey
} from "./tag.js"

const decodeName = Schema.decodeUnknownEither(TagName)

describe("tag names", () => {
  it.each([
    ["Weekly digest", "Weekly digest"],
    ["  Product news ", "Product news"],
    ["Neuigkeiten für Käufer", "Neuigkeiten für Käufer"],
    ["🎉 Launches", "🎉 Launches"],
    ["n".repeat(MAX_TAG_NAME_LENGTH), "n".repeat(MAX_TAG_NAME_LENGTH)],
    ["😀".repeat(MAX_TAG_NAME_LENGTH), "😀".repeat(MAX_TAG_NAME_LENGTH)]
  ])("%j is kept as %j", (given, kept) => {
    expect(decodeName(given)).toEqual(Either.right(kept))
  })

  it.each([
    ["empty", ""],
    ["only spaces", "   "],
    ["101 characters", "n".repeat(MAX_TAG_NAME_LENGTH + 1)],
    ["a control character", "Weekly\u0007digest"],
    ["a line break inside", "Weekly\ndigest"]
  ])("%s is refused", (_, name) => {
    expect(Either.isLeft(decodeName(name))).toBe(true)
  })

  it("names compare without regard to case or composition", () => {
    expect(tagNameKey(" Weekly Digest ")).toBe(tagNameKey("weekly digest"))
    expect(tagNameKey("CAFÉ")).toBe(tagNameKey("cafe\u0301"))
    expect(tagNameKey("Weekly")).not.toBe(tagNameKey("Weekly digest"))
  })

  it.prop("the name key is idempotent", [fc.string({ unit: "grapheme-composite", maxLength: 30 })], ([name]) => {
    expect(tagNameKey(tagNameKey(name))).toBe(tagNameKey(name))
  })

  it("descriptions may be long, up to a limit", () => {
    const decode = Schema.decodeUnknownEither(TagDescription)
    expect(Either.isRight(decode("d".repeat(MAX_DESCRIPTION_LENGTH)))).toBe(true)
    expect(Either.isLeft(decode("d".repeat(MAX_DESCRIPTION_LENGTH + 1)))).toBe(true)
  })
})

describe("display names and categories", () => {
  const decodeDisplayName = Schema.decodeUnknownEither(TagDisplayName)
  const decodeCategory = Schema.decodeUnknownEither(TagCategory)

  it("display names follow the rules of names", () => {
    expect(decodeDisplayName("  The weekly digest ")).toEqual(Either.right("The weekly digest"))
    for (const refused of ["", "  ", "n".repeat(MAX_TAG_NAME_LENGTH + 1), "Weekly\u0007digest", "a\u0000b"]) {
      expect(Either.isLeft(decodeDisplayName(refused))).toBe(true)
    }
  })

  it("categories are 1 to 64 characters of storable text, trimmed, letter case kept", () => {
    expect(decodeCategory(" Interests ")).toEqual(Either.right("Interests"))
    expect(decodeCategory("😀".repeat(MAX_CATEGORY_LENGTH))).toEqual(Either.right("😀".repeat(MAX_CATEGORY_LENGTH)))
    for (const refused of ["", "   ", "c".repeat(MAX_CATEGORY_LENGTH + 1), "a\u0000b", "\ud800"]) {
      expect(Either.isLeft(decodeCategory(refused))).toBe(true)
    }
  })
})
