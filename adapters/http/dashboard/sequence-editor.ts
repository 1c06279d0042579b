import { entryToJson, type Reason, segmentFilterOf, type Sequence, type SequenceStep, weekdays } from "@roster/domain"
import { Either, ParseResult, Schema } from "effect"
import { CreateSequenceRequest } from "../shared/sequence-schemas.js"
import type { FormFields } from "./pages.js"
import {
  blankCondition,
  type Builder,
  builderOf,
  builderOfFilter,
  conditionKinds as filterKinds,
  filterBodyOf,
  placeOfField
} from "./segment-builder.js"

/**
 * The sequence editor's form and the definition the API takes, both ways. The form holds the
 * sequence's settings and its steps as numbered fields (`s0.type`, `s0.template_id`, ...); it is
 * turned into the JSON body `POST /sequences` takes and decoded by the same schema, so a bad step
 * is refused naming the same path (`steps[2].wait`) the API names. Nothing here decides what a
 * sequence may be: the schema and the use case do. A branch's segment filter is edited with the
 * segment builder's controls (segment-builder.ts), its fields named after the step (`s2.c0.kind`);
 * a filter that nests groups, which they do not edit, is kept as JSON.
 */

export const editorStepTypes = ["send_email", "wait", "wait_until", "branch", "add_tag", "remove_tag", "end"] as const
export type EditorStepType = typeof editorStepTypes[number]

export const waitUnits = ["minutes", "hours", "days", "weeks"] as const
export type WaitUnit = typeof waitUnits[number]
const unitSeconds: Readonly<Record<WaitUnit, number>> = { minutes: 60, hours: 3_600, days: 86_400, weeks: 604_800 }
const unitLetter: Readonly<Record<WaitUnit, string>> = { minutes: "TM", hours: "TH", days: "D", weeks: "W" }

export const conditionKinds = ["opened_previous_email", "clicked_previous_email", "has_tag", "filter"] as const

/** One step as the form holds it: every field of every kind, those of its kind used. */
export interface EditorStep {
  readonly type: EditorStepType
  readonly name: string
  readonly templateId: string
  readonly kind: string
  /** The send step's template data, as JSON, carried through the form unchanged. */
  readonly data: string
  readonly amount: string
  readonly unit: string
  /** The duration as it was stored, kept when the amount still says the same. */
  readonly duration: string
  readonly until: string
  readonly weekdays: ReadonlyArray<string>
  readonly zoneField: string
  readonly condition: string
  readonly conditionTag: string
  /** The filter as JSON, for a filter the builder does not edit. */
  readonly filter: string
  /** The filter in the segment builder's controls; `undefined` when it is edited as JSON. */
  readonly filterBuilder: Builder | undefined
  readonly goTo: string
  readonly elseGoTo: string
  readonly tagId: string
}

export interface EditorValues {
  readonly name: string
  readonly entryEvent: string
  readonly entryTag: string
  readonly entryForm: string
  readonly entrySegment: string
  readonly reEntry: string
  readonly timeZone: string
  readonly goalTag: string
  readonly steps: ReadonlyArray<EditorStep>
}

const emptyBuilder: Builder = { match: "all", conditions: [] }

const blankStep = (type: EditorStepType, name: string): EditorStep => ({
  type,
  name,
  templateId: "",
  kind: "marketing",
  data: "",
  amount: type === "wait" ? "1" : "",
  unit: "days",
  duration: "",
  until: type === "wait_until" ? "09:00" : "",
  weekdays: [],
  zoneField: "",
  condition: "opened_previous_email",
  conditionTag: "",
  filter: "",
  filterBuilder: emptyBuilder,
  goTo: "",
  elseGoTo: "",
  tagId: ""
})

/** A name no step of `steps` has: `step_<n>`, counting on from their number. */
const freshName = (steps: ReadonlyArray<EditorStep>) => {
  for (let n = steps.length + 1;; n++) {
    const name = `step_${n}`
    if (!steps.some((s) => s.name === name)) return name
  }
}

export const blankEditor = (timeZone: string): EditorValues => ({
  name: "",
  entryEvent: "api",
  entryTag: "",
  entryForm: "",
  entrySegment: "",
  reEntry: "once",
  timeZone,
  goalTag: "",
  steps: [blankStep("send_email", "step_1")]
})

const amountOf = (seconds: number): { amount: string; unit: WaitUnit } => {
  for (const unit of [...waitUnits].reverse()) {
    if (seconds % unitSeconds[unit] === 0) return { amount: String(seconds / unitSeconds[unit]), unit }
  }
  // Seconds that make no whole minute are shown as minutes, rounded up; the stored duration stays unless changed.
  return { amount: String(Math.ceil(seconds / 60)), unit: "minutes" }
}

