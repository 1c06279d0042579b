/**
 * The segment builder's translation between its form and the domain's filter: each kind of
 * condition makes the node the domain decodes, a saved filter of one group comes back as the same
 * form, days are read in the viewer's time zone, and every problem the builder's fields can lead
 * to is worded in German.
 */
import type { FilterNode } from "@roster/domain"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import {
  blankCondition,
  type Builder,
  builderOf,
  builderOfFilter,
  conditionKinds,
  filterOf,
  knownZone
} from "../../adapters/http/dashboard/segment-builder.js"

const tag = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

const fieldsOf = (entries: Record<string, string | ReadonlyArray<string>>) =>
  new Map(Object.entries(entries).map(([name, value]) => [name, typeof value === "string" ? [value] : value]))

const filter = (builder: Builder, zone = "UTC") => Either.getOrThrow(filterOf(builder, zone, "en", "not a number"))
const problems = (builder: Builder, locale: "en" | "de" = "en") =>
  Either.match(filterOf(builder, "UTC", locale, "not a number"), { onLeft: (p) => Object.fromEntries(p), onRight: () => ({}) })

describe("the segment builder", () => {
  it("reads its conditions in the order of their numbers, each of a known kind, and makes one group of them", () => {
    const builder = builderOf(fieldsOf({
      match: "any",
      "c10.kind": "email", "c10.op": "domain", "c10.value": " Example.COM ",
      "c2.kind": "tags", "c2.op": "has_all", "c2.tags": [tag],
      "c3.kind": "nonsense",
      "c4.kind": "engagement", "c4.op": "received_not_within", "c4.days": "30", "c4.not": "on",
      "c5.kind": "metadata", "c5.op": "gte", "c5.path": "seats", "c5.type": "number", "c5.value": "2.5",
      "c6.kind": "metadata", "c6.op": "eq", "c6.path": "address.vip", "c6.type": "true",
      "c7.kind": "metadata", "c7.op": "not_exists", "c7.path": "plan",
      "c8.kind": "status", "c8.op": "not_in", "c8.statuses": ["bounced", "complained"]
    }))
    expect(builder.conditions.map((c) => c.kind)).toEqual(["tags", "engagement", "metadata", "metadata", "metadata", "status", "email"])
    expect(filter(builder)).toEqual({
      any: [
        { field: "tags", op: "has_all", value: [tag] },
        { not: { field: "engagement.received_days", op: "not_within", value: 30 } },
        { field: "metadata.seats", op: "gte", value: 2.5 },
        { field: "metadata.address.vip", op: "eq", value: true },
        { field: "metadata.plan", op: "not_exists" },
        { field: "status", op: "not_in", value: ["bounced", "complained"] },
        { field: "email", op: "domain", value: "example.com" }
      ]
    })
    // Back from the saved filter: the same form, and the same filter from it.
    const back = builderOfFilter(filter(builder), "UTC")!
    expect(filter(back)).toEqual(filter(builder))
  })

  it("reads a created range as whole days in the viewer's zone, across a change of summer time", () => {
    const range = (from: string, to: string): Builder => ({ match: "all", conditions: [{ ...blankCondition("created_at"), from, to }] })
    expect(filter(range("2025-03-30", "2025-03-30"), "Europe/Berlin")).toEqual({
      all: [{ field: "created_at", op: "between", value: ["2025-03-29T23:00:00.000Z", "2025-03-30T22:00:00.000Z"] }]
    })
    expect(filter(range("2025-01-01", ""), "America/New_York")).toEqual({
      all: [{ field: "created_at", op: "gte", value: "2025-01-01T05:00:00.000Z" }]
    })
    expect(filter(range("", "2025-01-01"), "UTC")).toEqual({ all: [{ field: "created_at", op: "lt", value: "2025-01-02T00:00:00.000Z" }] })
    const saved = filter(range("2025-03-30", "2025-10-26"), "Europe/Berlin")
    expect(builderOfFilter(saved, "Europe/Berlin")!.conditions[0]).toMatchObject({ from: "2025-03-30", to: "2025-10-26" })
    expect(knownZone("Nowhere/Else")).toBe("UTC")
    expect(knownZone(undefined)).toBe("UTC")
  })

  it("edits no filter nested deeper than one group of conditions, each negated at most once", () => {
    const nested: FilterNode = { all: [{ any: [{ field: "status", op: "eq", value: "active" }] }] }
    expect(builderOfFilter(nested, "UTC")).toBeUndefined()
    expect(builderOfFilter({ not: { not: { field: "status", op: "eq", value: "active" } } }, "UTC")).toBeUndefined()
    expect(builderOfFilter({ field: "created_at", op: "gt", value: "2025-01-01T00:00:00.000Z" }, "UTC")).toBeUndefined()
    expect(builderOfFilter({ field: "status", op: "eq", value: "active" }, "UTC")).toEqual({
      match: "all",
      conditions: [{ ...blankCondition("status"), op: "in", statuses: ["active"] }]
    })
  })

  it("tells each condition's problem by its place, in English and in German", () => {
    const builder: Builder = {
      match: "all",
      conditions: [
        { ...blankCondition("status"), statuses: [] },
        { ...blankCondition("metadata"), path: "1bad", value: "x" },
        { ...blankCondition("metadata"), op: "gt", path: "seats", valueType: "number", value: "many" },
        { ...blankCondition("created_at") },
        { ...blankCondition("email"), value: "x".repeat(300) },
        { ...blankCondition("engagement"), days: "4000" },
        { ...blankCondition("metadata"), op: "lt", path: "since", value: "yesterday" },
        { ...blankCondition("metadata"), path: "a.b.c.d.e.f", value: "x" }
      ]
    }
    expect(problems(builder)).toEqual({
      0: "must not be empty",
      1: "metadata path key \"1bad\" must start with a letter or _ and hold only letters, digits, _ and -",
      2: "not a number",
      3: "must be a date (YYYY-MM-DD) or a date and time with a zone (2025-01-31T09:00:00Z), not \"\"",
      4: "must be at most 254 characters",
      5: "must be a whole number of days from 1 to 3650",
      6: "must be a date (YYYY-MM-DD) or a date and time with a zone (2025-01-31T09:00:00Z), not \"yesterday\"",
      7: "a metadata path has at most 5 keys"
    })
    const german = problems(builder, "de")
    expect(german).toMatchObject({
      0: "darf nicht leer sein",
      5: "muss eine ganze Zahl von Tagen zwischen 1 und 3650 sein",
      7: "ein Metadaten-Pfad hat höchstens 5 Schlüssel"
    })
    // Every problem the builder led to is in German, none left in English.
    for (const [place, words] of Object.entries(german)) {
      if (place === "2") continue
      expect(words).not.toBe(problems(builder)[Number(place) as keyof ReturnType<typeof problems>])
    }
    expect(conditionKinds.map((kind) => Either.isLeft(filterOf({ match: "all", conditions: [blankCondition(kind)] }, "UTC", "en", "")))).toEqual([
      false, true, true, true, true, false
    ])
  })
})
