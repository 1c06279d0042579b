import { Either, ParseResult, Schema } from "effect"
import type { DomainEvent } from "./events.js"
import { type EnrollmentId, FormId, type MessageId, type OrganizationId, SegmentId, type SequenceId, type SubscriberId, TagId, TemplateId } from "./ids.js"
import type { MessageKind } from "./message.js"
import { reasonText } from "./reason.js"
import { type FilterNode, segmentFilterOf } from "./segment-filter.js"
import { isStorableText, longerThan, UNSTORABLE_TEXT } from "./text.js"

/**
 * A sequence takes a subscriber through steps: emails, waits, branches and tag changes, from the
 * moment they enter (an event, or the API) until the last step, an `end`, or an exit (they
 * unsubscribed, bounced or complained, or reached the goal tag). Each enrollment runs the version
 * of the sequence it entered; editing a sequence makes a new version for those who enter after.
 */

export const SequenceStatus = Schema.Literal("draft", "active", "paused")
export type SequenceStatus = typeof SequenceStatus.Type

/** Once: a subscriber enters at most once ever. Each time: again on every entry, when not in it already. */
export const ReEntry = Schema.Literal("once", "each_time")
export type ReEntry = typeof ReEntry.Type

export const MAX_SEQUENCE_NAME_LENGTH = 200
export const MAX_SEQUENCE_STEPS = 50
export const MIN_WAIT_SECONDS = 1
/** The longest wait: a year. */
export const MAX_WAIT_SECONDS = 365 * 86_400

export const SequenceName = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty"
    if (longerThan(s, MAX_SEQUENCE_NAME_LENGTH)) return `must be at most ${MAX_SEQUENCE_NAME_LENGTH} characters`
    if (/\p{Cc}/u.test(s)) return "must be one line without control characters"
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  }, { identifier: "SequenceName" })
)

// ---------------------------------------------------------------------------------------------
// Durations

const durationPattern = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/

/**
 * The seconds an ISO 8601 duration names (`PT30S`, `PT2H`, `P3D`, `P1W`, `P1DT12H`), or why it is
 * refused. Years and months vary in length and are refused; the shortest wait is a second.
 */
export const durationSeconds = (text: string): number | string => {
  if (/^P(?:\d+Y)?(?:\d+M)/.test(text) || /^P\d+Y/.test(text)) {
    return "years and months vary in length; give days or weeks (P30D), hours, minutes or seconds"
  }
  const match = durationPattern.exec(text)
  if (match === null || text === "P" || text.endsWith("T")) {
    return "must be an ISO 8601 duration such as PT30S, PT2H, P3D or P1DT12H"
  }
  const [weeks, days, hours, minutes, seconds] = match.slice(1).map((n) => Number(n ?? 0)) as [number, number, number, number, number]
  const total = (((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60 + seconds
  if (total < MIN_WAIT_SECONDS) return "must be at least one second (PT1S)"
  if (total > MAX_WAIT_SECONDS) return "must be at most a year (P365D)"
  return total
}

// ---------------------------------------------------------------------------------------------
// Local times of day in a time zone

export const weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const
export type Weekday = typeof weekdays[number]

/** Whether the runtime knows the IANA time zone. */
export const isTimeZone = (zone: string): boolean => {
  if (zone.length === 0 || zone.length > 64) return false
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>()
const formatterOf = (zone: string) => {
  let formatter = formatters.get(zone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric"
    })
    formatters.set(zone, formatter)
  }
  return formatter
}

interface WallTime {
  readonly year: number
  readonly month: number
  readonly day: number
  readonly hour: number
  readonly minute: number
}

const wallTimeOf = (at: Date, zone: string): WallTime & { readonly second: number } => {
  const parts: Record<string, number> = {}
  for (const part of formatterOf(zone).formatToParts(at)) if (part.type !== "literal") parts[part.type] = Number(part.value)
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! }
}

/** How far the zone's clock is ahead of UTC at `at`, in milliseconds. */
const offsetAt = (at: Date, zone: string): number => {
  const wall = wallTimeOf(at, zone)
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second)
  return asUtc - Math.floor(at.getTime() / 1000) * 1000
}

