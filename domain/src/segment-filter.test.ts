import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, ParseResult, Schema } from "effect"
import { EmailAddress } from "./email-address.js"
import { OrganizationId, SubscriberId } from "./ids.js"
import { reason } from "./reason.js"
import {
  type EngagementFacts,
  type FilterNode,
  filterTagIds,
  instantOf,
  MAX_FILTER_DEPTH,
  MAX_FILTER_NODES,
  matchesFilter,
  noEngagement,
  readsEngagement,
  SegmentFilter,
  segmentFilterOf,
  type SubscriberFacts
} from "./segment-filter.js"
import { Subscriber, type SubscriberStatus } from "./subscriber.js"

const decode = Schema.decodeUnknownEither(SegmentFilter)

/** Each problem of a bad filter, as `path: message`, the path written as a body field would be. */
const problemsOf = (input: unknown): ReadonlyArray<string> => {
  const result = decode(input)
  if (Either.isRight(result)) return []
  return ParseResult.ArrayFormatter.formatErrorSync(result.left).map((issue) =>
    `${issue.path.reduce<string>((f, k, i) => typeof k === "number" ? `${f}[${k}]` : i === 0 ? String(k) : `${f}.${String(k)}`, "")}: ${issue.message}`
  )
}

const tagA = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
const tagB = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a11"
const now = new Date("2025-06-01T12:00:00.000Z")

const facts = (overrides: {
  readonly email?: string
  readonly status?: SubscriberStatus
  readonly metadata?: Record<string, unknown>
  readonly createdAt?: Date
  readonly tags?: ReadonlyArray<string>
  readonly engagement?: Partial<EngagementFacts>
} = {}): SubscriberFacts => ({
  subscriber: new Subscriber({
    id: SubscriberId.make("0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a20"),
    organizationId: OrganizationId.make("0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a30"),
    email: EmailAddress.make(overrides.email ?? "Ada@Example.com"),
    status: overrides.status ?? "active",
    metadata: overrides.metadata ?? {},
    firstName: null,
    lastName: null,
    createdAt: overrides.createdAt ?? new Date("2025-01-15T00:00:00.000Z"),
    updatedAt: now
  }),
  tagIds: new Set(overrides.tags ?? []),
  engagement: { ...noEngagement, ...overrides.engagement }
})

const matches = (filter: unknown, subscriber: SubscriberFacts) =>
  matchesFilter(Either.getOrThrow(decode(filter)), subscriber, now)