const editorStepOf = (step: SequenceStep, zone: string): EditorStep => {
  const base = blankStep(step.type, step.name)
  switch (step.type) {
    case "send_email":
      return { ...base, templateId: step.templateId, kind: step.kind, data: Object.keys(step.data).length === 0 ? "" : JSON.stringify(step.data) }
    case "wait":
      return { ...base, ...amountOf(step.seconds), duration: step.duration }
    case "wait_until":
      return { ...base, until: step.time, weekdays: step.weekdays, zoneField: step.timeZoneField ?? "" }
    case "branch": {
      const c = step.condition
      const filterBuilder = c.type === "filter" ? builderOfFilter(c.filter, zone) : emptyBuilder
      return {
        ...base,
        condition: c.type,
        conditionTag: c.type === "has_tag" ? c.tagId : "",
        filter: c.type === "filter" && filterBuilder === undefined ? JSON.stringify(c.filter, null, 2) : "",
        filterBuilder,
        goTo: step.goTo,
        elseGoTo: step.elseGoTo ?? ""
      }
    }
    case "add_tag":
    case "remove_tag":
      return { ...base, tagId: step.tagId }
    case "end":
      return base
  }
}

/** The editor of a saved sequence; the days of its filters' conditions are told in `zone`. */
export const editorOfSequence = (sequence: Sequence, zone: string): EditorValues => {
  const entry = entryToJson(sequence.entry)
  return {
    name: sequence.name,
    entryEvent: sequence.entry.event,
    entryTag: typeof entry.tag_id === "string" ? entry.tag_id : "",
    entryForm: typeof entry.form_id === "string" ? entry.form_id : "",
    entrySegment: typeof entry.segment_id === "string" ? entry.segment_id : "",
    reEntry: sequence.reEntry,
    timeZone: sequence.timeZone,
    goalTag: sequence.goalTagId ?? "",
    steps: sequence.steps.map((step) => editorStepOf(step, zone))
  }
}

const value = (form: FormFields, name: string) => form.get(name)?.[0]?.trim() ?? ""
const isStepType = (u: string): u is EditorStepType => (editorStepTypes as ReadonlyArray<string>).includes(u)

/** The editor as the form posted it. */
export const editorOfForm = (form: FormFields): EditorValues => {
  const count = Math.min(Math.max(Number.parseInt(value(form, "step_count"), 10) || 0, 0), 100)
  const steps: Array<EditorStep> = []
  for (let i = 0; i < count; i++) {
    const at = (name: string) => value(form, `s${i}.${name}`)
    const type = at("type")
    steps.push({
      type: isStepType(type) ? type : "end",
      name: at("name"),
      templateId: at("template_id"),
      kind: at("kind") || "marketing",
      data: at("data"),
      amount: at("amount"),
      unit: at("unit"),
      duration: at("duration"),
      until: at("until"),
      weekdays: form.get(`s${i}.weekdays`) ?? [],
      zoneField: at("time_zone_field"),
      condition: at("condition"),
      conditionTag: at("condition_tag"),
      filter: form.get(`s${i}.filter`)?.[0] ?? "",
      // A form that names no mode and holds JSON edits the filter as JSON.
      filterBuilder: at("filter_mode") === "json" || (at("filter_mode") === "" && at("filter") !== "")
        ? undefined
        : builderOf(form, `s${i}.`),
      goTo: at("go_to"),
      elseGoTo: at("else_go_to"),
      tagId: at("tag_id")
    })
  }
  return {
    name: value(form, "name"),
    entryEvent: value(form, "entry_event"),
    entryTag: value(form, "entry_tag_id"),
    entryForm: value(form, "entry_form_id"),
    entrySegment: value(form, "entry_segment_id"),
    reEntry: value(form, "re_entry"),
    timeZone: value(form, "time_zone"),
    goalTag: value(form, "goal_tag_id"),
    steps
  }
}

/** What a button of the editor asks besides saving: a step added, removed or moved, or a condition of a branch's filter added or removed. */
export type EditorChange =
  | { readonly op: "add"; readonly type: EditorStepType }
  | { readonly op: "remove" | "up" | "down"; readonly index: number }
  | { readonly op: "condition-add"; readonly index: number; readonly kind: typeof filterKinds[number] }
  | { readonly op: "condition-remove"; readonly index: number; readonly condition: number }
  /** Nothing changed: the page shown again, with who matches each branch's filter counted anew. */
  | { readonly op: "count" }

