import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { Metadata } from "./metadata.js"
import { PersonName } from "./subscriber.js"
import { TagDescription, TagName } from "./tag.js"
import { isStorableJson, isStorableText, longerThan } from "./text.js"

describe("the length of text", () => {
  it("counts characters as people do: a character outside the basic plane is one, not two", () => {
    expect(longerThan("👋".repeat(3), 3)).toBe(false)
    expect(longerThan("👋".repeat(4), 3)).toBe(true)
    expect(longerThan("abc", 3)).toBe(false)
    expect(longerThan("abcd", 3)).toBe(true)
    expect(longerThan("", 0)).toBe(false)
  })
})

describe("storable text", () => {
  it("refuses the NUL character and halves of surrogate pairs, keeps everything else", () => {
    expect(isStorableText("Grüße 👋 日本")).toBe(true)
    expect(isStorableText("a\u0000b")).toBe(false)
    expect(isStorableText("a\ud800b")).toBe(false)
    expect(isStorableText("\udc00")).toBe(false)
  })

  it("looks into every key and string of a JSON value", () => {
    expect(isStorableJson({ a: [1, { b: "ok" }], c: null })).toBe(true)
    expect(isStorableJson({ a: [1, { b: "bad\u0000" }] })).toBe(false)
    expect(isStorableJson({ ["key\ud800"]: 1 })).toBe(false)
  })

  it.each([
    ["metadata values", Metadata, { note: "x\u0000y" }],
    ["metadata keys", Metadata, { ["k\ud801"]: 1 }],
    ["tag descriptions", TagDescription, "about\u0000"],
    ["tag names", TagName, "name\ud800"],
    ["subscriber names", PersonName, "Ada\udfff"]
  ] as const)("%s with unstorable text are refused with a message saying so", (_, schema, value) => {
    const result = Schema.decodeUnknownEither(schema as Schema.Schema<unknown, unknown>)(value)
    expect(result._tag).toBe("Left")
    expect(String(result._tag === "Left" ? result.left.message : "")).toContain("valid Unicode text without NUL characters")
  })
})
