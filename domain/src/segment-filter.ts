import { Either, ParseResult, Schema } from "effect"
import { emailKey } from "./email-address.js"
import { isUuid } from "./ids.js"
import { type Given, type Reason, reason, reasonText } from "./reason.js"
import type { Subscriber, SubscriberStatus } from "./subscriber.js"
import { subscriberStatuses } from "./subscriber.js"
import { isStorableText } from "./text.js"

/**
 * A segment's filter: a typed tree over a subscriber. A node is a group (`{all: [...]}`,
 * `{any: [...]}`, `{not: node}`) or a condition `{field, op, value}`. The same tree is evaluated
 * here, over one subscriber in memory, and compiled to one SQL predicate by the database adapter;
 * both read the rules written in this file.
 *
 * - `status`: `eq`, `neq` (one status); `in`, `not_in` (a list of statuses).
 * - `tags`: `has_any`, `has_all`, `has_none` (a list of tag ids).
 * - `email`: `eq`, `neq`, `contains`, `starts_with`, `ends_with`, `domain`, all regardless of
 *   letter case (the address's comparison key); `domain` is the part after the `@`.
 * - `created_at`: `gt`, `gte`, `lt`, `lte` (an instant), `between` (`[from, to]`: from <= t < to).
 * - `metadata.<path>` (1 to 5 keys, each a letter or `_` then letters, digits, `_` or `-`):
 *   `eq`, `neq` (a string, number or boolean; `neq` also matches where the path is missing),
 *   `exists`, `not_exists` (no value), `contains` (a string within a string, or an element of an
 *   array), `gt`, `gte`, `lt`, `lte` (a number against numbers, or an instant against values that
 *   are dates: `YYYY-MM-DD` as midnight UTC, or `YYYY-MM-DDTHH:MM:SS[.fff]` with `Z` or `±HH:MM`).
 * - `engagement.opened_days`, `engagement.clicked_days`, `engagement.received_days`: `within` or
 *   `not_within` (a whole number of days, 1 to 3650): whether the subscriber opened (or clicked),
 *   clicked, or received (an email handed to the provider) any email in the last N days.
 */

export const MAX_FILTER_DEPTH = 8
export const MAX_FILTER_NODES = 100
export const MAX_FILTER_LIST = 100
export const MAX_FILTER_TEXT = 254
export const MAX_METADATA_PATH_KEYS = 5
export const MAX_ENGAGEMENT_DAYS = 3650
const DAY_MS = 86_400_000

export type FilterScalar = string | number | boolean

export type StatusCondition =
  | { readonly field: "status"; readonly op: "eq" | "neq"; readonly value: SubscriberStatus }
  | { readonly field: "status"; readonly op: "in" | "not_in"; readonly value: ReadonlyArray<SubscriberStatus> }

export interface TagsCondition {
  readonly field: "tags"
  readonly op: "has_any" | "has_all" | "has_none"
  /** Tag ids, lower case. */
  readonly value: ReadonlyArray<string>
}

export interface EmailCondition {
  readonly field: "email"
  readonly op: "eq" | "neq" | "contains" | "starts_with" | "ends_with" | "domain"
  /** Compared with the address's key: lower case, NFC. */
  readonly value: string
}

export type CreatedAtCondition =
  | { readonly field: "created_at"; readonly op: "gt" | "gte" | "lt" | "lte"; readonly value: string }
  | { readonly field: "created_at"; readonly op: "between"; readonly value: readonly [string, string] }

export type MetadataField = `metadata.${string}`

export type MetadataCondition =
  | { readonly field: MetadataField; readonly op: "eq" | "neq" | "contains"; readonly value: FilterScalar }
  | { readonly field: MetadataField; readonly op: "exists" | "not_exists" }
  | { readonly field: MetadataField; readonly op: "gt" | "gte" | "lt" | "lte"; readonly value: number | string }

export type EngagementField = "engagement.opened_days" | "engagement.clicked_days" | "engagement.received_days"

export interface EngagementCondition {
  readonly field: EngagementField
  readonly op: "within" | "not_within"
  /** Days, a whole number. */
  readonly value: number
}