/**
 * The instant a wall-clock time of the zone names. A time the clocks skip (the hour lost when
 * daylight saving starts) is taken an hour on; a time they pass twice, at its first passing.
 */
export const instantOfWallTime = (wall: WallTime, zone: string): Date => {
  const naive = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute)
  const before = naive - offsetAt(new Date(naive - 12 * 3_600_000), zone)
  const after = naive - offsetAt(new Date(naive + 12 * 3_600_000), zone)
  const fits = (t: number) => {
    const w = wallTimeOf(new Date(t), zone)
    return w.year === wall.year && w.month === wall.month && w.day === wall.day && w.hour === wall.hour && w.minute === wall.minute
  }
  const candidates = [before, after].filter(fits)
  return new Date(candidates.length > 0 ? Math.min(...candidates) : before)
}

/**
 * The first instant after `after` at which the zone's clock shows `hour:minute` on one of the
 * weekdays (any day when none are given).
 */
export const nextLocalTime = (
  after: Date,
  time: { readonly hour: number; readonly minute: number; readonly weekdays: ReadonlyArray<Weekday> },
  zone: string
): Date => {
  const today = wallTimeOf(after, zone)
  for (let offset = 0; offset <= 8; offset++) {
    const day = new Date(Date.UTC(today.year, today.month - 1, today.day + offset))
    const weekday = weekdays[(day.getUTCDay() + 6) % 7]!
    if (time.weekdays.length > 0 && !time.weekdays.includes(weekday)) continue
    const at = instantOfWallTime({
      year: day.getUTCFullYear(),
      month: day.getUTCMonth() + 1,
      day: day.getUTCDate(),
      hour: time.hour,
      minute: time.minute
    }, zone)
    if (at.getTime() > after.getTime()) return at
  }
  // Unreachable: within eight days every weekday comes round.
  return new Date(after.getTime() + 7 * 86_400_000)
}

// ---------------------------------------------------------------------------------------------
// Entries

export type SequenceEntry =
  | { readonly event: "subscriber.created" }
  /** A tag given to a subscriber: this one, or any when null. */
  | { readonly event: "tag.subscribed"; readonly tagId: TagId | null }
  /** A sign-up confirmed: through this form, or any when null. */
  | { readonly event: "subscriber.confirmed"; readonly formId: FormId | null }
  /** Matching the segment when the subscriber is created or changed (status, metadata, tags). */
  | { readonly event: "segment.entered"; readonly segmentId: SegmentId }
  /** Only through `POST /sequences/{id}/enrollments`. */
  | { readonly event: "api" }

export const sequenceEntryEvents = ["subscriber.created", "tag.subscribed", "subscriber.confirmed", "segment.entered", "api"] as const

/** Events after which a subscriber's match with a segment is looked at again. */
export const segmentEntryEvents: ReadonlyArray<string> = [
  "subscriber.created",
  "subscriber.updated",
  "subscriber.confirmed",
  "tag.subscribed",
  "tag.unsubscribed"
]

const idIn = (value: unknown): string | null =>
  typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string"
    ? (value as { id: string }).id
    : null

/** The subscriber an event is about, if any. */
export const eventSubscriberId = (event: DomainEvent): string | null => idIn(event.data.subscriber)

/**
 * Whether the event enters a subscriber into a sequence with this entry. A segment's entry also
 * needs the segment to match the subscriber, which the caller asks.
 */
export const entersOn = (entry: SequenceEntry, event: DomainEvent): boolean => {
  switch (entry.event) {
    case "subscriber.created":
      return event.type === "subscriber.created"
    case "tag.subscribed":
      return event.type === "tag.subscribed" && (entry.tagId === null || idIn(event.data.tag) === entry.tagId)
    case "subscriber.confirmed":
      return event.type === "subscriber.confirmed" && (entry.formId === null || idIn(event.data.form) === entry.formId)
    case "segment.entered":
      return segmentEntryEvents.includes(event.type)
    case "api":
      return false
  }
}

// ---------------------------------------------------------------------------------------------
// Steps

