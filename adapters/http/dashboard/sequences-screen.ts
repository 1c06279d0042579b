import { HttpRouter, type HttpServerRequest } from "@effect/platform"
import { Forms, Segments, Sequences, Subscribers, Tags, Templates } from "@roster/application"
import {
  EmailAddress,
  type Enrollment,
  type FilterNode,
  type Locale,
  type Sequence,
  SequenceId,
  type SequenceStep,
  sequenceEntryEvents,
  SubscriberId,
  subscriberStatuses,
  weekdays
} from "@roster/domain"
import { Effect, Either, Option, Schema } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import { toNewSequence, toSequenceChanges } from "../shared/sequence-schemas.js"
import type { DashboardAssets } from "./assets.js"
import { field, fill, page, pageNumberOf, pagerOf, reasonIn, redirect, refusalOf, type Workspace } from "./pages.js"
import { deletionRoutes } from "./deletion.js"
import type { Screen } from "./screen.js"
import {
  applyChange,
  blankEditor,
  changeOf,
  conditionKinds,
  decodedDefinition,
  type DefinitionProblem,
  editorOfForm,
  editorOfSequence,
  editorStepTypes,
  type EditorValues,
  filterConditionOf,
  NOT_A_NUMBER,
  stepIndexOf,
  waitUnits
} from "./sequence-editor.js"
import type { DashboardTexts } from "./texts.js"
import {
  builderInWords,
  builderOfFilter,
  builderView,
  conditionKinds as filterKinds,
  filterOf,
  PREVIEW_SIZE,
  previewView,
  valueTypes as filterValueTypes
} from "./segment-builder.js"

/**
 * Sequences: the list with each one's state, version and how many entered and are in it now; an
 * editor for the entry, exits, re-entry and the steps in order (added, removed and moved by
 * posting the form, so it works without the script), which is turned into the definition the API
 * takes and decoded by the same schema, so a bad step is refused naming its path; a sequence's
 * page with its steps described in words and their figures, activation, pausing and resuming, and
 * who is where (enrolled here by email address, taken out again).
 */

const PER_PAGE = 50
const ENROLLMENTS_PER_PAGE = 25
const TIME_ZONE_COOKIE = "roster_tz"

const sequenceIdOf = Schema.decodeUnknownOption(SequenceId)
const subscriberIdOf = Schema.decodeUnknownOption(SubscriberId)
const emailOf = Schema.decodeUnknownOption(EmailAddress)

type Texts = DashboardTexts["sequences"]

const isZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** The viewer's time zone, as the dashboard's script keeps it; UTC until it has. */
const viewerZone = (request: HttpServerRequest.HttpServerRequest) => {
  const value = request.cookies[TIME_ZONE_COOKIE]
  try {
    const zone = value === undefined ? "UTC" : decodeURIComponent(value)
    return isZone(zone) ? zone : "UTC"
  } catch {
    return "UTC"
  }
}

const durationUnits = [["week", 604_800], ["day", 86_400], ["hour", 3_600], ["minute", 60], ["second", 1]] as const

/** A length of time in words: `3 days`, `1 day, 12 hours`, `2 Wochen`. */
export const durationInWords = (seconds: number, locale: Locale): string => {
  let rest = seconds
  const parts: Array<string> = []
  for (const [unit, size] of durationUnits) {
    const count = Math.floor(rest / size)
    if (count === 0) continue
    rest -= count * size
    parts.push(new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: "long" }).format(count))
  }
  return new Intl.ListFormat(locale, { type: "unit", style: "long" }).format(parts)
}