export type FilterCondition =
  | StatusCondition
  | TagsCondition
  | EmailCondition
  | CreatedAtCondition
  | MetadataCondition
  | EngagementCondition

export type FilterNode =
  | { readonly all: ReadonlyArray<FilterNode> }
  | { readonly any: ReadonlyArray<FilterNode> }
  | { readonly not: FilterNode }
  | FilterCondition

/** Every field's operators, as the OpenAPI document lists them. */
export const filterOperators = {
  status: ["eq", "neq", "in", "not_in"],
  tags: ["has_any", "has_all", "has_none"],
  email: ["eq", "neq", "contains", "starts_with", "ends_with", "domain"],
  created_at: ["gt", "gte", "lt", "lte", "between"],
  "metadata.<path>": ["eq", "neq", "exists", "not_exists", "contains", "gt", "gte", "lt", "lte"],
  "engagement.opened_days": ["within", "not_within"],
  "engagement.clicked_days": ["within", "not_within"],
  "engagement.received_days": ["within", "not_within"]
} as const

const metadataKeyPattern = /^[A-Za-z_][A-Za-z0-9_-]{0,99}$/
const instantPattern = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,3})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$/
const datePattern = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/

const daysIn = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && year % 100 !== 0 || year % 400 === 0 ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

/**
 * The instant a text names, if it is a date (`YYYY-MM-DD`, midnight UTC) or a date and time with
 * seconds and a zone (`Z` or `±HH:MM`), on a day that exists from the year 1 on. The database
 * adapter reads dates in metadata by the same rules.
 */
export const instantOf = (text: string): Date | undefined => {
  const full = datePattern.test(text) ? `${text}T00:00:00Z` : instantPattern.test(text) ? text : undefined
  if (full === undefined) return undefined
  const [year, month, day] = full.slice(0, 10).split("-").map(Number) as [number, number, number]
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined
  const at = new Date(full)
  return Number.isNaN(at.getTime()) ? undefined : at
}

/** The keys of a `metadata.<path>` field. */
export const metadataPath = (field: MetadataField): ReadonlyArray<string> => field.slice("metadata.".length).split(".")

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

// ---------------------------------------------------------------------------------------------
// Decoding: each problem names the path of the bad node and the reason it is refused.

type Path = ReadonlyArray<PropertyKey>

/** A problem of a filter: where in the filter (`["all", 1, "value"]`, `[]` for the whole) and why. */
export interface FilterProblem {
  readonly path: Path
  readonly reason: Reason
}

class Problems {
  readonly list: Array<FilterProblem> = []
  nodes = 0
  add(path: Path, why: Reason): undefined {
    this.list.push({ path, reason: why })
    return undefined
  }
}

/** What was given instead of what a filter needs, in the words of its reasons: `null`, `an array`, `"x"`. */
const describe = (u: unknown): Given =>
  Array.isArray(u) ? { kind: "array" } : typeof u === "object" && u !== null ? { kind: "object" } : { kind: "value", json: JSON.stringify(u) }

const groupKeys = ["all", "any", "not"] as const

const decodeNode = (input: unknown, path: Path, depth: number, problems: Problems): FilterNode | undefined => {
  if (!isRecord(input)) return problems.add(path, reason("filterNodeNotObject", { given: describe(input) }))
  problems.nodes += 1
  if (problems.nodes > MAX_FILTER_NODES) return problems.add(path, reason("filterTooManyNodes", { max: MAX_FILTER_NODES }))
  if (depth > MAX_FILTER_DEPTH) return problems.add(path, reason("filterTooDeep", { max: MAX_FILTER_DEPTH }))
  const keys = Object.keys(input)
  const group = groupKeys.find((k) => Object.hasOwn(input, k))
  if (group !== undefined) {
    const extra = keys.find((k) => k !== group)
    if (extra !== undefined) return problems.add([...path, extra], reason("filterBesideGroup", { group }))
    const inner = input[group]
    const at = [...path, group]
    if (group === "not") {
      const node = decodeNode(inner, at, depth + 1, problems)
      return node === undefined ? undefined : { not: node }
    }
    if (!Array.isArray(inner)) return problems.add(at, reason("filterNotNodes", { given: describe(inner) }))
    if (inner.length > MAX_FILTER_LIST) return problems.add(at, reason("filterGroupTooLong", { max: MAX_FILTER_LIST }))
    const nodes: Array<FilterNode> = []
    let bad = false
    inner.forEach((item, i) => {
      const node = decodeNode(item, [...at, i], depth + 1, problems)
      if (node === undefined) bad = true
      else nodes.push(node)
    })
    if (bad) return undefined
    return group === "all" ? { all: nodes } : { any: nodes }
  }
  return decodeCondition(input, path, problems)
}