export const changeOf = (form: FormFields): EditorChange | undefined => {
  const op = value(form, "op")
  if (op === "count") return { op: "count" }
  if (op === "add") {
    const type = value(form, "add_type")
    return { op: "add", type: isStepType(type) ? type : "send_email" }
  }
  const adding = /^condition-add:(\d+)$/.exec(op)
  if (adding !== null) {
    const index = Number(adding[1])
    const kind = filterKinds.find((k) => k === value(form, `s${index}.add_kind`)) ?? "status"
    return { op: "condition-add", index, kind }
  }
  const removing = /^condition-remove:(\d+):(\d+)$/.exec(op)
  if (removing !== null) return { op: "condition-remove", index: Number(removing[1]), condition: Number(removing[2]) }
  const match = /^(remove|up|down):(\d+)$/.exec(op)
  return match === null ? undefined : { op: match[1] as "remove" | "up" | "down", index: Number(match[2]) }
}

/** The editor with the change made; the steps keep their names, so branches still find them. */
export const applyChange = (values: EditorValues, change: EditorChange): EditorValues => {
  const steps = [...values.steps]
  switch (change.op) {
    case "add":
      steps.push(blankStep(change.type, freshName(steps)))
      break
    case "remove":
      if (change.index < steps.length) steps.splice(change.index, 1)
      break
    case "up":
    case "down": {
      const to = change.op === "up" ? change.index - 1 : change.index + 1
      if (change.index < steps.length && to >= 0 && to < steps.length) {
        ;[steps[to], steps[change.index]] = [steps[change.index]!, steps[to]!]
      }
      break
    }
    case "condition-add":
    case "condition-remove": {
      const step = steps[change.index]
      const builder = step?.filterBuilder
      if (step === undefined || builder === undefined) break
      const conditions = change.op === "condition-add"
        ? [...builder.conditions, blankCondition(change.kind)]
        : builder.conditions.filter((_, i) => i !== change.condition)
      steps[change.index] = { ...step, condition: "filter", filterBuilder: { ...builder, conditions } }
      break
    }
    case "count":
      break
  }
  return { ...values, steps }
}

/**
 * A problem of the definition: its path as the API names it (`steps[2].wait`), and the schema's
 * words; a problem of a branch's filter also carries its reason, for the screen to word.
 */
export interface DefinitionProblem {
  readonly path: string
  readonly message: string
  readonly reason?: Reason
}

export const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((text, key) => typeof key === "number" ? `${text}[${key}]` : text === "" ? String(key) : `${text}.${String(key)}`, "")

const parsedJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

const waitJson = (step: EditorStep): unknown => {
  const unit = (waitUnits as ReadonlyArray<string>).includes(step.unit) ? step.unit as WaitUnit : "days"
  const amount = step.amount === "" ? "0" : step.amount
  if (step.duration !== "" && /^\d+$/.test(amount)) {
    // The duration as stored, when the form still says the same length of time.
    const stored = amountOf(durationSecondsOf(step.duration))
    if (stored.amount === amount && stored.unit === unit) return step.duration
  }
  const letter = unitLetter[unit]
  return letter.startsWith("T") ? `PT${amount}${letter.slice(1)}` : `P${amount}${letter}`
}

const durationSecondsOf = (duration: string): number => {
  const match = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(duration)
  if (match === null) return -1
  const [w, d, h, m, s] = match.slice(1).map((n) => Number(n ?? 0)) as [number, number, number, number, number]
  return (((w * 7 + d) * 24 + h) * 60 + m) * 60 + s
}

const orNull = (text: string) => text === "" ? null : text

/** The message of a filter's number that is none, worded by the screen. */
export const NOT_A_NUMBER = "must be a number"

/** The reasons of a branch's filter by their path (`steps[2].branch.if.filter.all[1].value`), the first of each. */
const addFilterReasons = (reasons: Map<string, Reason>, step: number, filter: unknown): void => {
  const decoded = segmentFilterOf(filter)
  if (Either.isRight(decoded)) return
  for (const problem of decoded.left) {
    const path = pathText(["steps", step, "branch", "if", "filter", ...problem.path])
    if (!reasons.has(path)) reasons.set(path, problem.reason)
  }
}

/**
 * The JSON body the API takes for this editor, with the problems of fields that cannot be put in
 * it (a filter that is not JSON, a number that is none) by their path, and the reasons of its
 * branches' filters by theirs. The days of a filter's conditions are read in `zone`.
 */