/** What the editor's problems say, in the person's words, each with the path the API names. */
const problemText = (problem: DefinitionProblem, workspace: Workspace): string => {
  const t = workspace.t.sequences
  const { message, path } = problem
  const p = t.problems
  const text = ((): string => {
    if (filterConditionOf(path) !== undefined) {
      if (message === NOT_A_NUMBER) return workspace.t.segments.notANumber
      return problem.reason === undefined ? message : reasonIn(workspace.t, problem.reason)
    }
    if (path === "name") return p.name
    if (path === "steps") return p.steps
    if (/^steps\[\d+\]\.name$/.test(path)) return message.includes("names step") ? p.duplicateName : p.stepName
    if (/\.wait$/.test(path)) return p.wait
    if (/\.wait\.until$/.test(path)) return p.until
    if (/\.wait\.weekdays$/.test(path)) return p.weekdays
    if (/\.wait\.time_zone_field$/.test(path)) return p.zoneField
    if (/\.send_email(\.template_id)?$/.test(path)) return p.template
    if (/\.send_email\.kind$/.test(path)) return p.kind
    if (/\.send_email\.data/.test(path)) return p.data
    if (/\.branch\.if\.has_tag$/.test(path)) return p.conditionTag
    if (/\.branch\.if\.filter/.test(path)) return p.filter
    if (/\.branch\.if$/.test(path)) return p.condition
    if (/\.branch\.(go_to|else_go_to)$/.test(path)) return message.includes("loop") ? p.loop : p.target
    if (/\.(add_tag|remove_tag)(\.tag_id)?$/.test(path)) return p.tag
    if (path === "entry" || path === "entry.event") return p.entry
    if (path === "entry.segment_id") return p.entrySegment
    if (path === "entry.tag_id") return p.entryTag
    if (path === "entry.form_id") return p.entryForm
    if (path === "time_zone") return p.timeZone
    if (path === "goal_tag_id") return p.goalTag
    if (path === "re_entry") return p.reEntry
    return fill(p.other, { message })
  })()
  return fill(t.problem, { path, problem: text })
}

/** The form field beside which a problem of `path` stands, when it is not a step's. */
const fieldOfPath = (path: string): string | undefined => {
  if (path === "name") return "name"
  if (path === "entry" || path === "entry.event") return "entry"
  if (path === "entry.tag_id") return "entry_tag"
  if (path === "entry.form_id") return "entry_form"
  if (path === "entry.segment_id") return "entry_segment"
  if (path === "time_zone" || path === "goal_tag_id" || path === "re_entry" || path === "steps") return path
  return undefined
}

interface Shown {
  readonly path: string
  readonly text: string
}

interface Choices {
  readonly tags: ReadonlyArray<{ readonly id: string; readonly name: string }>
  readonly templates: ReadonlyArray<{ readonly id: string; readonly name: string }>
  readonly segments: ReadonlyArray<{ readonly id: string; readonly name: string }>
  readonly forms: ReadonlyArray<{ readonly id: string; readonly name: string }>
}

const nameIn = (list: Choices[keyof Choices], id: string | null, gone: string) =>
  id === null ? gone : list.find((item) => item.id === id)?.name ?? gone

/** A step in words: what it does, its wait in words, where a branch goes. */
const describeStep = (step: SequenceStep, sequence: Sequence, choices: Choices, workspace: Workspace, zone: string): string => {
  const t = workspace.t.sequences
  const d = t.describe
  switch (step.type) {
    case "send_email":
      return fill(d.send_email, { template: nameIn(choices.templates, step.templateId, d.gone), kind: t.kinds[step.kind] })
    case "wait":
      return fill(d.wait, { duration: durationInWords(step.seconds, workspace.locale) })
    case "wait_until": {
      const days = step.weekdays.length === 0
        ? d.anyDay
        : fill(d.onDays, {
          days: new Intl.ListFormat(workspace.locale, { type: "conjunction" }).format(step.weekdays.map((day) => t.weekdayNames[day]))
        })
      const zone = step.timeZoneField === null
        ? sequence.timeZone
        : fill(d.subscriberZone, { field: step.timeZoneField, zone: sequence.timeZone })
      return fill(d.wait_until, { time: step.time, days, zone })
    }
    case "branch": {
      const condition = step.condition.type === "has_tag"
        ? fill(d.hasTag, { tag: nameIn(choices.tags, step.condition.tagId, d.gone) })
        : step.condition.type === "filter"
        ? filterInWords(step.condition.filter, choices, workspace, zone)
        : t.conditions[step.condition.type]
      return fill(d.branch, { condition, target: step.goTo, otherwise: step.elseGoTo ?? d.next })
    }
    case "add_tag":
    case "remove_tag":
      return fill(d[step.type], { tag: nameIn(choices.tags, step.tagId, d.gone) })
    case "end":
      return d.end
  }
}