const statusReason = reason("statusOneOf", { statuses: subscriberStatuses.join(", ") })

const isStatus = (u: unknown): u is SubscriberStatus => typeof u === "string" && (subscriberStatuses as ReadonlyArray<string>).includes(u)

const listOf = <A>(
  value: unknown,
  at: Path,
  problems: Problems,
  item: (u: unknown, at: Path) => A | undefined
): ReadonlyArray<A> | undefined => {
  if (!Array.isArray(value)) return problems.add(at, reason("filterNotArray", { given: describe(value) }))
  if (value.length === 0) return problems.add(at, reason("empty"))
  if (value.length > MAX_FILTER_LIST) return problems.add(at, reason("filterListTooLong", { max: MAX_FILTER_LIST }))
  const items: Array<A> = []
  let bad = false
  value.forEach((u, i) => {
    const decoded = item(u, [...at, i])
    if (decoded === undefined) bad = true
    else items.push(decoded)
  })
  return bad ? undefined : items
}

const textValue = (value: unknown, at: Path, problems: Problems): string | undefined => {
  if (typeof value !== "string") return problems.add(at, reason("filterNotString", { given: describe(value) }))
  if (value.length === 0) return problems.add(at, reason("empty"))
  if (value.length > MAX_FILTER_TEXT) return problems.add(at, reason("tooLong", { max: MAX_FILTER_TEXT }))
  if (/\p{Cc}/u.test(value)) return problems.add(at, reason("controlCharacters"))
  if (!isStorableText(value)) return problems.add(at, reason("unstorable"))
  return value
}

const instantValue = (value: unknown, at: Path, problems: Problems): string | undefined => {
  const at_ = typeof value === "string" ? instantOf(value) : undefined
  if (at_ === undefined) return problems.add(at, reason("filterNotInstant", { given: describe(value) }))
  return at_.toISOString()
}

const scalarValue = (value: unknown, at: Path, problems: Problems): FilterScalar | undefined => {
  if (typeof value === "string") return textValue(value, at, problems)
  if (typeof value === "number" && Number.isFinite(value)) return value
  if (typeof value === "boolean") return value
  return problems.add(at, reason("filterNotScalar", { given: describe(value) }))
}