export const definitionOf = (values: EditorValues, zone: string): {
  readonly body: Record<string, unknown>
  readonly problems: ReadonlyArray<DefinitionProblem>
  readonly filterReasons: ReadonlyMap<string, Reason>
} => {
  const problems: Array<DefinitionProblem> = []
  const filterReasons = new Map<string, Reason>()
  const steps = values.steps.map((step, i): Record<string, unknown> => {
    const named = (action: string, content: unknown) => ({ ...(step.name === "" ? {} : { name: step.name }), [action]: content })
    switch (step.type) {
      case "send_email": {
        const data = step.data === "" ? { ok: true as const, value: undefined } : parsedJson(step.data)
        if (!data.ok) problems.push({ path: `steps[${i}].send_email.data`, message: "must be JSON" })
        return named("send_email", {
          template_id: step.templateId,
          ...(step.kind === "transactional" ? { kind: "transactional" } : {}),
          ...(data.ok && data.value !== undefined ? { data: data.value } : {})
        })
      }
      case "wait":
        return named("wait", waitJson(step))
      case "wait_until":
        return named("wait", {
          until: step.until,
          ...(step.weekdays.length > 0 ? { weekdays: weekdays.filter((d) => step.weekdays.includes(d)) } : {}),
          ...(step.zoneField === "" ? {} : { time_zone_field: step.zoneField })
        })
      case "branch": {
        let condition: unknown
        if (step.condition === "filter" && step.filterBuilder !== undefined) {
          const made = filterBodyOf(step.filterBuilder, zone, NOT_A_NUMBER)
          for (const [place, message] of made.problems) {
            problems.push({ path: `steps[${i}].branch.if.filter.${step.filterBuilder.match}[${place}].value`, message })
          }
          addFilterReasons(filterReasons, i, made.body)
          condition = { filter: made.body }
        } else if (step.condition === "filter") {
          const filter = parsedJson(step.filter)
          if (!filter.ok) problems.push({ path: `steps[${i}].branch.if.filter`, message: "must be JSON" })
          else addFilterReasons(filterReasons, i, filter.value)
          condition = { filter: filter.ok ? filter.value : null }
        } else if (step.condition === "has_tag") condition = { has_tag: step.conditionTag }
        else if (step.condition === "clicked_previous_email") condition = { clicked_previous_email: true }
        else condition = { opened_previous_email: true }
        return named("branch", { if: condition, go_to: step.goTo, ...(step.elseGoTo === "" ? {} : { else_go_to: step.elseGoTo }) })
      }
      case "add_tag":
      case "remove_tag":
        return named(step.type, { tag_id: step.tagId })
      case "end":
        return named("end", true)
    }
  })
  const entry: Record<string, unknown> = { event: values.entryEvent }
  if (values.entryEvent === "tag.subscribed") entry.tag_id = orNull(values.entryTag)
  if (values.entryEvent === "subscriber.confirmed") entry.form_id = orNull(values.entryForm)
  if (values.entryEvent === "segment.entered") entry.segment_id = values.entrySegment
  return {
    body: {
      name: values.name,
      entry,
      steps,
      goal_tag_id: orNull(values.goalTag),
      re_entry: values.reEntry === "each_time" ? "each_time" : "once",
      time_zone: values.timeZone === "" ? "UTC" : values.timeZone
    },
    problems,
    filterReasons
  }
}

const decodeDefinition = Schema.decodeUnknownEither(CreateSequenceRequest)

/** The definition decoded as the API decodes it, or every problem by its path. */
export const decodedDefinition = (values: EditorValues, zone: string) => {
  const { body, filterReasons, problems } = definitionOf(values, zone)
  const decoded = decodeDefinition(body, { errors: "all", onExcessProperty: "error" })
  if (Either.isRight(decoded) && problems.length === 0) return Either.right(decoded.right)
  const found: Array<DefinitionProblem> = [...problems]
  if (Either.isLeft(decoded)) {
    for (const issue of ParseResult.ArrayFormatter.formatErrorSync(decoded.left)) {
      const path = pathText(issue.path)
      // A filter's condition the form could not make (a number that is none) is told once.
      const condition = filterConditionOf(path)
      const told = condition !== undefined && problems.some((p) => {
        const at = filterConditionOf(p.path)
        return at !== undefined && at.step === condition.step && at.condition === condition.condition
      })
      if (told || found.some((p) => p.path === path)) continue
      const reason = filterReasons.get(path)
      found.push(reason === undefined ? { path, message: issue.message } : { path, message: issue.message, reason })
    }
  }
  return Either.left(found)
}

/** The step a path concerns (`steps[2].wait` is step 2), if any. */
export const stepIndexOf = (path: string): number | undefined => {
  const match = /^steps\[(\d+)\]/.exec(path)
  return match === null ? undefined : Number(match[1])
}


/** The condition of a branch's filter a path concerns (`steps[2].branch.if.filter.all[1].value`: step 2, condition 1). */
export const filterConditionOf = (path: string): { readonly step: number; readonly condition: number } | undefined => {
  const match = /^steps\[(\d+)\]\.branch\.if\.(filter\..*)$/.exec(path)
  if (match === null) return undefined
  const condition = placeOfField(match[2]!)
  return condition === undefined ? undefined : { step: Number(match[1]), condition }
}