/** A branch's filter in words, or as its JSON when it nests groups the words do not tell. */
const filterInWords = (
  filter: FilterNode,
  choices: Choices,
  workspace: Workspace,
  zone: string
): string => {
  const d = workspace.t.sequences.describe
  const builder = builderOfFilter(filter, zone)
  if (builder === undefined) return fill(d.filterJson, { filter: JSON.stringify(filter) })
  return fill(d.filter, {
    filter: builderInWords(builder, workspace.t.segments, workspace.locale, {
      status: (status) => workspace.t.subscribers.statuses[status as keyof DashboardTexts["subscribers"]["statuses"]] ?? status,
      tag: (id) => nameIn(choices.tags, id, d.gone)
    })
  })
}

/** The sequence's entry, re-entry, goal and zone in words. */
const settingsOf = (sequence: Sequence, choices: Choices, workspace: Workspace): ReadonlyArray<string> => {
  const t = workspace.t.sequences
  const d = t.describe
  const entry = sequence.entry
  const entryText = entry.event === "tag.subscribed"
    ? entry.tagId === null ? d.entry["tag.subscribed.any"] : fill(d.entry["tag.subscribed"], { tag: nameIn(choices.tags, entry.tagId, d.gone) })
    : entry.event === "subscriber.confirmed"
    ? entry.formId === null
      ? d.entry["subscriber.confirmed.any"]
      : fill(d.entry["subscriber.confirmed"], { form: nameIn(choices.forms, entry.formId, d.gone) })
    : entry.event === "segment.entered"
    ? fill(d.entry["segment.entered"], { segment: nameIn(choices.segments, entry.segmentId, d.gone) })
    : d.entry[entry.event]
  return [
    entryText,
    d.reEntry[sequence.reEntry],
    ...(sequence.goalTagId === null ? [] : [fill(d.goal, { tag: nameIn(choices.tags, sequence.goalTagId, d.gone) })]),
    t.exitsAlways,
    `${t.timeZone}: ${sequence.timeZone}`
  ]
}