export type BranchCondition =
  | { readonly type: "filter"; readonly filter: FilterNode }
  | { readonly type: "opened_previous_email" }
  | { readonly type: "clicked_previous_email" }
  | { readonly type: "has_tag"; readonly tagId: TagId }

export type SequenceStep =
  | {
    readonly type: "send_email"
    readonly name: string
    readonly templateId: TemplateId
    readonly kind: MessageKind
    readonly data: Readonly<Record<string, unknown>>
  }
  | { readonly type: "wait"; readonly name: string; readonly seconds: number; readonly duration: string }
  | {
    readonly type: "wait_until"
    readonly name: string
    /** `HH:MM`, 24-hour. */
    readonly time: string
    readonly hour: number
    readonly minute: number
    /** Any day when empty. */
    readonly weekdays: ReadonlyArray<Weekday>
    /** The subscriber's metadata key holding their IANA time zone; the sequence's zone when absent or not a zone. */
    readonly timeZoneField: string | null
  }
  | {
    readonly type: "branch"
    readonly name: string
    readonly condition: BranchCondition
    /** The step taken when the condition holds. */
    readonly goTo: string
    /** The step taken when it does not: the next one when null. */
    readonly elseGoTo: string | null
  }
  | { readonly type: "add_tag"; readonly name: string; readonly tagId: TagId }
  | { readonly type: "remove_tag"; readonly name: string; readonly tagId: TagId }
  | { readonly type: "end"; readonly name: string }

export const stepActions = ["send_email", "wait", "branch", "add_tag", "remove_tag", "end"] as const

const stepNamePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/
const timePattern = /^([01][0-9]|2[0-3]):([0-5][0-9])$/

type Path = ReadonlyArray<PropertyKey>

