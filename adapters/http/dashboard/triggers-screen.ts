import { HttpRouter } from "@effect/platform"
import { Segments, Tags, Templates, type TriggerRecord, Triggers } from "@roster/application"
import {
  type EmailTrigger,
  MAX_TRIGGER_NAME_LENGTH,
  SegmentId,
  TagId,
  TemplateId,
  TriggerDelay,
  TriggerEvent,
  TriggerId,
  TriggerName
} from "@roster/domain"
import { Effect, Either, Option, Schema } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import type { DashboardAssets } from "./assets.js"
import {
  field,
  fill,
  type FormFields,
  page,
  pageNumberOf,
  pagerOf,
  redirect,
  refusalOf,
  type Workspace
} from "./pages.js"
import { deletionRoutes } from "./deletion.js"
import type { Screen } from "./screen.js"
import { durationInWords } from "./sequences-screen.js"
import type { DashboardTexts } from "./texts.js"

/**
 * Email triggers: the list with each trigger's event, template, wait, state and how many emails it
 * sent; created, changed, enabled and disabled, and deleted here through the trigger use cases.
 */

const PER_PAGE = 50

const triggerIdOf = Schema.decodeUnknownOption(TriggerId)
const nameOf = Schema.decodeUnknownEither(TriggerName)
const delayOf = Schema.decodeUnknownEither(TriggerDelay)
const eventOf = Schema.decodeUnknownOption(TriggerEvent)
const templateIdOf = Schema.decodeUnknownOption(TemplateId)
const tagIdOf = Schema.decodeUnknownOption(TagId)
const segmentIdOf = Schema.decodeUnknownOption(SegmentId)

type Texts = DashboardTexts["triggers"]

const delayUnits = ["minutes", "hours", "days"] as const
const unitSeconds: Readonly<Record<typeof delayUnits[number], number>> = { minutes: 60, hours: 3_600, days: 86_400 }

interface TriggerValues {
  readonly name: string
  readonly event: string
  readonly tag: string
  readonly template: string
  readonly segment: string
  readonly kind: string
  readonly amount: string
  readonly unit: string
}

const blankValues: TriggerValues = {
  name: "",
  event: "subscriber.created",
  tag: "",
  template: "",
  segment: "",
  kind: "marketing",
  amount: "0",
  unit: "minutes"
}

const valuesOf = (form: FormFields): TriggerValues => ({
  name: field(form, "name"),
  event: field(form, "event"),
  tag: field(form, "tag_id"),
  template: field(form, "template_id"),
  segment: field(form, "segment_id"),
  kind: field(form, "kind"),
  amount: field(form, "delay_amount"),
  unit: field(form, "delay_unit")
})

const valuesOfTrigger = (trigger: EmailTrigger): TriggerValues => {
  const unit = [...delayUnits].reverse().find((u) => trigger.delaySeconds % unitSeconds[u] === 0) ?? "minutes"
  return {
    name: trigger.name,
    event: trigger.event,
    tag: trigger.tagId ?? "",
    template: trigger.templateId ?? "",
    segment: trigger.segmentId ?? "",
    kind: trigger.kind,
    amount: String(Math.round(trigger.delaySeconds / unitSeconds[unit])),
    unit
  }
}

/** The fields as the use case takes them, or each field's refusal in the person's words. */
const inputOf = (values: TriggerValues, t: Texts) => {
  const errors: Record<string, string> = {}
  const name = nameOf(values.name)
  if (Either.isLeft(name)) errors.name = fill(t.invalidName, { max: MAX_TRIGGER_NAME_LENGTH })
  const event = eventOf(values.event)
  if (Option.isNone(event)) errors.event = t.unknownEvent
  const template = templateIdOf(values.template)
  if (Option.isNone(template)) errors.template_id = t.unknownTemplate
  const tag = values.tag === "" ? Option.some(null) : tagIdOf(values.tag)
  if (Option.isNone(tag)) errors.tag_id = t.unknownTag
  const segment = values.segment === "" ? Option.some(null) : segmentIdOf(values.segment)
  if (Option.isNone(segment)) errors.segment_id = t.unknownSegment
  const unit = delayUnits.find((u) => u === values.unit) ?? "minutes"
  const amount = /^\d{1,7}$/.test(values.amount) ? Number(values.amount) * unitSeconds[unit] : Number.NaN
  const delay = delayOf(amount)
  if (Either.isLeft(delay)) errors.delay_seconds = t.invalidDelay
  if (Object.keys(errors).length > 0) return Either.left(errors)
  const chosenEvent = Option.getOrThrow(event)
  return Either.right({
    name: Either.getOrThrow(name),
    event: chosenEvent,
    // A tag belongs to `tag.subscribed`: for another event, none.
    tagId: chosenEvent === "tag.subscribed" ? Option.getOrThrow(tag) : null,
    templateId: Option.getOrThrow(template),
    segmentId: Option.getOrThrow(segment),
    kind: values.kind === "transactional" ? "transactional" as const : "marketing" as const,
    delaySeconds: Either.getOrThrow(delay)
  })
}

