import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { instantText } from "./instant.js"

/** The instants a Date can hold: 100,000,000 days either side of 1970. */
const LIMIT = 8.64e15

describe("instantText", () => {
  it("writes any instant as toISOString does, in any order of days", () => {
    fc.assert(
      fc.property(fc.integer({ min: -LIMIT, max: LIMIT }), (ms) => {
        const date = new Date(ms)
        expect(instantText(date)).toBe(date.toISOString())
      }),
      { numRuns: 5000 }
    )
  })

  it("writes the instants of one day, its first and last millisecond and those around them", () => {
    const day = Date.UTC(2026, 10, 29)
    for (const ms of [day - 1, day, day + 1, day + 999, day + 59_999, day + 3_599_999, day + 86_399_999, day + 86_400_000]) {
      expect(instantText(new Date(ms))).toBe(new Date(ms).toISOString())
    }
    fc.assert(fc.property(fc.integer({ min: day, max: day + 86_399_999 }), (ms) => {
      expect(instantText(new Date(ms))).toBe(new Date(ms).toISOString())
    }))
  })

  it("writes years of six digits and before year 0 as toISOString does", () => {
    for (const ms of [-LIMIT, LIMIT, Date.UTC(-1, 0, 1), Date.UTC(10_000, 0, 1) - 1, Date.UTC(10_000, 0, 1), -62_167_219_200_001]) {
      expect(instantText(new Date(ms))).toBe(new Date(ms).toISOString())
    }
  })

  it("refuses an invalid date as toISOString does", () => {
    expect(() => instantText(new Date(Number.NaN))).toThrow(RangeError)
    // And goes on writing valid ones.
    expect(instantText(new Date(0))).toBe("1970-01-01T00:00:00.000Z")
  })
})