class Problems {
  readonly list: Array<{ readonly path: Path; readonly message: string }> = []
  add(path: Path, message: string): undefined {
    this.list.push({ path, message })
    return undefined
  }
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const describe = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "an array" : typeof u === "object" ? "an object" : JSON.stringify(u)

const decodeId = <A>(schema: Schema.Schema<A, string>, value: unknown, at: Path, problems: Problems): A | undefined => {
  const decoded = Schema.decodeUnknownEither(schema)(value)
  return Either.isRight(decoded) ? decoded.right : problems.add(at, "must be a UUID")
}

const onlyKeys = (input: Readonly<Record<string, unknown>>, allowed: ReadonlyArray<string>, at: Path, problems: Problems) => {
  let ok = true
  for (const key of Object.keys(input)) {
    if (!allowed.includes(key)) {
      problems.add([...at, key], `is not a field here; allowed: ${allowed.join(", ")}`)
      ok = false
    }
  }
  return ok
}

const decodeFilter = (value: unknown, at: Path, problems: Problems): FilterNode | undefined => {
  const decoded = segmentFilterOf(value)
  if (Either.isRight(decoded)) return decoded.right
  for (const problem of decoded.left) problems.add([...at, ...problem.path], reasonText(problem.reason))
  return undefined
}

const conditionKeys = ["filter", "opened_previous_email", "clicked_previous_email", "has_tag"] as const

const decodeCondition = (input: unknown, at: Path, problems: Problems): BranchCondition | undefined => {
  if (!isRecord(input)) return problems.add(at, `must be an object with one of ${conditionKeys.join(", ")}, not ${describe(input)}`)
  const keys = Object.keys(input)
  if (keys.length !== 1 || !(conditionKeys as ReadonlyArray<string>).includes(keys[0]!)) {
    return problems.add(at, `must hold exactly one of ${conditionKeys.join(", ")}`)
  }
  const key = keys[0]! as typeof conditionKeys[number]
  const value = input[key]
  switch (key) {
    case "filter": {
      const filter = decodeFilter(value, [...at, key], problems)
      return filter === undefined ? undefined : { type: "filter", filter }
    }
    case "opened_previous_email":
    case "clicked_previous_email":
      return value === true ? { type: key } : problems.add([...at, key], "must be true")
    case "has_tag": {
      const tagId = decodeId(TagId, value, [...at, key], problems)
      return tagId === undefined ? undefined : { type: "has_tag", tagId }
    }
  }
}

const decodeWait = (name: string, value: unknown, at: Path, problems: Problems): SequenceStep | undefined => {
  if (typeof value === "string") {
    const seconds = durationSeconds(value)
    return typeof seconds === "string" ? problems.add(at, seconds) : { type: "wait", name, seconds, duration: value }
  }
  if (!isRecord(value)) {
    return problems.add(at, `must be an ISO 8601 duration (PT30S, P3D) or an object with until, not ${describe(value)}`)
  }
  if (!onlyKeys(value, ["until", "weekdays", "time_zone_field"], at, problems)) return undefined
  const time = value.until
  const match = typeof time === "string" ? timePattern.exec(time) : null
  if (match === null) return problems.add([...at, "until"], "must be a time of day as HH:MM, 24-hour (09:30)")
  let days: ReadonlyArray<Weekday> = []
  if (value.weekdays !== undefined) {
    const list = value.weekdays
    if (!Array.isArray(list) || list.length === 0 || !list.every((d) => (weekdays as ReadonlyArray<unknown>).includes(d))) {
      return problems.add([...at, "weekdays"], `must be a non-empty array of ${weekdays.join(", ")}`)
    }
    days = weekdays.filter((d) => list.includes(d))
  }
  let field: string | null = null
  if (value.time_zone_field !== undefined && value.time_zone_field !== null) {
    if (typeof value.time_zone_field !== "string" || !/^[A-Za-z_][A-Za-z0-9_-]{0,99}$/.test(value.time_zone_field)) {
      return problems.add([...at, "time_zone_field"], "must be a metadata key: a letter or _, then letters, digits, _ or -")
    }
    field = value.time_zone_field
  }
  return {
    type: "wait_until",
    name,
    time: time as string,
    hour: Number(match[1]),
    minute: Number(match[2]),
    weekdays: days,
    timeZoneField: field
  }
}

const decodeStep = (input: unknown, index: number, problems: Problems): SequenceStep | undefined => {
  const at: Path = ["steps", index]
  if (!isRecord(input)) return problems.add(at, `must be an object with one of ${stepActions.join(", ")}, not ${describe(input)}`)
  const actions = stepActions.filter((a) => Object.hasOwn(input, a))
  if (actions.length !== 1) {
    return problems.add(at, `must hold exactly one of ${stepActions.join(", ")}${actions.length > 1 ? `, not ${actions.join(" and ")}` : ""}`)
  }
  const action = actions[0]!
  if (!onlyKeys(input, ["name", action], at, problems)) return undefined
  let name = `step_${index + 1}`
  if (input.name !== undefined) {
    if (typeof input.name !== "string" || !stepNamePattern.test(input.name)) {
      return problems.add([...at, "name"], "must be 1 to 63 letters, digits, _ or -, starting with a letter or digit")
    }
    name = input.name
  }
  const value = input[action]
  const here = [...at, action]
  switch (action) {
    case "send_email": {
      if (!isRecord(value)) return problems.add(here, `must be an object with template_id, not ${describe(value)}`)
      if (!onlyKeys(value, ["template_id", "kind", "data"], here, problems)) return undefined
      const templateId = decodeId(TemplateId, value.template_id, [...here, "template_id"], problems)
      let kind: MessageKind = "marketing"
      if (value.kind !== undefined) {
        if (value.kind !== "marketing" && value.kind !== "transactional") {
          return problems.add([...here, "kind"], "must be marketing or transactional")
        }
        kind = value.kind
      }
      if (value.data !== undefined && !isRecord(value.data)) return problems.add([...here, "data"], "must be an object")
      if (templateId === undefined) return undefined
      return { type: "send_email", name, templateId, kind, data: (value.data ?? {}) as Record<string, unknown> }
    }
    case "wait":
      return decodeWait(name, value, here, problems)
    case "branch": {
      if (!isRecord(value)) return problems.add(here, `must be an object with if and go_to, not ${describe(value)}`)
      if (!onlyKeys(value, ["if", "go_to", "else_go_to"], here, problems)) return undefined
      const condition = decodeCondition(value.if, [...here, "if"], problems)
      if (typeof value.go_to !== "string") return problems.add([...here, "go_to"], "must name a step")
      if (value.else_go_to !== undefined && value.else_go_to !== null && typeof value.else_go_to !== "string") {
        return problems.add([...here, "else_go_to"], "must name a step")
      }
      if (condition === undefined) return undefined
      return { type: "branch", name, condition, goTo: value.go_to, elseGoTo: (value.else_go_to as string | undefined) ?? null }
    }
    case "add_tag":
    case "remove_tag": {
      if (!isRecord(value)) return problems.add(here, `must be an object with tag_id, not ${describe(value)}`)
      if (!onlyKeys(value, ["tag_id"], here, problems)) return undefined
      const tagId = decodeId(TagId, value.tag_id, [...here, "tag_id"], problems)
      return tagId === undefined ? undefined : { type: action, name, tagId }
    }
    case "end":
      if (value !== true && !(isRecord(value) && Object.keys(value).length === 0)) {
        return problems.add(here, "must be true (or {})")
      }
      return { type: "end", name }
  }
}

/** Where a step goes next: the steps it may move to, in the order of its list. */
export const successorsOf = (steps: ReadonlyArray<SequenceStep>, index: number): ReadonlyArray<number> => {
  const step = steps[index]!
  const byName = (name: string) => steps.findIndex((s) => s.name === name)
  const next = index + 1 < steps.length ? [index + 1] : []
  switch (step.type) {
    case "end":
      return []
    case "branch":
      return [byName(step.goTo), ...(step.elseGoTo === null ? next : [byName(step.elseGoTo)])]
    default:
      return next
  }
}

const isWait = (step: SequenceStep) => step.type === "wait" || step.type === "wait_until"

/** Checks names, branch targets, and that no loop goes round without a wait. */
const checkFlow = (steps: ReadonlyArray<SequenceStep>, problems: Problems): void => {
  const seen = new Map<string, number>()
  steps.forEach((step, i) => {
    const first = seen.get(step.name)
    if (first !== undefined) problems.add(["steps", i, "name"], `names step ${first} (steps[${first}]) too; names must differ`)
    else seen.set(step.name, i)
  })
  let targetsKnown = true
  steps.forEach((step, i) => {
    if (step.type !== "branch") return
    for (const [key, target] of [["go_to", step.goTo], ["else_go_to", step.elseGoTo]] as const) {
      if (target !== null && !seen.has(target)) {
        problems.add(["steps", i, "branch", key], `names no step of this sequence: '${target}'`)
        targetsKnown = false
      }
    }
  })
  if (!targetsKnown || problems.list.length > 0) return
  // A cycle among steps that are not waits would run forever at once.
  const state = new Array<0 | 1 | 2>(steps.length).fill(0)
  const visit = (i: number, via: number | null): boolean => {
    if (isWait(steps[i]!)) return false
    if (state[i] === 1) {
      const at = via ?? i
      problems.add(["steps", at, "branch", "go_to"], "makes a loop with no wait in it; put a wait step in the loop")
      return true
    }
    if (state[i] === 2) return false
    state[i] = 1
    for (const next of successorsOf(steps, i)) {
      if (visit(next, steps[i]!.type === "branch" ? i : via)) return true
    }
    state[i] = 2
    return false
  }
  for (let i = 0; i < steps.length; i++) if (visit(i, null)) return
}

/** The steps of a sequence from their JSON form, every problem at once, each naming its path. */
export const decodeSteps = (input: unknown): Either.Either<ReadonlyArray<SequenceStep>, ReadonlyArray<{ readonly path: Path; readonly message: string }>> => {
  const problems = new Problems()
  if (!Array.isArray(input)) {
    problems.add(["steps"], `must be an array of steps, not ${describe(input)}`)
    return Either.left(problems.list)
  }
  if (input.length === 0) problems.add(["steps"], "must hold at least one step")
  if (input.length > MAX_SEQUENCE_STEPS) problems.add(["steps"], `must hold at most ${MAX_SEQUENCE_STEPS} steps`)
  if (problems.list.length > 0) return Either.left(problems.list)
  const steps: Array<SequenceStep> = []
  input.forEach((u, i) => {
    const step = decodeStep(u, i, problems)
    if (step !== undefined) steps.push(step)
  })
  if (problems.list.length === 0) checkFlow(steps, problems)
  return problems.list.length === 0 ? Either.right(steps) : Either.left(problems.list)
}

const conditionToJson = (condition: BranchCondition): Record<string, unknown> => {
  switch (condition.type) {
    case "filter":
      return { filter: condition.filter }
    case "has_tag":
      return { has_tag: condition.tagId }
    default:
      return { [condition.type]: true }
  }
}

/** A step's JSON form, as it is given and shown. */
export const stepToJson = (step: SequenceStep): Record<string, unknown> => {
  const named = (action: string, value: unknown) => ({ name: step.name, [action]: value })
  switch (step.type) {
    case "send_email":
      return named("send_email", { template_id: step.templateId, kind: step.kind, data: step.data })
    case "wait":
      return named("wait", step.duration)
    case "wait_until":
      return named("wait", {
        until: step.time,
        ...(step.weekdays.length > 0 ? { weekdays: step.weekdays } : {}),
        ...(step.timeZoneField === null ? {} : { time_zone_field: step.timeZoneField })
      })
    case "branch":
      return named("branch", {
        if: conditionToJson(step.condition),
        go_to: step.goTo,
        ...(step.elseGoTo === null ? {} : { else_go_to: step.elseGoTo })
      })
    case "add_tag":
    case "remove_tag":
      return named(step.type, { tag_id: step.tagId })
    case "end":
      return named("end", true)
  }
}

const issuesOf = (ast: ParseResult.Type["ast"], input: unknown, problems: ReadonlyArray<{ readonly path: Path; readonly message: string }>, drop: number) => {
  const issues = problems.map((p) => {
    const path = p.path.slice(drop)
    return path.length === 0
      ? new ParseResult.Type(ast, input, p.message)
      : new ParseResult.Pointer(path as [PropertyKey, ...Array<PropertyKey>], input, new ParseResult.Type(ast, input, p.message))
  })
  return issues.length === 1
    ? issues[0]!
    : new ParseResult.Composite(ast, input, issues as [ParseResult.ParseIssue, ...Array<ParseResult.ParseIssue>])
}

const StepsFromSelf = Schema.declare((u: unknown): u is ReadonlyArray<SequenceStep> => Array.isArray(u), {
  identifier: "SequenceSteps"
})

/**
 * A sequence's steps from their JSON form; a bad step fails naming its path (`steps[2].wait`),
 * as do branch targets that name no step and loops without a wait.
 */
export const SequenceSteps = Schema.transformOrFail(Schema.Unknown, StepsFromSelf, {
  strict: true,
  decode: (input, _options, ast) =>
    Either.match(decodeSteps(input), {
      onRight: ParseResult.succeed,
      // The body's field is `steps` already: the paths go on from there.
      onLeft: (problems) => ParseResult.fail(issuesOf(ast, input, problems, 1))
    }),
  encode: (steps) => ParseResult.succeed(steps.map(stepToJson))
}).annotations({
  identifier: "SequenceSteps",
  jsonSchema: {
    type: "array",
    minItems: 1,
    maxItems: MAX_SEQUENCE_STEPS,
    items: {
      type: "object",
      description: "an optional name and exactly one of send_email, wait, branch, add_tag, remove_tag, end",
      properties: {
        name: { type: "string", pattern: stepNamePattern.source },
        send_email: {
          type: "object",
          required: ["template_id"],
          properties: {
            template_id: { type: "string", format: "uuid" },
            kind: { type: "string", enum: ["marketing", "transactional"] },
            data: { type: "object" }
          },
          additionalProperties: false
        },
        wait: {
          description: "an ISO 8601 duration (PT30S, P3D), or until a time of day in the subscriber's time zone",
          oneOf: [
            { type: "string", example: "P3D" },
            {
              type: "object",
              required: ["until"],
              properties: {
                until: { type: "string", pattern: timePattern.source },
                weekdays: { type: "array", items: { type: "string", enum: [...weekdays] } },
                time_zone_field: { type: "string" }
              },
              additionalProperties: false
            }
          ]
        },
        branch: {
          type: "object",
          required: ["if", "go_to"],
          properties: {
            if: {
              type: "object",
              description: "exactly one of filter (a segment filter), opened_previous_email, clicked_previous_email, has_tag (a tag id)"
            },
            go_to: { type: "string" },
            else_go_to: { type: "string" }
          },
          additionalProperties: false
        },
        add_tag: { type: "object", required: ["tag_id"], properties: { tag_id: { type: "string", format: "uuid" } }, additionalProperties: false },
        remove_tag: { type: "object", required: ["tag_id"], properties: { tag_id: { type: "string", format: "uuid" } }, additionalProperties: false },
        end: { description: "true" }
      },
      additionalProperties: false
    }
  }
})

// Entries from JSON

export const decodeEntry = (input: unknown): Either.Either<SequenceEntry, ReadonlyArray<{ readonly path: Path; readonly message: string }>> => {
  const problems = new Problems()
  const entry = ((): SequenceEntry | undefined => {
    if (!isRecord(input)) return problems.add([], `must be an object with event, not ${describe(input)}`)
    const event = input.event
    if (typeof event !== "string" || !(sequenceEntryEvents as ReadonlyArray<string>).includes(event)) {
      return problems.add(["event"], `must be one of ${sequenceEntryEvents.join(", ")}`)
    }
    switch (event as typeof sequenceEntryEvents[number]) {
      case "subscriber.created":
      case "api":
        return onlyKeys(input, ["event"], [], problems) ? { event: event as "api" } : undefined
      case "tag.subscribed": {
        if (!onlyKeys(input, ["event", "tag_id"], [], problems)) return undefined
        if (input.tag_id === undefined || input.tag_id === null) return { event: "tag.subscribed", tagId: null }
        const tagId = decodeId(TagId, input.tag_id, ["tag_id"], problems)
        return tagId === undefined ? undefined : { event: "tag.subscribed", tagId }
      }
      case "subscriber.confirmed": {
        if (!onlyKeys(input, ["event", "form_id"], [], problems)) return undefined
        if (input.form_id === undefined || input.form_id === null) return { event: "subscriber.confirmed", formId: null }
        const formId = decodeId(FormId, input.form_id, ["form_id"], problems)
        return formId === undefined ? undefined : { event: "subscriber.confirmed", formId }
      }
      case "segment.entered": {
        if (!onlyKeys(input, ["event", "segment_id"], [], problems)) return undefined
        const segmentId = decodeId(SegmentId, input.segment_id, ["segment_id"], problems)
        return segmentId === undefined ? undefined : { event: "segment.entered", segmentId }
      }
    }
  })()
  return entry !== undefined && problems.list.length === 0 ? Either.right(entry) : Either.left(problems.list)
}

export const entryToJson = (entry: SequenceEntry): Record<string, unknown> => {
  switch (entry.event) {
    case "tag.subscribed":
      return { event: entry.event, tag_id: entry.tagId }
    case "subscriber.confirmed":
      return { event: entry.event, form_id: entry.formId }
    case "segment.entered":
      return { event: entry.event, segment_id: entry.segmentId }
    default:
      return { event: entry.event }
  }
}

const EntryFromSelf = Schema.declare((u: unknown): u is SequenceEntry => isRecord(u), { identifier: "SequenceEntry" })

/** A sequence's entry from its JSON form (`{"event": "tag.subscribed", "tag_id": ...}`). */
export const SequenceEntrySchema = Schema.transformOrFail(Schema.Unknown, EntryFromSelf, {
  strict: true,
  decode: (input, _options, ast) =>
    Either.match(decodeEntry(input), {
      onRight: ParseResult.succeed,
      onLeft: (problems) => ParseResult.fail(issuesOf(ast, input, problems, 0))
    }),
  encode: (entry) => ParseResult.succeed(entryToJson(entry))
}).annotations({
  identifier: "SequenceEntry",
  jsonSchema: {
    type: "object",
    required: ["event"],
    properties: {
      event: { type: "string", enum: [...sequenceEntryEvents] },
      tag_id: { type: ["string", "null"], format: "uuid", description: "tag.subscribed: only this tag" },
      form_id: { type: ["string", "null"], format: "uuid", description: "subscriber.confirmed: only through this form" },
      segment_id: { type: "string", format: "uuid", description: "segment.entered: the segment" }
    },
    additionalProperties: false
  }
})

/** What a sequence's steps and entry refer to, for checks that they are the organization's. */
export const referencesOf = (entry: SequenceEntry, steps: ReadonlyArray<SequenceStep>, goalTagId: TagId | null) => {
  const templates = new Set<TemplateId>()
  const tags = new Set<TagId>()
  const segments = new Set<SegmentId>()
  if (entry.event === "tag.subscribed" && entry.tagId !== null) tags.add(entry.tagId)
  if (entry.event === "segment.entered") segments.add(entry.segmentId)
  if (goalTagId !== null) tags.add(goalTagId)
  for (const step of steps) {
    if (step.type === "send_email") templates.add(step.templateId)
    if (step.type === "add_tag" || step.type === "remove_tag") tags.add(step.tagId)
    if (step.type === "branch" && step.condition.type === "has_tag") tags.add(step.condition.tagId)
  }
  return { templates: [...templates], tags: [...tags], segments: [...segments] }
}

// ---------------------------------------------------------------------------------------------
// Sequences and enrollments

export interface Sequence {
  readonly id: SequenceId
  readonly organizationId: OrganizationId
  readonly name: string
  readonly status: SequenceStatus
  /** Starts at 1; each change of what the sequence does makes the next. */
  readonly version: number
  readonly entry: SequenceEntry
  readonly steps: ReadonlyArray<SequenceStep>
  /** Reaching this tag ends an enrollment before its next step. */
  readonly goalTagId: TagId | null
  readonly reEntry: ReEntry
  /** The zone of waits until a time of day for a subscriber whose metadata names none. */
  readonly timeZone: string
  readonly createdAt: Date
  readonly updatedAt: Date
}

export const EnrollmentState = Schema.Literal("active", "completed", "exited")
export type EnrollmentState = typeof EnrollmentState.Type

/** Why an enrollment ended early. */
export const ExitReason = Schema.Literal("unsubscribed", "bounced", "complained", "goal", "removed")
export type ExitReason = typeof ExitReason.Type

export interface Enrollment {
  readonly id: EnrollmentId
  readonly organizationId: OrganizationId
  readonly sequenceId: SequenceId
  readonly version: number
  readonly subscriberId: SubscriberId
  readonly state: EnrollmentState
  /** The step it is at: the one it runs next, or waits in (or ended at). */
  readonly stepIndex: number
  readonly stepName: string
  /** Whether it is waiting in its step (a wait whose end is `nextRunAt`). */
  readonly waiting: boolean
  /** When it moves on; null once it ended. */
  readonly nextRunAt: Date | null
  /** The last email a step of it queued, for branches on opens and clicks. */
  readonly lastMessageId: MessageId | null
  readonly exitReason: ExitReason | null
  /** Enrolled with a test key: its emails are recorded, never delivered. */
  readonly sandboxed: boolean
  /** How many steps it ran so far. */
  readonly stepsRun: number
  readonly enteredAt: Date
  readonly updatedAt: Date
}

/** The figures of one step: how many reached it, left it onward, ended there early; its emails. */
export interface StepFigures {
  readonly step: string
  readonly entered: number
  readonly completed: number
  readonly exited: number
  readonly emailsSent: number
  readonly opened: number
  readonly clicked: number
}

/**
 * Why an enrollment must end before its next step, if it must: the subscriber unsubscribed,
 * bounced or complained, or carries the goal tag.
 */
export const exitOf = (
  status: string,
  goalTagId: TagId | null,
  tagIds: ReadonlyArray<string>
): ExitReason | null => {
  if (status === "unsubscribed" || status === "bounced" || status === "complained") return status
  if (goalTagId !== null && tagIds.includes(goalTagId)) return "goal"
  return null
}