/** A refusal of the use case beside the field it names, else for the whole form. */
const errorsOfRefusal = (error: ApplicationError, workspace: Workspace): Readonly<Record<string, string>> => {
  const refusal = refusalOf(error, workspace.t)
  const named = error._tag === "InvalidInput"
    ? error.field
    : error._tag === "ResourceNotFound" && error.resource === "tag"
    ? "tag_id"
    : undefined
  return named === "tag_id" || named === "template_id" || named === "segment_id" || named === "name" || named === "delay_seconds"
    ? { [named]: refusal.text }
    : { form: refusal.text }
}

export const makeTriggersScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const triggers = yield* Triggers
    const tags = yield* Tags
    const templates = yield* Templates
    const segments = yield* Segments

    const listPath = (workspace: Workspace) => `${workspace.base}/triggers`
    const onePath = (workspace: Workspace, id: string) => `${listPath(workspace)}/${id}`

    const refused = (workspace: Workspace, error: ApplicationError) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: listPath(workspace)
      }, { status: refusal.status, menu: "triggers" })
    }

    const choices = (workspace: Workspace) =>
      Effect.all([
        tags.list(workspace.principal, { sort: "name", order: "asc", limit: 1_000 }),
        templates.list(workspace.principal, { limit: 100 }),
        segments.list(workspace.principal, { limit: 100 })
      ], { concurrency: 3 }).pipe(
        Effect.map(([tagPage, templatePage, segmentPage]) => ({
          tags: tagPage.items.map((tag) => ({ id: tag.id, name: tag.name })),
          templates: templatePage.items.map((template) => ({ id: template.id, name: template.name })),
          segments: segmentPage.items.map((segment) => ({ id: segment.id, name: segment.name }))
        }))
      )

    const editorPage = (
      workspace: Workspace,
      scope: { readonly record?: TriggerRecord; readonly values: TriggerValues; readonly errors: object; readonly status?: number }
    ) =>
      Effect.map(choices(workspace), (offered) => {
        const trigger = scope.record?.trigger
        return page(assets, workspace, trigger === undefined ? "trigger-new" : "trigger-edit", {
          ...offered,
          trigger: trigger === undefined ? undefined : { id: trigger.id, name: trigger.name, status: trigger.status },
          firings: scope.record?.firings,
          values: scope.values,
          errors: scope.errors,
          events: TriggerEvent.literals,
          kinds: ["marketing", "transactional"],
          units: delayUnits,
          action: trigger === undefined ? `${listPath(workspace)}/new` : onePath(workspace, trigger.id),
          cancel: listPath(workspace)
        }, { status: scope.status ?? 200, menu: "triggers" })
      })

    const withTrigger = (
      workspace: Workspace,
      f: (record: TriggerRecord) => Effect.Effect<ReturnType<typeof page>, ApplicationError, HttpRouter.RouteContext>
    ) =>
      Effect.gen(function*() {
        const { trigger_id } = yield* HttpRouter.params
        const id = triggerIdOf(trigger_id)
        if (Option.isNone(id)) return page(assets, workspace, "not-found", {}, { status: 404, menu: "triggers" })
        return yield* triggers.get(workspace.principal, id.value).pipe(Effect.flatMap(f))
      }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))

    return {
      routes: [
        {
          method: "GET",
          path: "/triggers",
          handle: (workspace, request) =>
            Effect.gen(function*() {
              const t = workspace.t.triggers
              const [found, offered] = yield* Effect.all([
                triggers.listPage(workspace.principal, { page: pageNumberOf(request), perPage: PER_PAGE }),
                choices(workspace)
              ], { concurrency: 2 })
              const nameOfId = (list: ReadonlyArray<{ id: string; name: string }>, id: string | null) =>
                id === null ? "" : list.find((item) => item.id === id)?.name ?? ""
              return page(assets, workspace, "triggers", {
                triggers: found.items.map(({ firings, trigger }) => ({
                  id: trigger.id,
                  name: trigger.name,
                  event: trigger.event,
                  tag: nameOfId(offered.tags, trigger.tagId),
                  template: nameOfId(offered.templates, trigger.templateId),
                  delay: trigger.delaySeconds === 0
                    ? t.atOnce
                    : fill(t.after, { duration: durationInWords(trigger.delaySeconds, workspace.locale) }),
                  status: trigger.status,
                  sent: firings.sent
                })),
                total: found.total,
                ...pagerOf(listPath(workspace), found),
                newAction: `${listPath(workspace)}/new`
              }, { menu: "triggers" })
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/triggers/new",
          handle: (workspace) =>
            editorPage(workspace, { values: blankValues, errors: {} }).pipe(
              Effect.catchAll((error) => Effect.succeed(refused(workspace, error)))
            )
        },
        {
          method: "POST",
          path: "/triggers/new",
          handle: (workspace, _request, form) =>
            Effect.gen(function*() {
              const values = valuesOf(form)
              const input = inputOf(values, workspace.t.triggers)
              if (Either.isLeft(input)) return yield* editorPage(workspace, { values, errors: input.left, status: 400 })
              return yield* triggers.create(workspace.principal, input.right).pipe(
                Effect.map(({ trigger }) =>
                  redirect(onePath(workspace, trigger.id), { kind: "ok", text: fill(workspace.t.triggers.created_, { name: trigger.name }) })
                ),
                Effect.catchAll((error) =>
                  editorPage(workspace, { values, errors: errorsOfRefusal(error, workspace), status: refusalOf(error, workspace.t).status })
                )
              )
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/triggers/:trigger_id",
          handle: (workspace) =>
            withTrigger(workspace, (record) => editorPage(workspace, { record, values: valuesOfTrigger(record.trigger), errors: {} }))
        },
        {
          method: "POST",
          path: "/triggers/:trigger_id",
          handle: (workspace, _request, form) =>
            withTrigger(workspace, (record) => {
              const values = valuesOf(form)
              const input = inputOf(values, workspace.t.triggers)
              if (Either.isLeft(input)) return editorPage(workspace, { record, values, errors: input.left, status: 400 })
              return triggers.update(workspace.principal, record.trigger.id, input.right).pipe(
                Effect.map(({ trigger }) =>
                  redirect(onePath(workspace, trigger.id), { kind: "ok", text: fill(workspace.t.triggers.saved, { name: trigger.name }) })
                ),
                Effect.catchAll((error) => {
                  const refusal = refusalOf(error, workspace.t)
                  return refusal.status === 404 && !(error._tag === "ResourceNotFound" && error.resource === "tag")
                    ? Effect.fail(error)
                    : editorPage(workspace, { record, values, errors: errorsOfRefusal(error, workspace), status: refusal.status })
                })
              )
            })
        },
        {
          method: "POST",
          path: "/triggers/:trigger_id/status",
          handle: (workspace, _request, form) =>
            withTrigger(workspace, ({ trigger }) => {
              const status = field(form, "status") === "paused" ? "paused" as const : "active" as const
              const t = workspace.t.triggers
              return triggers.update(workspace.principal, trigger.id, { status }).pipe(
                Effect.map((changed) =>
                  redirect(field(form, "back") === "list" ? listPath(workspace) : onePath(workspace, trigger.id), {
                    kind: "ok",
                    text: fill(status === "paused" ? t.disabled_ : t.enabled_, { name: changed.trigger.name })
                  })
                )
              )
            })
        },
        ...deletionRoutes(assets, {
          path: "/triggers/:trigger_id",
          menu: "triggers",
          texts: (t) => t.triggers,
          withRecord: withTrigger,
          places: (workspace, { trigger }) => ({
            name: trigger.name,
            action: `${onePath(workspace, trigger.id)}/delete`,
            cancel: onePath(workspace, trigger.id),
            list: listPath(workspace)
          }),
          remove: (workspace, { trigger }) => triggers.remove(workspace.principal, trigger.id)
        })
      ]
    } satisfies Screen
  })