describe("segment filters: decoding", () => {
  it("takes the issue's example, tag ids in lower case and email values by their key", () => {
    const filter = {
      all: [
        { field: "tags", op: "has_any", value: [tagA.toUpperCase()] },
        { field: "metadata.plan", op: "eq", value: "pro" },
        { not: { field: "email", op: "ends_with", value: "@Example.ORG" } }
      ]
    }
    expect(decode(filter)).toStrictEqual(Either.right({
      all: [
        { field: "tags", op: "has_any", value: [tagA] },
        { field: "metadata.plan", op: "eq", value: "pro" },
        { not: { field: "email", op: "ends_with", value: "@example.org" } }
      ]
    }))
  })

  it("keeps instants in their UTC form", () => {
    expect(decode({ field: "created_at", op: "between", value: ["2025-01-01", "2025-02-01T01:00:00+01:00"] }))
      .toStrictEqual(Either.right({ field: "created_at", op: "between", value: ["2025-01-01T00:00:00.000Z", "2025-02-01T00:00:00.000Z"] }))
  })

  it.each([
    [{ all: [{ field: "status", op: "eq", value: "active" }, { field: "tags", op: "has_any", value: "x" }] }, "all[1].value: must be an array, not \"x\""],
    [{ all: [{ field: "nope", op: "eq", value: 1 }] }, "all[0].field: must be one of status, tags, email, created_at, metadata.<path>, engagement.opened_days, engagement.clicked_days, engagement.received_days"],
    [{ any: [{ field: "status", op: "has_any", value: "active" }] }, "any[0].op: must be one of eq, neq, in, not_in for status"],
    [{ not: { field: "status", op: "eq", value: "gone" } }, "not.value: must be one of active, unsubscribed, bounced, complained"],
    [{ field: "tags", op: "has_all", value: [tagA, "nope"] }, "value[1]: must be a tag id (a UUID)"],
    [{ field: "metadata.plan..x", op: "eq", value: "pro" }, "field: metadata path key \"\" must start with a letter or _ and hold only letters, digits, _ and -"],
    [{ field: "metadata.0", op: "exists" }, "field: metadata path key \"0\" must start with a letter or _ and hold only letters, digits, _ and -"],
    [{ field: "metadata.plan", op: "eq", value: { a: 1 } }, "value: must be a string, a number or a boolean, not an object"],
    [{ field: "metadata.plan", op: "exists", value: true }, "value: exists takes no value"],
    [{ field: "metadata.renews", op: "gt", value: "2025-02-30" }, "value: must be a date (YYYY-MM-DD) or a date and time with a zone (2025-01-31T09:00:00Z), not \"2025-02-30\""],
    [{ field: "engagement.opened_days", op: "within", value: 0 }, "value: must be a whole number of days from 1 to 3650"],
    [{ field: "engagement.opened_days", op: "within", value: 1.5 }, "value: must be a whole number of days from 1 to 3650"],
    [{ field: "status", op: "eq" }, "value: is required"],
    [{ all: [], field: "status" }, "field: is not allowed beside \"all\": a node is one group or one condition"],
    [{ field: "status", op: "eq", value: "active", extra: 1 }, "extra: is not a key of a node: a group is all, any or not; a condition is field, op and value"],
    [{ all: "x" }, "all: must be an array of nodes, not \"x\""],
    [{}, "field: is required: a node is a group (all, any, not) or a condition (field, op, value)"],
    [{ field: "status", op: "in", value: [] }, "value: must not be empty"],
    [{ field: "email", op: "contains", value: "" }, "value: must not be empty"],
    [{ field: "created_at", op: "between", value: ["2025-01-01"] }, "value: must be [from, to]: two instants"]
  ])("%j is refused naming its bad node", (filter, problem) => {
    expect(problemsOf(filter)).toStrictEqual([problem])
  })

  it("names every bad node at once", () => {
    expect(problemsOf({ any: [{ field: "status", op: "eq", value: "x" }, 3] })).toStrictEqual([
      "any[0].value: must be one of active, unsubscribed, bounced, complained",
      "any[1]: must be an object: a group (all, any, not) or a condition (field, op, value), not 3"
    ])
  })

  it("refuses a filter nested too deep or with too many nodes", () => {
    let deep: unknown = { field: "status", op: "eq", value: "active" }
    for (let i = 0; i < MAX_FILTER_DEPTH; i++) deep = { not: deep }
    expect(problemsOf(deep)).toHaveLength(1)
    expect(problemsOf(deep)[0]).toMatch(/^not(\.not)*: a filter nests at most 8 levels deep$/)
    const wide = { any: Array.from({ length: MAX_FILTER_NODES }, () => ({ field: "status", op: "eq", value: "active" })) }
    expect(problemsOf(wide)[0]).toBe(`any[${MAX_FILTER_NODES - 1}]: a filter holds at most ${MAX_FILTER_NODES} nodes`)
    expect(problemsOf({ any: wide.any.slice(1) })).toStrictEqual([])
  })

  it("gives each problem as its path and catalogued reason, which the schema words in English", () => {
    const filter = { all: [{ field: "tags", op: "has_any", value: "x" }, { field: "metadata.plan", op: "gt", value: null }] }
    expect(segmentFilterOf(filter)).toStrictEqual(Either.left([
      { path: ["all", 0, "value"], reason: reason("filterNotArray", { given: { kind: "value", json: "\"x\"" } }) },
      { path: ["all", 1, "value"], reason: reason("filterNotNumberOrDate", { given: { kind: "value", json: "null" } }) }
    ]))
    expect(problemsOf(filter)).toStrictEqual([
      "all[0].value: must be an array, not \"x\"",
      "all[1].value: must be a number or a date, not null"
    ])
    expect(segmentFilterOf({ field: "status", op: "eq", value: "active" })).toStrictEqual(
      Either.right({ field: "status", op: "eq", value: "active" })
    )
  })

  it("a root that is not an object is refused at the root", () => {
    expect(problemsOf([1])).toStrictEqual([": must be an object: a group (all, any, not) or a condition (field, op, value), not an array"])
  })

  it("reads dates as the database does: real days, midnight UTC for a bare date", () => {
    expect(instantOf("2024-02-29")?.toISOString()).toBe("2024-02-29T00:00:00.000Z")
    expect(instantOf("2025-02-29")).toBeUndefined()
    expect(instantOf("2025-04-31T00:00:00Z")).toBeUndefined()
    expect(instantOf("2025-01-01T24:00:00Z")).toBeUndefined()
    expect(instantOf("2025-01-01T10:00:00")).toBeUndefined()
    expect(instantOf("2025-01-01T10:00:00.5-02:30")?.toISOString()).toBe("2025-01-01T12:30:00.500Z")
  })

  it("lists the tags it names and whether it reads engagement", () => {
    const filter = Either.getOrThrow(decode({
      any: [{ field: "tags", op: "has_any", value: [tagA, tagB] }, { not: { field: "tags", op: "has_none", value: [tagA] } }]
    }))
    expect(filterTagIds(filter)).toStrictEqual([tagA, tagB])
    expect(readsEngagement(filter)).toBe(false)
    expect(readsEngagement(Either.getOrThrow(decode({ not: { field: "engagement.clicked_days", op: "within", value: 3 } })))).toBe(true)
  })
})