const decodeCondition = (input: Readonly<Record<string, unknown>>, path: Path, problems: Problems): FilterCondition | undefined => {
  const extra = Object.keys(input).find((k) => k !== "field" && k !== "op" && k !== "value")
  if (extra !== undefined) return problems.add([...path, extra], reason("filterUnknownKey"))
  const { field, op, value } = input
  const fieldAt = [...path, "field"]
  const opAt = [...path, "op"]
  const valueAt = [...path, "value"]
  if (typeof field !== "string") {
    return problems.add(fieldAt, field === undefined
      ? reason("filterFieldRequired")
      : reason("filterNotString", { given: describe(field) }))
  }
  const kind = field.startsWith("metadata.") ? "metadata.<path>" : field
  const operators: ReadonlyArray<string> | undefined = (filterOperators as Record<string, ReadonlyArray<string>>)[kind]
  if (operators === undefined || kind === "metadata.<path>" && field === "metadata.<path>") {
    return problems.add(fieldAt, reason("filterUnknownField", { fields: Object.keys(filterOperators).join(", ") }))
  }
  if (typeof op !== "string" || !operators.includes(op)) {
    return problems.add(opAt, reason("filterUnknownOperator", { operators: operators.join(", "), field: kind }))
  }
  const hasValue = Object.hasOwn(input, "value")
  if (!hasValue && !(op === "exists" || op === "not_exists")) return problems.add(valueAt, reason("filterValueRequired"))
  switch (kind) {
    case "status": {
      if (op === "eq" || op === "neq") {
        if (!isStatus(value)) return problems.add(valueAt, statusReason)
        return { field: "status", op, value }
      }
      const statuses = listOf(value, valueAt, problems, (u, at) =>
        isStatus(u) ? u : problems.add(at, statusReason))
      return statuses === undefined ? undefined : { field: "status", op: op as "in" | "not_in", value: statuses }
    }
    case "tags": {
      const ids = listOf(value, valueAt, problems, (u, at) =>
        typeof u === "string" && isUuid(u) ? u.toLowerCase() : problems.add(at, reason("filterTagId")))
      return ids === undefined ? undefined : { field: "tags", op: op as TagsCondition["op"], value: ids }
    }
    case "email": {
      const text = textValue(value, valueAt, problems)
      return text === undefined ? undefined : { field: "email", op: op as EmailCondition["op"], value: emailKey(text) }
    }
    case "created_at": {
      if (op === "between") {
        if (!Array.isArray(value) || value.length !== 2) return problems.add(valueAt, reason("filterBetween"))
        const from = instantValue(value[0], [...valueAt, 0], problems)
        const to = instantValue(value[1], [...valueAt, 1], problems)
        if (from === undefined || to === undefined) return undefined
        return { field: "created_at", op, value: [from, to] }
      }
      const at = instantValue(value, valueAt, problems)
      return at === undefined ? undefined : { field: "created_at", op: op as "gt" | "gte" | "lt" | "lte", value: at }
    }
    case "metadata.<path>": {
      const keys = field.slice("metadata.".length).split(".")
      if (keys.length > MAX_METADATA_PATH_KEYS) return problems.add(fieldAt, reason("filterMetadataPathKeys", { max: MAX_METADATA_PATH_KEYS }))
      const bad = keys.find((k) => !metadataKeyPattern.test(k))
      if (bad !== undefined) {
        return problems.add(fieldAt, reason("filterMetadataPathKey", { key: JSON.stringify(bad) }))
      }
      const metadataField = field as MetadataField
      if (op === "exists" || op === "not_exists") {
        if (hasValue) return problems.add(valueAt, reason("filterNoValue", { op }))
        return { field: metadataField, op }
      }
      if (op === "eq" || op === "neq" || op === "contains") {
        const scalar = scalarValue(value, valueAt, problems)
        return scalar === undefined ? undefined : { field: metadataField, op, value: scalar }
      }
      if (typeof value === "number" && Number.isFinite(value)) return { field: metadataField, op: op as "gt", value }
      if (typeof value === "string") {
        const instant = instantValue(value, valueAt, problems)
        return instant === undefined ? undefined : { field: metadataField, op: op as "gt", value: instant }
      }
      return problems.add(valueAt, reason("filterNotNumberOrDate", { given: describe(value) }))
    }
    default: {
      if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_ENGAGEMENT_DAYS) {
        return problems.add(valueAt, reason("filterDays", { max: MAX_ENGAGEMENT_DAYS }))
      }
      return { field: field as EngagementField, op: op as "within" | "not_within", value }
    }
  }
}

/** A filter tree already decoded. */
const FilterNodeFromSelf = Schema.declare((u: unknown): u is FilterNode => isRecord(u), {
  identifier: "SegmentFilterNode"
})