export const makeSequencesScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const sequences = yield* Sequences
    const tags = yield* Tags
    const templates = yield* Templates
    const segments = yield* Segments
    const forms = yield* Forms
    const subscribers = yield* Subscribers

    const listPath = (workspace: Workspace) => `${workspace.base}/sequences`
    const onePath = (workspace: Workspace, id: string) => `${listPath(workspace)}/${id}`

    const refused = (workspace: Workspace, error: ApplicationError) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: listPath(workspace)
      }, { status: refusal.status, menu: "sequences" })
    }

    /** What the editor offers to choose from: the organization's tags, templates, segments and forms. */
    const choicesOf = (workspace: Workspace): Effect.Effect<Choices, ApplicationError> =>
      Effect.all([
        tags.list(workspace.principal, { sort: "name", order: "asc", limit: 1_000 }),
        templates.list(workspace.principal, { limit: 100 }),
        segments.list(workspace.principal, { limit: 100 }),
        forms.list(workspace.principal, { limit: 100 })
      ], { concurrency: 4 }).pipe(
        Effect.map(([tagPage, templatePage, segmentPage, formPage]) => ({
          tags: tagPage.items.map((tag) => ({ id: tag.id, name: tag.name })),
          templates: templatePage.items.map((template) => ({ id: template.id, name: template.name })),
          segments: segmentPage.items.map((segment) => ({ id: segment.id, name: segment.name })),
          forms: formPage.items.map(({ form }) => ({ id: form.id, name: form.name }))
        }))
      )

    /**
     * Who matches each branch's filter built with the controls, by step, as the script's preview
     * shows it: so the page tells it without the script too. A filter with a problem, or without
     * conditions, is not counted.
     */
    const matchingOf = (workspace: Workspace, values: EditorValues, zone: string) =>
      Effect.forEach(values.steps, (step) => {
        const builder = step.type === "branch" && step.condition === "filter" ? step.filterBuilder : undefined
        if (builder === undefined || builder.conditions.length === 0) return Effect.succeed(undefined)
        const filter = filterOf(builder, zone, workspace.locale, workspace.t.segments.notANumber)
        if (Either.isLeft(filter)) return Effect.succeed(undefined)
        return segments.previewFilter(workspace.principal, filter.right, { limit: PREVIEW_SIZE }).pipe(
          Effect.map(previewView),
          Effect.orElseSucceed(() => undefined)
        )
      }, { concurrency: "unbounded" })

    const editorPage = (
      workspace: Workspace,
      scope: {
        readonly sequence?: Sequence
        readonly values: EditorValues
        readonly problems?: ReadonlyArray<Shown>
        readonly status?: number
        /** The viewer's time zone, in which the days of a filter's conditions are told. */
        readonly zone: string
      }
    ) =>
      Effect.map(Effect.all([choicesOf(workspace), matchingOf(workspace, scope.values, scope.zone)], { concurrency: "unbounded" }), ([choices, matching]) => {
        const t = workspace.t.sequences
        const problems = scope.problems ?? []
        const names = scope.values.steps.map((step) => step.name).filter((name) => name !== "")
        const withGiven = (given: string) => given === "" || names.includes(given) ? names : [...names, given]
        const errors: Record<string, string> = {}
        for (const problem of problems) {
          const key = fieldOfPath(problem.path)
          if (key !== undefined) errors[key] = errors[key] === undefined ? problem.text : `${errors[key]} ${problem.text}`
        }
        const steps = scope.values.steps.map((step, index) => ({
          ...step,
          index,
          prefix: `s${index}`,
          label: `${fill(t.stepN, { n: index + 1 })}: ${t.stepTypes[step.type]}${step.name === "" ? "" : ` (${step.name})`}`,
          first: index === 0,
          last: index === scope.values.steps.length - 1,
          targets: withGiven(step.goTo),
          elseTargets: withGiven(step.elseGoTo),
          preview: matching[index],
          // A problem of a filter's condition stands beside that condition, the others beside the step.
          builder: step.filterBuilder === undefined ? undefined : builderView(
            step.filterBuilder,
            problems.reduce((placed, problem) => {
              const at = filterConditionOf(problem.path)
              if (at !== undefined && at.step === index) placed.set(at.condition, [placed.get(at.condition), problem.text].filter(Boolean).join(" "))
              return placed
            }, new Map<number, string>())
          ),
          error: problems
            .filter((problem) =>
              stepIndexOf(problem.path) === index && (step.filterBuilder === undefined || filterConditionOf(problem.path) === undefined)
            )
            .map((problem) => problem.text).join(" ") || undefined
        }))
        const action = scope.sequence === undefined ? `${listPath(workspace)}/new` : `${onePath(workspace, scope.sequence.id)}/edit`
        return page(assets, workspace, scope.sequence === undefined ? "sequence-new" : "sequence-edit", {
          ...choices,
          sequence: scope.sequence === undefined
            ? undefined
            : { id: scope.sequence.id, name: scope.sequence.name, status: scope.sequence.status, version: scope.sequence.version },
          values: scope.values,
          steps,
          errors,
          problems: problems.map((problem) => problem.text),
          entryEvents: sequenceEntryEvents,
          reEntries: ["once", "each_time"],
          kinds: ["marketing", "transactional"],
          units: waitUnits,
          weekdays,
          conditions: conditionKinds,
          stepTypes: editorStepTypes,
          filterKinds,
          // Who matches a branch's filter as it changes, asked of the segment builder's preview by the script.
          filterPreviewAction: `${workspace.base}/segments/preview`,
          statuses: subscriberStatuses,
          valueTypes: filterValueTypes,
          zone: scope.zone,
          action,
          cancel: scope.sequence === undefined ? listPath(workspace) : onePath(workspace, scope.sequence.id)
        }, { status: scope.status ?? 200, menu: "sequences" })
      })

    /** A refusal of the use case as problems of the editor: an invalid field by its path. */
    const problemsOfRefusal = (workspace: Workspace, error: ApplicationError): ReadonlyArray<Shown> | undefined => {
      if (error._tag !== "InvalidInput") return undefined
      const text = refusalOf(error, workspace.t).text
      return [{ path: error.field, text: fill(workspace.t.sequences.problem, { path: error.field, problem: text }) }]
    }

    /**
     * Saves what the editor posted, or shows it again: with a step added, removed or moved, or with
     * the problems of the definition, or the use case's refusal, by their paths.
     */
    const submitEditor = (
      workspace: Workspace,
      form: ReadonlyMap<string, ReadonlyArray<string>>,
      sequence: Sequence | undefined,
      zone: string
    ) =>
      Effect.gen(function*() {
        const t = workspace.t.sequences
        const posted = editorOfForm(form)
        const change = changeOf(form)
        if (change !== undefined) {
          return yield* editorPage(workspace, { ...(sequence ? { sequence } : {}), values: applyChange(posted, change), zone })
        }
        const decoded = decodedDefinition(posted, zone)
        if (Either.isLeft(decoded)) {
          const problems = decoded.left.map((problem) => ({ path: problem.path, text: problemText(problem, workspace) }))
          return yield* editorPage(workspace, { ...(sequence ? { sequence } : {}), values: posted, problems, status: 400, zone })
        }
        const saved = sequence === undefined
          ? sequences.create(workspace.principal, toNewSequence(decoded.right))
          : sequences.update(workspace.principal, sequence.id, toSequenceChanges(decoded.right))
        return yield* saved.pipe(
          Effect.map((made) =>
            redirect(onePath(workspace, made.id), {
              kind: "ok",
              text: sequence === undefined
                ? fill(t.created_, { name: made.name })
                : made.version !== sequence.version
                ? fill(t.savedVersion, { name: made.name, version: made.version })
                : fill(t.saved, { name: made.name })
            })
          ),
          Effect.catchAll((error) => {
            const problems = problemsOfRefusal(workspace, error)
            if (problems === undefined) return Effect.fail(error)
            return editorPage(workspace, { ...(sequence ? { sequence } : {}), values: posted, problems, status: 400, zone })
          })
        )
      })

    /** The sequence the path names, or the page that says it is not there. */
    const withSequence = (
      workspace: Workspace,
      f: (sequence: Sequence) => Effect.Effect<ReturnType<typeof page>, ApplicationError, HttpRouter.RouteContext>
    ) =>
      Effect.gen(function*() {
        const { sequence_id } = yield* HttpRouter.params
        const id = sequenceIdOf(sequence_id)
        if (Option.isNone(id)) return page(assets, workspace, "not-found", {}, { status: 404, menu: "sequences" })
        return yield* sequences.get(workspace.principal, id.value).pipe(Effect.flatMap(f))
      }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))

    const emailOfSubscriber = (workspace: Workspace, id: Enrollment["subscriberId"]) =>
      subscribers.get(workspace.principal, id).pipe(
        Effect.map((view) => view.subscriber.email as string),
        Effect.orElseSucceed(() => "")
      )

    /** The sequence's page: its settings and steps in words with their figures, and who is where. */
    const sequencePage = (
      workspace: Workspace,
      request: HttpServerRequest.HttpServerRequest,
      sequence: Sequence,
      scope: {
        readonly errors?: Readonly<Record<string, string>>
        readonly actionError?: string
        readonly enrollEmail?: string
        readonly status?: number
      } = {}
    ) =>
      Effect.gen(function*() {
        const t = workspace.t.sequences
        const zone = viewerZone(request)
        const [choices, figures, found] = yield* Effect.all([
          choicesOf(workspace),
          sequences.figures(workspace.principal, sequence.id),
          sequences.enrollmentsPage(workspace.principal, sequence.id, {
            page: pageNumberOf(request),
            perPage: ENROLLMENTS_PER_PAGE
          })
        ], { concurrency: 3 })
        const at = new Intl.DateTimeFormat(workspace.locale, { dateStyle: "medium", timeStyle: "short", timeZone: zone })
        const enrollments = yield* Effect.forEach(found.items, (e) =>
          Effect.map(emailOfSubscriber(workspace, e.subscriberId), (email) => ({
            subscriberId: e.subscriberId,
            email,
            state: e.state,
            exitReason: e.exitReason,
            step: e.stepName,
            waiting: e.waiting && e.state === "active",
            nextRunAt: e.state === "active" && e.nextRunAt !== null ? e.nextRunAt.toISOString() : "",
            nextRunText: e.nextRunAt === null ? "" : at.format(e.nextRunAt),
            enteredAt: e.enteredAt.toISOString(),
            enteredText: at.format(e.enteredAt)
          })), { concurrency: 4 })
        const rows = figures.map((f) => {
          const index = sequence.steps.findIndex((step) => step.name === f.step)
          return {
            ...f,
            number: index === -1 ? "" : String(index + 1),
            what: index === -1 ? t.olderStep : describeStep(sequence.steps[index]!, sequence, choices, workspace, zone)
          }
        })
        return page(assets, workspace, "sequence", {
          sequence: { id: sequence.id, name: sequence.name, status: sequence.status, version: sequence.version },
          settings: settingsOf(sequence, choices, workspace),
          figures: rows,
          enrollments,
          enrollmentsTotal: found.total,
          zone,
          errors: scope.errors ?? {},
          actionError: scope.actionError,
          enrollEmail: scope.enrollEmail ?? "",
          pagerTexts: { ...t, pages: t.enrollmentPages },
          ...pagerOf(onePath(workspace, sequence.id), found)
        }, { status: scope.status ?? 200, menu: "sequences" })
      })

    /** Activates (or resumes) or pauses; a refusal of the use case stands on the sequence's page. */
    const setStatus = (action: "activate" | "pause"): Screen["routes"][number] => ({
      method: "POST",
      path: `/sequences/:sequence_id/${action}`,
      handle: (workspace, request) =>
        withSequence(workspace, (sequence) => {
          const t = workspace.t.sequences
          return sequences[action](workspace.principal, sequence.id).pipe(
            Effect.map((changed) =>
              redirect(onePath(workspace, changed.id), {
                kind: "ok",
                text: fill(action === "pause" ? t.paused_ : sequence.status === "paused" ? t.resumed : t.activated, { name: changed.name })
              })
            ),
            Effect.catchAll((error) => {
              if (error._tag !== "InvalidInput") return Effect.fail(error)
              const refusal = refusalOf(error, workspace.t)
              return sequencePage(workspace, request, sequence, {
                actionError: fill(t.problem, { path: error.field, problem: refusal.text }),
                status: refusal.status
              })
            })
          )
        })
    })

    return {
      routes: [
        {
          method: "GET",
          path: "/sequences",
          handle: (workspace, request) =>
            Effect.gen(function*() {
              const found = yield* sequences.listPage(workspace.principal, { page: pageNumberOf(request), perPage: PER_PAGE })
              const counts = yield* sequences.enrollmentCounts(workspace.principal, found.items.map((sequence) => sequence.id))
              const rows = found.items.map((sequence) => ({
                id: sequence.id,
                name: sequence.name,
                status: sequence.status,
                version: sequence.version,
                entered: counts.get(sequence.id)?.entered ?? 0,
                active: counts.get(sequence.id)?.active ?? 0
              }))
              return page(assets, workspace, "sequences", {
                sequences: rows,
                total: found.total,
                ...pagerOf(listPath(workspace), found),
                newAction: `${listPath(workspace)}/new`
              }, { menu: "sequences" })
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/sequences/new",
          handle: (workspace, request) =>
            editorPage(workspace, { values: blankEditor(viewerZone(request)), zone: viewerZone(request) }).pipe(
              Effect.catchAll((error) => Effect.succeed(refused(workspace, error)))
            )
        },
        {
          method: "POST",
          path: "/sequences/new",
          handle: (workspace, request, form) =>
            submitEditor(workspace, form, undefined, viewerZone(request)).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/sequences/:sequence_id",
          handle: (workspace, request) => withSequence(workspace, (sequence) => sequencePage(workspace, request, sequence))
        },
        {
          method: "GET",
          path: "/sequences/:sequence_id/edit",
          handle: (workspace, request) =>
            withSequence(workspace, (sequence) =>
              editorPage(workspace, { sequence, values: editorOfSequence(sequence, viewerZone(request)), zone: viewerZone(request) }))
        },
        {
          method: "POST",
          path: "/sequences/:sequence_id/edit",
          handle: (workspace, request, form) => withSequence(workspace, (sequence) => submitEditor(workspace, form, sequence, viewerZone(request)))
        },
        setStatus("activate"),
        setStatus("pause"),
        {
          method: "POST",
          path: "/sequences/:sequence_id/enroll",
          handle: (workspace, request, form) =>
            withSequence(workspace, (sequence) =>
              Effect.gen(function*() {
                const t = workspace.t.sequences
                const typed = field(form, "email")
                const again = (text: string, status: number) =>
                  sequencePage(workspace, request, sequence, { errors: { email: text }, enrollEmail: typed, status })
                const email = emailOf(typed)
                if (Option.isNone(email)) return yield* again(t.invalidEmail, 400)
                const subscriber = yield* Effect.either(subscribers.getByEmail(workspace.principal, email.value))
                if (Either.isLeft(subscriber)) {
                  return yield* subscriber.left._tag === "ResourceNotFound"
                    ? again(fill(t.unknownEmail, { email: typed }), 400)
                    : Effect.fail(subscriber.left)
                }
                return yield* sequences.enroll(workspace.principal, sequence.id, subscriber.right.subscriber.id).pipe(
                  Effect.as(redirect(onePath(workspace, sequence.id), {
                    kind: "ok",
                    text: fill(t.enrolled, { email: subscriber.right.subscriber.email })
                  })),
                  Effect.catchAll((error) => {
                    if (error._tag === "SequenceStateConflict") {
                      return again(fill(workspace.t.refusal.sequenceState, { status: t.statuses[error.status as keyof Texts["statuses"]] ?? error.status }), 409)
                    }
                    if (error._tag !== "InvalidInput") return Effect.fail(error)
                    return again(refusalOf(error, workspace.t).text, 400)
                  })
                )
              }))
        },
        {
          method: "POST",
          path: "/sequences/:sequence_id/enrollments/:subscriber_id/remove",
          handle: (workspace) =>
            withSequence(workspace, (sequence) =>
              Effect.gen(function*() {
                const { subscriber_id } = yield* HttpRouter.params
                const id = subscriberIdOf(subscriber_id)
                if (Option.isNone(id)) return page(assets, workspace, "not-found", {}, { status: 404, menu: "sequences" })
                const email = yield* emailOfSubscriber(workspace, id.value)
                yield* sequences.unenroll(workspace.principal, sequence.id, id.value)
                return redirect(onePath(workspace, sequence.id), { kind: "ok", text: fill(workspace.t.sequences.removed, { email }) })
              }))
        },
        ...deletionRoutes(assets, {
          path: "/sequences/:sequence_id",
          menu: "sequences",
          texts: (t) => t.sequences,
          withRecord: withSequence,
          places: (workspace, sequence) => ({
            name: sequence.name,
            action: `${onePath(workspace, sequence.id)}/delete`,
            cancel: onePath(workspace, sequence.id),
            list: listPath(workspace)
          }),
          remove: (workspace, sequence) => sequences.remove(workspace.principal, sequence.id)
        })
      ]
    } satisfies Screen
  })