describe("segment filters: evaluation", () => {
  it.each<[string, unknown, SubscriberFacts, boolean]>([
    ["status eq", { field: "status", op: "eq", value: "active" }, facts(), true],
    ["status not_in", { field: "status", op: "not_in", value: ["active", "bounced"] }, facts({ status: "bounced" }), false],
    ["has_any", { field: "tags", op: "has_any", value: [tagA, tagB] }, facts({ tags: [tagB] }), true],
    ["has_all", { field: "tags", op: "has_all", value: [tagA, tagB] }, facts({ tags: [tagB] }), false],
    ["has_none", { field: "tags", op: "has_none", value: [tagA] }, facts({ tags: [tagB] }), true],
    ["email regardless of case", { field: "email", op: "eq", value: "ADA@example.COM" }, facts(), true],
    ["email domain", { field: "email", op: "domain", value: "Example.com" }, facts(), true],
    ["email domain is the whole domain", { field: "email", op: "domain", value: "ample.com" }, facts(), false],
    ["email starts_with", { field: "email", op: "starts_with", value: "ada@" }, facts(), true],
    ["created_at between, end left out", { field: "created_at", op: "between", value: ["2025-01-01", "2025-01-15"] }, facts(), false],
    ["created_at gte", { field: "created_at", op: "gte", value: "2025-01-15" }, facts(), true],
    ["metadata eq nested", { field: "metadata.plan.tier", op: "eq", value: "pro" }, facts({ metadata: { plan: { tier: "pro" } } }), true],
    ["metadata eq is typed", { field: "metadata.seats", op: "eq", value: "3" }, facts({ metadata: { seats: 3 } }), false],
    ["metadata eq never looks into arrays", { field: "metadata.plan", op: "eq", value: "pro" }, facts({ metadata: { plan: ["pro"] } }), false],
    ["metadata neq matches a missing path", { field: "metadata.plan", op: "neq", value: "pro" }, facts(), true],
    ["metadata exists with a null value", { field: "metadata.plan", op: "exists" }, facts({ metadata: { plan: null } }), true],
    ["metadata not_exists", { field: "metadata.plan.tier", op: "not_exists" }, facts({ metadata: { plan: "pro" } }), true],
    ["metadata contains in a string", { field: "metadata.note", op: "contains", value: "VIP" }, facts({ metadata: { note: "a VIP!" } }), true],
    ["metadata contains in an array", { field: "metadata.interests", op: "contains", value: 7 }, facts({ metadata: { interests: [1, 7] } }), true],
    ["metadata gt number", { field: "metadata.seats", op: "gt", value: 2 }, facts({ metadata: { seats: 3 } }), true],
    ["metadata gt never compares text with a number", { field: "metadata.seats", op: "gt", value: 2 }, facts({ metadata: { seats: "3" } }), false],
    ["metadata lt date", { field: "metadata.renews", op: "lt", value: "2025-03-01" }, facts({ metadata: { renews: "2025-02-28T23:00:00-02:00" } }), false],
    ["metadata lte date", { field: "metadata.renews", op: "lte", value: "2025-03-01T01:00:00Z" }, facts({ metadata: { renews: "2025-03-01" } }), true],
    ["opened within", { field: "engagement.opened_days", op: "within", value: 7 }, facts({ engagement: { lastOpenedAt: new Date("2025-05-25T12:00:00.000Z") } }), true],
    ["opened not within", { field: "engagement.opened_days", op: "not_within", value: 6 }, facts({ engagement: { lastOpenedAt: new Date("2025-05-25T12:00:00.000Z") } }), true],
    ["never received", { field: "engagement.received_days", op: "not_within", value: 30 }, facts(), true],
    ["clicked within", { field: "engagement.clicked_days", op: "within", value: 30 }, facts({ engagement: { lastOpenedAt: now } }), false],
    ["empty all is everyone", { all: [] }, facts(), true],
    ["empty any is no one", { any: [] }, facts(), false]
  ])("%s", (_, filter, subscriber, expected) => {
    expect(matches(filter, subscriber)).toBe(expected)
  })

  const leaf = fc.constantFrom<FilterNode>(
    { field: "status", op: "eq", value: "active" },
    { field: "tags", op: "has_any", value: [tagA] },
    { field: "metadata.plan", op: "eq", value: "pro" },
    { field: "email", op: "domain", value: "example.com" }
  )
  const tree = fc.letrec<{ node: FilterNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.array(tie("node"), { maxLength: 3 }).map((all) => ({ all })),
      fc.array(tie("node"), { maxLength: 3 }).map((any) => ({ any })),
      tie("node").map((not) => ({ not }))
    )
  })).node
  const subscriberFacts = fc.record({
    status: fc.constantFrom<SubscriberStatus>("active", "bounced"),
    tags: fc.subarray([tagA, tagB]),
    plan: fc.constantFrom("pro", "free"),
    email: fc.constantFrom("a@example.com", "b@example.org")
  }).map((f) => facts({ status: f.status, tags: f.tags, metadata: { plan: f.plan }, email: f.email }))

  it("groups follow boolean logic: not inverts, all is every, any is some (De Morgan holds)", () => {
    fc.assert(fc.property(fc.array(tree, { maxLength: 4 }), subscriberFacts, (nodes, subscriber) => {
      const all = matchesFilter({ all: nodes }, subscriber, now)
      expect(all).toBe(nodes.every((n) => matchesFilter(n, subscriber, now)))
      expect(matchesFilter({ not: { any: nodes } }, subscriber, now))
        .toBe(matchesFilter({ all: nodes.map((not) => ({ not })) }, subscriber, now))
      expect(matchesFilter({ not: { not: { all: nodes } } }, subscriber, now)).toBe(all)
    }))
  })

  it("a decoded filter encodes to what decodes to it again", () => {
    fc.assert(fc.property(tree, (node) => {
      const encoded = Schema.encodeSync(SegmentFilter)(node)
      expect(decode(JSON.parse(JSON.stringify(encoded)))).toStrictEqual(Either.right(node))
    }))
  })
})