const filterJsonSchema = {
  description: "A segment filter: a group `{all: [node, ...]}`, `{any: [node, ...]}`, `{not: node}`, or a condition " +
    "`{field, op, value}`. Fields and their operators: " +
    Object.entries(filterOperators).map(([field, ops]) => `${field}: ${ops.join(", ")}`).join("; ") +
    `. At most ${MAX_FILTER_DEPTH} levels and ${MAX_FILTER_NODES} nodes.`,
  examples: [{
    all: [
      { field: "tags", op: "has_any", value: ["0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"] },
      { field: "metadata.plan", op: "eq", value: "pro" },
      { not: { field: "email", op: "ends_with", value: "@example.org" } }
    ]
  }],
  oneOf: [
    { type: "object", required: ["all"], properties: { all: { type: "array", items: { type: "object", description: "a node" } } }, additionalProperties: false },
    { type: "object", required: ["any"], properties: { any: { type: "array", items: { type: "object", description: "a node" } } }, additionalProperties: false },
    { type: "object", required: ["not"], properties: { not: { type: "object", description: "a node" } }, additionalProperties: false },
    {
      type: "object",
      required: ["field", "op"],
      properties: {
        field: {
          type: "string",
          description: "status, tags, email, created_at, metadata.<path>, engagement.opened_days, engagement.clicked_days or engagement.received_days"
        },
        op: {
          type: "string",
          enum: [...new Set(Object.values(filterOperators).flat())]
        },
        value: { description: "what the operator compares with; none for exists and not_exists" }
      },
      additionalProperties: false
    }
  ]
}

/**
 * A segment's filter from its JSON form, or every problem of it at once, each with its path and
 * reason: what {@link SegmentFilter} reports, for a reader that words the reasons itself.
 */
export const segmentFilterOf = (input: unknown): Either.Either<FilterNode, ReadonlyArray<FilterProblem>> => {
  const problems = new Problems()
  const node = decodeNode(input, [], 1, problems)
  return node !== undefined && problems.list.length === 0 ? Either.right(node) : Either.left(problems.list)
}

/**
 * A segment's filter from its JSON form. A bad node fails with issues that name its path (a
 * body's `filter.all[1].value`), every bad node at once, in the English words of its reason.
 */
export const SegmentFilter = Schema.transformOrFail(Schema.Unknown, FilterNodeFromSelf, {
  strict: true,
  decode: (input, _options, ast) => {
    const decoded = segmentFilterOf(input)
    if (Either.isRight(decoded)) return ParseResult.succeed(decoded.right)
    const issues = decoded.left.map((p) =>
      p.path.length === 0
        ? new ParseResult.Type(ast, input, reasonText(p.reason))
        : new ParseResult.Pointer(
          p.path as [PropertyKey, ...Array<PropertyKey>],
          input,
          new ParseResult.Type(ast, input, reasonText(p.reason))
        )
    )
    return ParseResult.fail(issues.length === 1 ? issues[0]! : new ParseResult.Composite(ast, input, issues as [ParseResult.ParseIssue, ...Array<ParseResult.ParseIssue>]))
  },
  encode: ParseResult.succeed
}).annotations({ identifier: "SegmentFilter", jsonSchema: filterJsonSchema })
export type SegmentFilter = FilterNode

// ---------------------------------------------------------------------------------------------
// Evaluation over one subscriber.

/** When a subscriber last opened (or clicked), clicked and received an email; `null`: never. */
export interface EngagementFacts {
  readonly lastOpenedAt: Date | null
  readonly lastClickedAt: Date | null
  readonly lastReceivedAt: Date | null
}

export const noEngagement: EngagementFacts = { lastOpenedAt: null, lastClickedAt: null, lastReceivedAt: null }

/** What a filter reads of one subscriber. */
export interface SubscriberFacts {
  readonly subscriber: Subscriber
  readonly tagIds: ReadonlySet<string>
  readonly engagement: EngagementFacts
}

/** The first instant an engagement condition of `days` counts, at `now`. */
export const engagementSince = (now: Date, days: number): Date => new Date(now.getTime() - days * DAY_MS)

/** The value at `path` in metadata, descending only through objects; `undefined` where missing. */
export const metadataAt = (metadata: Readonly<Record<string, unknown>>, path: ReadonlyArray<string>): unknown => {
  let current: unknown = metadata
  for (const key of path) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined
    current = current[key]
  }
  return current
}

