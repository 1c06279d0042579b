import {
  type FilterNode,
  instantOf,
  type Locale,
  reasonText,
  segmentFilterOf,
  type SubscriberStatus,
  subscriberStatuses
} from "@roster/domain"
import type { SegmentPreview } from "@roster/application"
import { Either } from "effect"
import type { FormFields } from "./pages.js"
import { reasonTexts } from "./reason-texts.js"

/**
 * The segment builder's form and the filter tree it stands for. The builder edits a filter of one
 * group (`all` or `any`) of conditions, each of which may be negated (`{not: condition}`); a
 * filter the API nested deeper is not one it edits. The form only translates: the filter it makes
 * is decoded by the domain's `segmentFilterOf`, whose reasons are worded beside the condition they
 * name.
 */

export const conditionKinds = ["status", "tags", "metadata", "created_at", "email", "engagement"] as const
export type ConditionKind = (typeof conditionKinds)[number]
const isKind = (value: string): value is ConditionKind => (conditionKinds as ReadonlyArray<string>).includes(value)

export const operatorsOf: { readonly [K in ConditionKind]: ReadonlyArray<string> } = {
  status: ["in", "not_in"],
  tags: ["has_any", "has_all", "has_none"],
  metadata: ["eq", "neq", "contains", "exists", "not_exists", "gt", "gte", "lt", "lte"],
  created_at: [],
  email: ["domain", "eq", "neq", "contains", "starts_with", "ends_with"],
  engagement: ["opened_within", "opened_not_within", "clicked_within", "clicked_not_within", "received_within", "received_not_within"]
}

export const valueTypes = ["text", "number", "true", "false"] as const

/** One condition as the form holds it: every field a kind may use, as typed. */
export interface BuilderCondition {
  readonly kind: ConditionKind
  readonly not: boolean
  readonly op: string
  readonly statuses: ReadonlyArray<string>
  readonly tags: ReadonlyArray<string>
  readonly path: string
  readonly valueType: string
  readonly value: string
  readonly from: string
  readonly to: string
  readonly days: string
}

export interface Builder {
  readonly match: "all" | "any"
  readonly conditions: ReadonlyArray<BuilderCondition>
}

export const blankCondition = (kind: ConditionKind): BuilderCondition => ({
  kind,
  not: false,
  op: operatorsOf[kind][0] ?? "",
  statuses: kind === "status" ? ["active"] : [],
  tags: [],
  path: "",
  valueType: "text",
  value: "",
  from: "",
  to: "",
  days: kind === "engagement" ? "30" : ""
})

const one = (fields: FormFields, name: string) => fields.get(name)?.[0]?.trim() ?? ""

/**
 * The builder the form's fields describe, its conditions in the order of their numbers. A form
 * holding more than one builder names each one's fields after a prefix (`s2.` gives `s2.match`,
 * `s2.c0.kind`, ...).
 */
