import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import { MAX_METADATA_BYTES, MAX_METADATA_KEYS, Metadata, metadataProblem, sameMetadata } from "./metadata.js"

const decode = Schema.decodeUnknownEither(Metadata)

const withKeys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`key${i}`, i]))

/** An object whose JSON is exactly `bytes` long. */
const ofJsonBytes = (bytes: number) => {
  const overhead = JSON.stringify({ note: "" }).length
  const value = { note: "x".repeat(bytes - overhead) }
  expect(new TextEncoder().encode(JSON.stringify(value)).length).toBe(bytes)
  return value
}

describe("metadata", () => {
  it("takes any JSON values", () => {
    const value = { plan: "gold", seats: 3, vip: true, tags: ["a", "b"], address: { city: "Graz" }, gone: null }
    expect(decode(value)).toEqual(Either.right(value))
  })

  it("takes 64 keys and refuses 65", () => {
    expect(metadataProblem(withKeys(MAX_METADATA_KEYS))).toBeUndefined()
    expect(metadataProblem(withKeys(MAX_METADATA_KEYS + 1))).toBe("must have at most 64 keys")
    expect(Either.isLeft(decode(withKeys(MAX_METADATA_KEYS + 1)))).toBe(true)
  })

  it("takes 16 KiB of JSON and refuses one byte more", () => {
    expect(metadataProblem(ofJsonBytes(MAX_METADATA_BYTES))).toBeUndefined()
    expect(metadataProblem(ofJsonBytes(MAX_METADATA_BYTES + 1))).toBe("must be at most 16384 bytes as JSON")
    expect(Either.isLeft(decode(ofJsonBytes(MAX_METADATA_BYTES + 1)))).toBe(true)
  })

  it("counts bytes, not characters", () => {
    const characters = Math.floor(MAX_METADATA_BYTES / 2)
    expect(metadataProblem({ note: "ü".repeat(characters) })).toBe("must be at most 16384 bytes as JSON")
  })

  it("refuses empty and very long keys", () => {
    expect(metadataProblem({ "": 1 })).toBe("keys must not be empty")
    expect(metadataProblem({ ["k".repeat(101)]: 1 })).toBe("keys must be at most 100 characters")
    expect(metadataProblem({ ["k".repeat(100)]: 1 })).toBeUndefined()
  })

  it.each([["an array", [1, 2]], ["a string", "plan=gold"], ["null", null], ["a number", 3]])("refuses %s", (_, value) => {
    expect(Either.isLeft(decode(value))).toBe(true)
  })

  it("two maps with the same entries in another order are the same metadata", () => {
    expect(sameMetadata({ a: 1, b: { c: [1, 2], d: "x" } }, { b: { d: "x", c: [1, 2] }, a: 1 })).toBe(true)
    expect(sameMetadata({ a: [1, 2] }, { a: [2, 1] })).toBe(false)
    expect(sameMetadata({ a: 1 }, { a: 1, b: 2 })).toBe(false)
    expect(sameMetadata({ a: "1" }, { a: 1 })).toBe(false)
    expect(sameMetadata({ a: null }, { b: null })).toBe(false)
    expect(sameMetadata({ a: [] }, { a: {} })).toBe(false)
    expect(sameMetadata({ a: { b: null } }, { a: { b: false } })).toBe(false)
    expect(sameMetadata({ a: [{ x: 1, y: [true] }] }, { a: [{ y: [true], x: 1 }] })).toBe(true)
  })

  it.prop(
    "metadata equals itself with its keys shuffled, and differs once a value changes",
    [fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 10 })],
    ([value]) => {
      const entries = Object.entries(value)
      const reversed = Object.fromEntries([...entries].reverse())
      expect(sameMetadata(value, reversed)).toBe(true)
      const [firstKey, firstValue] = entries[0]!
      const changed = { ...value, [firstKey]: { was: firstValue ?? null } }
      expect(sameMetadata(value, changed)).toBe(false)
    }
  )
})