const compare = (a: number, b: number, op: "gt" | "gte" | "lt" | "lte"): boolean =>
  op === "gt" ? a > b : op === "gte" ? a >= b : op === "lt" ? a < b : a <= b

const emailDomain = (key: string): string => key.slice(key.lastIndexOf("@") + 1)

const matchesCondition = (c: FilterCondition, facts: SubscriberFacts, now: Date): boolean => {
  const subscriber = facts.subscriber
  switch (c.field) {
    case "status":
      switch (c.op) {
        case "eq": return subscriber.status === c.value
        case "neq": return subscriber.status !== c.value
        case "in": return c.value.includes(subscriber.status)
        case "not_in": return !c.value.includes(subscriber.status)
      }
      break
    case "tags":
      switch (c.op) {
        case "has_any": return c.value.some((id) => facts.tagIds.has(id))
        case "has_all": return c.value.every((id) => facts.tagIds.has(id))
        case "has_none": return !c.value.some((id) => facts.tagIds.has(id))
      }
      break
    case "email": {
      const key = emailKey(subscriber.email)
      switch (c.op) {
        case "eq": return key === c.value
        case "neq": return key !== c.value
        case "contains": return key.includes(c.value)
        case "starts_with": return key.startsWith(c.value)
        case "ends_with": return key.endsWith(c.value)
        case "domain": return emailDomain(key) === c.value
      }
      break
    }
    case "created_at": {
      const t = subscriber.createdAt.getTime()
      if (c.op === "between") return t >= Date.parse(c.value[0]) && t < Date.parse(c.value[1])
      return compare(t, Date.parse(c.value), c.op)
    }
    case "engagement.opened_days":
    case "engagement.clicked_days":
    case "engagement.received_days": {
      const last = c.field === "engagement.opened_days"
        ? facts.engagement.lastOpenedAt
        : c.field === "engagement.clicked_days"
        ? facts.engagement.lastClickedAt
        : facts.engagement.lastReceivedAt
      const within = last !== null && last.getTime() >= engagementSince(now, c.value).getTime()
      return c.op === "within" ? within : !within
    }
    default: {
      const found = metadataAt(subscriber.metadata, metadataPath(c.field))
      switch (c.op) {
        case "exists": return found !== undefined
        case "not_exists": return found === undefined
        case "eq": return found === c.value
        case "neq": return found !== c.value
        case "contains":
          if (typeof found === "string") return typeof c.value === "string" && found.includes(c.value)
          if (Array.isArray(found)) return found.some((item) => item === c.value)
          return false
        default: {
          if (typeof c.value === "number") return typeof found === "number" && compare(found, c.value, c.op)
          const at = typeof found === "string" ? instantOf(found) : undefined
          return at !== undefined && compare(at.getTime(), Date.parse(c.value), c.op)
        }
      }
    }
  }
}

/** Whether the subscriber `facts` describe matches the filter at `now`. */
export const matchesFilter = (node: FilterNode, facts: SubscriberFacts, now: Date): boolean => {
  if ("all" in node) return node.all.every((n) => matchesFilter(n, facts, now))
  if ("any" in node) return node.any.some((n) => matchesFilter(n, facts, now))
  if ("not" in node) return !matchesFilter(node.not, facts, now)
  return matchesCondition(node, facts, now)
}

/** Every tag id the filter names, each once. */
export const filterTagIds = (node: FilterNode): ReadonlyArray<string> => {
  const ids = new Set<string>()
  const walk = (n: FilterNode): void => {
    if ("all" in n) n.all.forEach(walk)
    else if ("any" in n) n.any.forEach(walk)
    else if ("not" in n) walk(n.not)
    else if (n.field === "tags") n.value.forEach((id) => ids.add(id))
  }
  walk(node)
  return [...ids]
}

/** Whether the filter reads engagement (which needs the subscriber's email history). */
export const readsEngagement = (node: FilterNode): boolean => {
  if ("all" in node) return node.all.some(readsEngagement)
  if ("any" in node) return node.any.some(readsEngagement)
  if ("not" in node) return readsEngagement(node.not)
  return node.field.startsWith("engagement.")
}