export const builderOf = (fields: FormFields, prefix = ""): Builder => {
  const own = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}c(\\d{1,3})\\.kind$`)
  const numbers = [...fields.keys()]
    .map((name) => own.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b)
  const conditions = numbers.flatMap((n): Array<BuilderCondition> => {
    const at = (name: string) => one(fields, `${prefix}c${n}.${name}`)
    const kind = at("kind")
    if (!isKind(kind)) return []
    return [{
      kind,
      not: at("not") === "on",
      op: at("op"),
      statuses: fields.get(`${prefix}c${n}.statuses`) ?? [],
      tags: fields.get(`${prefix}c${n}.tags`) ?? [],
      path: at("path"),
      valueType: at("type") || "text",
      value: fields.get(`${prefix}c${n}.value`)?.[0] ?? "",
      from: at("from"),
      to: at("to"),
      days: at("days")
    }]
  })
  return { match: one(fields, `${prefix}match`) === "any" ? "any" : "all", conditions }
}

// Days in the viewer's time zone.

/** The zone's offset from UTC at `at`, in milliseconds. */
const offsetAt = (zone: string, at: number): number => {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit"
  }).formatToParts(new Date(at))
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? "0")
  return Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second")) - Math.floor(at / 1000) * 1000
}

/** A time zone the runtime knows, else UTC. */
export const knownZone = (zone: string | undefined): string => {
  if (zone === undefined || zone === "") return "UTC"
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone })
    return zone
  } catch {
    return "UTC"
  }
}

/** The instant a day starts in the zone (`2025-01-31` in Europe/Berlin: `2025-01-30T23:00:00.000Z`), or the text as given when it is no day. */
const dayStart = (day: string, zone: string, plusDays = 0): string => {
  const midnight = instantOf(day)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || midnight === undefined) return day
  const utc = midnight.getTime() + plusDays * 86_400_000
  const first = utc - offsetAt(zone, utc)
  return new Date(utc - offsetAt(zone, first)).toISOString()
}

/** The day an instant falls on in the zone, less `minusDays`. */
const dayOf = (instant: string, zone: string, minusDays = 0): string => {
  const at = Date.parse(instant)
  if (Number.isNaN(at)) return instant
  return new Date(at + offsetAt(zone, at) - minusDays * 86_400_000).toISOString().slice(0, 10)
}

// From the form to the filter.

const isStatus = (value: string): value is SubscriberStatus => (subscriberStatuses as ReadonlyArray<string>).includes(value)

/** A condition's node as JSON, for the domain to decode; or a problem of the form itself (a number that is none). */
const nodeOf = (c: BuilderCondition, zone: string, notANumber: string): Either.Either<unknown, string> => {
  const node = ((): Either.Either<unknown, string> => {
    switch (c.kind) {
      case "status":
        return Either.right({ field: "status", op: c.op, value: c.statuses })
      case "tags":
        return Either.right({ field: "tags", op: c.op, value: c.tags })
      case "email":
        return Either.right({ field: "email", op: c.op, value: c.value.trim() })
      case "created_at": {
        if (c.from !== "" && c.to !== "") {
          return Either.right({ field: "created_at", op: "between", value: [dayStart(c.from, zone), dayStart(c.to, zone, 1)] })
        }
        if (c.to !== "") return Either.right({ field: "created_at", op: "lt", value: dayStart(c.to, zone, 1) })
        return Either.right({ field: "created_at", op: "gte", value: dayStart(c.from, zone) })
      }
      case "engagement": {
        const [what, ...rest] = c.op.split("_")
        const days = /^\d+$/.test(c.days) ? Number(c.days) : c.days
        return Either.right({ field: `engagement.${what}_days`, op: rest.join("_"), value: days })
      }
      case "metadata": {
        const field = `metadata.${c.path}`
        if (c.op === "exists" || c.op === "not_exists") return Either.right({ field, op: c.op })
        const text = c.value.trim()
        const number = text === "" ? Number.NaN : Number(text)
        if (c.valueType === "number" && !Number.isFinite(number)) return Either.left(notANumber)
        const value = c.valueType === "number"
          ? number
          : c.valueType === "true"
          ? true
          : c.valueType === "false"
          ? false
          : c.value
        return Either.right({ field, op: c.op, value })
      }
    }
  })()
  return c.not ? Either.map(node, (inner) => ({ not: inner })) : node
}

/**
 * The filter's body as the API takes it (`{"all": [...]}`), not yet decoded, with the problems of
 * the form itself (`notANumber`) by the condition's place; such a condition stands as `{}`.
 */
export const filterBodyOf = (
  builder: Builder,
  zone: string,
  notANumber: string
): { readonly body: Readonly<Record<string, ReadonlyArray<unknown>>>; readonly problems: ReadonlyMap<number, string> } => {
  const problems = new Map<number, string>()
  const nodes = builder.conditions.map((c, i) => {
    const node = nodeOf(c, zone, notANumber)
    if (Either.isLeft(node)) problems.set(i, node.left)
    return Either.getOrElse(node, () => ({}))
  })
  return { body: { [builder.match]: nodes }, problems }
}

/** The filter the builder stands for, or each condition's problem (by its place) in the viewer's language. */
export const filterOf = (
  builder: Builder,
  zone: string,
  locale: Locale,
  notANumber: string
): Either.Either<FilterNode, ReadonlyMap<number, string>> => {
  const made = filterBodyOf(builder, zone, notANumber)
  const problems = new Map(made.problems)
  const decoded = segmentFilterOf(made.body)
  if (Either.isLeft(decoded)) {
    for (const problem of decoded.left) {
      const place = typeof problem.path[1] === "number" ? problem.path[1] : 0
      if (!problems.has(place)) problems.set(place, reasonText(problem.reason, reasonTexts[locale]))
    }
  }
  if (problems.size > 0) return Either.left(problems)
  return Either.right(Either.getOrThrow(decoded))
}

/** Where a use case's refusal of a filter stands (`filter.all[2].value[0]`): the condition's place. */
export const placeOfField = (field: string): number | undefined => {
  const found = /^filter\.(?:all|any)\[(\d+)\]/.exec(field)
  return found === null ? undefined : Number(found[1])
}

// From a saved filter to the form.

const conditionOfNode = (node: FilterNode, zone: string): BuilderCondition | undefined => {
  if ("all" in node || "any" in node) return undefined
  if ("not" in node) {
    const inner = conditionOfNode(node.not, zone)
    return inner === undefined || inner.not ? undefined : { ...inner, not: true }
  }
  switch (node.field) {
    case "status":
      return {
        ...blankCondition("status"),
        op: node.op === "eq" || node.op === "in" ? "in" : "not_in",
        statuses: typeof node.value === "string" ? [node.value] : node.value.filter(isStatus)
      }
    case "tags":
      return { ...blankCondition("tags"), op: node.op, tags: node.value }
    case "email":
      return { ...blankCondition("email"), op: node.op, value: node.value }
    case "created_at":
      if (node.op === "between") return { ...blankCondition("created_at"), from: dayOf(node.value[0], zone), to: dayOf(node.value[1], zone, 1) }
      if (node.op === "gte") return { ...blankCondition("created_at"), from: dayOf(node.value, zone) }
      if (node.op === "lt") return { ...blankCondition("created_at"), to: dayOf(node.value, zone, 1) }
      return undefined
    case "engagement.opened_days":
    case "engagement.clicked_days":
    case "engagement.received_days":
      return {
        ...blankCondition("engagement"),
        op: `${node.field.slice("engagement.".length, -"_days".length)}_${node.op}`,
        days: String(node.value)
      }
    default: {
      const path = node.field.slice("metadata.".length)
      if (node.op === "exists" || node.op === "not_exists") return { ...blankCondition("metadata"), op: node.op, path }
      const value = (node as { readonly value: string | number | boolean }).value
      return {
        ...blankCondition("metadata"),
        op: node.op,
        path,
        valueType: typeof value === "number" ? "number" : value === true ? "true" : value === false ? "false" : "text",
        value: typeof value === "boolean" ? "" : String(value)
      }
    }
  }
}

/** The builder of a saved filter, or `undefined` for a filter nested deeper than the builder edits. */
export const builderOfFilter = (filter: FilterNode, zone: string): Builder | undefined => {
  const match = "all" in filter ? "all" : "any" in filter ? "any" : undefined
  const nodes = "all" in filter ? filter.all : "any" in filter ? filter.any : [filter]
  const conditions = nodes.map((node) => conditionOfNode(node, zone))
  if (conditions.some((c) => c === undefined)) return undefined
  return { match: match ?? "all", conditions: conditions as ReadonlyArray<BuilderCondition> }
}

/** What the builder part of a page shows: the conditions with their choices and problems. */
export const builderView = (builder: Builder, problems: ReadonlyMap<number, string>) => ({
  match: builder.match,
  conditions: builder.conditions.map((c, i) => ({
    ...c,
    index: i,
    number: i + 1,
    ops: operatorsOf[c.kind],
    error: problems.get(i)
  }))
})

/** The words a filter is told in (segments-texts.ts `words`, `ops`, `engagementOps`, `kinds`). */
export interface FilterWords {
  readonly words: Readonly<Record<"every" | "not" | "condition" | "bare" | "metadata" | "metadataBare" | "between" | "from" | "to" | "engagement", string>>
  readonly ops: Readonly<Record<string, string>>
  readonly engagementOps: Readonly<Record<string, string>>
  readonly kinds: Readonly<Record<ConditionKind, string>>
  readonly valueTypes: Readonly<Record<string, string>>
}

const filled = (text: string, values: Readonly<Record<string, string>>) =>
  text.replace(/\{\{ (\w+) \}\}/g, (whole, key: string) => values[key] ?? whole)

/**
 * A builder's filter in words (`Status is one of Active and Tags has any of VIP`), the statuses
 * and tags named by `nameOf`.
 */
export const builderInWords = (
  builder: Builder,
  texts: FilterWords,
  locale: Locale,
  nameOf: { readonly status: (status: string) => string; readonly tag: (id: string) => string }
): string => {
  const w = texts.words
  const list = (items: ReadonlyArray<string>, type: "conjunction" | "disjunction") =>
    new Intl.ListFormat(locale, { type, style: "long" }).format(items)
  const told = builder.conditions.map((c) => {
    const kind = texts.kinds[c.kind]
    const op = texts.ops[c.op] ?? c.op
    const text = ((): string => {
      switch (c.kind) {
        case "status":
          return filled(w.condition, { kind, op, value: list(c.statuses.map(nameOf.status), "conjunction") })
        case "tags":
          return filled(w.condition, { kind, op, value: list(c.tags.map(nameOf.tag), "conjunction") })
        case "email":
          return filled(w.condition, { kind, op, value: c.value })
        case "created_at":
          if (c.from !== "" && c.to !== "") return filled(w.between, { from: c.from, to: c.to })
          return c.to !== "" ? filled(w.to, { to: c.to }) : filled(w.from, { from: c.from })
        case "engagement":
          return filled(w.engagement, { op: texts.engagementOps[c.op] ?? c.op, days: c.days })
        case "metadata":
          if (c.op === "exists" || c.op === "not_exists") return filled(w.metadataBare, { path: c.path, op })
          return filled(w.metadata, {
            path: c.path,
            op,
            value: c.valueType === "true" || c.valueType === "false" ? texts.valueTypes[c.valueType] ?? c.valueType : c.value
          })
      }
    })()
    return c.not ? filled(w.not, { condition: text }) : text
  })
  return told.length === 0 ? w.every : list(told, builder.match === "any" ? "disjunction" : "conjunction")
}

/** How many of those who match a preview shows. */
export const PREVIEW_SIZE = 10

/** Who matches a filter, as the `segment-preview` partial shows it: the count and the first of them. */
export const previewView = (preview: SegmentPreview | undefined) =>
  preview === undefined
    ? undefined
    : {
      total: preview.total,
      rows: preview.items.map(({ subscriber }) => ({ id: subscriber.id, email: subscriber.email, status: subscriber.status }))
    }
