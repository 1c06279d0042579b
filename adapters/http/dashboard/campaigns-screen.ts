import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  type AudienceInput,
  type CampaignChanges,
  type CampaignRecord,
  type CampaignReport,
  Campaigns,
  type EmailTemplateSource,
  Segments,
  Tags,
  Templates
} from "@roster/application"
import {
  type Campaign,
  CampaignId,
  CampaignName,
  campaignEnded,
  instantOfWallTime,
  type Locale,
  MAX_CAMPAIGN_NAME_LENGTH,
  type MessageKind,
  SegmentId,
  TagId,
  TemplateId
} from "@roster/domain"
import { Effect, Either, Option, Schema } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import type { DashboardAssets } from "./assets.js"
import { field, fill, type FormFields, fragment, page, pageNumberOf, pagerOf, queryOf, redirect, refusalOf, type Workspace } from "./pages.js"
import type { Screen } from "./screen.js"
import { frameNote, json, makeTemplatePreview, type ShownPreview, shownPreview } from "./template-preview.js"
import { knownZone } from "./segment-builder.js"
import type { DashboardTexts } from "./texts.js"

/**
 * Campaigns: the list with each one's state and figures; the composer, where a draft is written
 * (its kind, a template or its own content, an audience of tags or a segment whose recipients are
 * counted as it changes, and a time to send in the viewer's zone), with the template editor's
 * preview of its subject, HTML and text body for a chosen subscriber; sending after a confirmation
 * that names how many it reaches; its progress followed live while it sends; and afterwards its
 * figures, with a chart over time. Cancel, retry and duplicate go through the same use cases as
 * the API, whose refusals are shown in the viewer's language.
 */

/** Campaigns a page of the list. */
const PER_PAGE = 50
const TIME_ZONE_COOKIE = "roster_tz"

const campaignIdOf = Schema.decodeUnknownOption(CampaignId)
const nameOf = Schema.decodeUnknownEither(CampaignName)
const isTagId = Schema.is(TagId)
const segmentIdOf = Schema.decodeUnknownOption(SegmentId)
const templateIdOf = Schema.decodeUnknownOption(TemplateId)

type Texts = DashboardTexts["campaigns"]

const zoneOf = (request: HttpServerRequest.HttpServerRequest) => {
  const value = request.cookies[TIME_ZONE_COOKIE]
  try {
    return knownZone(value === undefined ? undefined : decodeURIComponent(value))
  } catch {
    return "UTC"
  }
}

const languageOf = (locale: Locale) => locale === "de" ? "de-DE" : "en-US"

/** A number as the viewer's language writes it: 1,234 or 1.234. */
const numberIn = (locale: Locale, n: number) => n.toLocaleString(languageOf(locale))

/** An instant as the viewer reads it, in their zone. */
const timeIn = (locale: Locale, zone: string, at: Date) =>
  new Intl.DateTimeFormat(languageOf(locale), { dateStyle: "medium", timeStyle: "short", timeZone: zone }).format(at)

/** An instant as a `datetime-local` field of the zone shows it: `2026-12-24T09:00`. */
const wallTimeIn = (zone: string, at: Date) => {
  const parts: Record<string, string> = {}
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit"
  })
  for (const part of format.formatToParts(at)) parts[part.type] = part.value
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`
}

/** The instant a `datetime-local` value names in the zone (`2026-12-24T09:00`, or with a space), or none. */
const instantOfField = (value: string, zone: string): Option.Option<Date> => {
  const match = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})$/.exec(value)
  if (match === null) return Option.none()
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number]
  const check = new Date(Date.UTC(year, month - 1, day, hour, minute))
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59) return Option.none()
  return Option.some(instantOfWallTime({ year, month, day, hour, minute }, zone))
}

/** What the composer's fields hold, as typed: shown again beside a refusal. */
interface ComposerValues {
  readonly name: string
  readonly kind: MessageKind
  readonly content: "template" | "own"
  readonly templateId: string
  readonly subject: string
  readonly html: string
  readonly text: string
  readonly audience: "tags" | "segment"
  readonly tagIds: ReadonlyArray<string>
  readonly segmentId: string
  readonly excludeTagIds: ReadonlyArray<string>
  readonly scheduledAt: string
  /** The address of the subscriber the preview is for; none for a sample one. */
  readonly previewEmail: string
}

const blankValues: ComposerValues = {
  name: "",
  kind: "marketing",
  content: "own",
  templateId: "",
  subject: "",
  html: "",
  text: "",
  audience: "tags",
  tagIds: [],
  segmentId: "",
  excludeTagIds: [],
  scheduledAt: "",
  previewEmail: ""
}

const valuesOf = (form: FormFields): ComposerValues => ({
  name: field(form, "name"),
  kind: field(form, "kind") === "transactional" ? "transactional" : "marketing",
  content: field(form, "content") === "template" ? "template" : "own",
  templateId: field(form, "template_id"),
  subject: field(form, "subject"),
  html: form.get("html")?.[0] ?? "",
  text: form.get("text")?.[0] ?? "",
  audience: field(form, "audience") === "segment" ? "segment" : "tags",
  tagIds: form.get("tag_ids") ?? [],
  segmentId: field(form, "segment_id"),
  excludeTagIds: form.get("exclude_tag_ids") ?? [],
  scheduledAt: field(form, "scheduled_at"),
  previewEmail: field(form, "preview_email")
})

const valuesOfCampaign = (campaign: Campaign, zone: string, previewEmail = ""): ComposerValues => ({
  name: campaign.name,
  kind: campaign.kind,
  content: campaign.templateId !== null ? "template" : "own",
  templateId: campaign.templateId ?? "",
  subject: campaign.subject ?? "",
  html: campaign.html ?? "",
  text: campaign.text ?? "",
  audience: campaign.audience.segmentId !== null ? "segment" : "tags",
  tagIds: campaign.audience.tagIds,
  segmentId: campaign.audience.segmentId ?? "",
  excludeTagIds: campaign.audience.excludeTagIds,
  scheduledAt: campaign.scheduledAt === null ? "" : wallTimeIn(zone, campaign.scheduledAt),
  previewEmail
})

/** Whether the page's script asks for JSON rather than a document. */
const asksJson = (request: HttpServerRequest.HttpServerRequest) => (request.headers["accept"] ?? "").includes("application/json")

/** The audience the fields name, or the field whose choice is not one. */
const audienceOf = (values: ComposerValues, t: Texts): Either.Either<AudienceInput, Readonly<Record<string, string>>> => {
  const excludeTagIds = values.excludeTagIds.filter(isTagId)
  if (excludeTagIds.length !== values.excludeTagIds.length) return Either.left({ exclude_tag_ids: t.unknownTag })
  if (values.audience === "segment") {
    const segmentId = segmentIdOf(values.segmentId)
    if (Option.isNone(segmentId)) return Either.left({ segment_id: t.unknownSegment })
    return Either.right({ segmentId: segmentId.value, tagIds: [], excludeTagIds })
  }
  const tagIds = values.tagIds.filter(isTagId)
  if (tagIds.length !== values.tagIds.length) return Either.left({ tag_ids: t.unknownTag })
  return Either.right({ tagIds, excludeTagIds, segmentId: null })
}

/** The fields as the use case takes them, or each field's refusal in the person's words. */
const inputOf = (values: ComposerValues, zone: string, t: Texts): Either.Either<Required<Pick<CampaignChanges, "name" | "kind" | "templateId" | "subject" | "html" | "text" | "audience" | "scheduledAt">>, Readonly<Record<string, string>>> => {
  const errors: Record<string, string> = {}
  const name = nameOf(values.name)
  if (Either.isLeft(name)) errors.name = fill(t.invalidName, { max: MAX_CAMPAIGN_NAME_LENGTH })
  const template = values.content === "template" ? templateIdOf(values.templateId) : Option.none()
  if (values.content === "template" && Option.isNone(template)) errors.template_id = t.chooseTemplate
  const audience = audienceOf(values, t)
  if (Either.isLeft(audience)) Object.assign(errors, audience.left)
  const scheduledAt = values.scheduledAt === "" ? Option.some(null) : instantOfField(values.scheduledAt, zone)
  if (Option.isNone(scheduledAt)) errors.scheduled_at = t.invalidSchedule
  if (Either.isLeft(name) || Either.isLeft(audience) || Option.isNone(scheduledAt) || Object.keys(errors).length > 0) {
    return Either.left(errors)
  }
  const own = (text: string) => values.content === "own" && text !== "" ? text : null
  return Either.right({
    name: name.right,
    kind: values.kind,
    templateId: Option.getOrNull(template),
    subject: own(values.subject),
    html: own(values.html),
    text: own(values.text),
    audience: audience.right,
    scheduledAt: scheduledAt.value
  })
}

/** The composer's field a use case's refusal names (`audience.segment_id` is the segment), else the form's. */
const composerFields: Readonly<Record<string, string>> = {
  name: "name",
  template_id: "template_id",
  subject: "subject",
  html: "html",
  text: "text",
  scheduled_at: "scheduled_at",
  "audience.segment_id": "segment_id",
  "audience.tag_ids": "tag_ids",
  "audience.exclude_tag_ids": "exclude_tag_ids",
  audience: "audience"
}

const errorsOfRefusal = (error: ApplicationError, t: DashboardTexts): Readonly<Record<string, string>> => {
  const refusal = refusalOf(error, t, Object.keys(composerFields))
  const named = error._tag === "InvalidInput" ? composerFields[error.field.replace(/\[.*$/, "")] : undefined
  if (named !== undefined) return { [named]: refusal.text }
  if (error._tag === "ResourceNotFound" && error.resource === "tag") return { tag_ids: t.campaigns.unknownTag }
  if (error._tag === "ResourceNotFound" && error.resource === "template") return { template_id: t.campaigns.chooseTemplate }
  return { form: refusal.text }
}

/** How far a sending has come: emails settled (handed over or not) of those its audience holds. */
const progressOf = (record: CampaignRecord, locale: Locale, t: Texts) => {
  const { stats } = record
  const settled = stats.recipients - stats.queued
  const done = record.campaign.status === "sent"
  const percent = stats.recipients === 0 ? (done ? 100 : 0) : Math.floor((settled / stats.recipients) * 100)
  return {
    status: record.campaign.status,
    statusText: t.statuses[record.campaign.status],
    ended: campaignEnded(record.campaign.status),
    recipients: stats.recipients,
    settled,
    sent: stats.sent,
    failed: stats.failed,
    queued: stats.queued,
    percent,
    text: stats.recipients === 0 && !campaignEnded(record.campaign.status)
      ? t.progressWaiting
      : fill(t.progressText, { settled: numberIn(locale, settled), recipients: numberIn(locale, stats.recipients), percent }),
    figures: {
      recipients: numberIn(locale, stats.recipients),
      sent: numberIn(locale, stats.sent),
      failed: numberIn(locale, stats.failed),
      queued: numberIn(locale, stats.queued)
    }
  }
}

/** The step of a chart in words: 15 minutes, 3 hours, a day. */
const stepIn = (stepMs: number, t: Texts) =>
  stepMs < 3_600_000
    ? fill(t.minutes, { count: stepMs / 60_000 })
    : stepMs === 3_600_000
    ? t.hour
    : stepMs < 86_400_000
    ? fill(t.hours, { count: stepMs / 3_600_000 })
    : stepMs === 86_400_000
    ? t.day
    : t.week

const CHART = { width: 600, height: 200, top: 10 } as const
const charted = ["delivered", "opened", "clicked"] as const

/**
 * The chart of a report: for each step, how many emails had been delivered, opened and clicked by
 * its end (the last's end is now), as lines over the viewBox, and the same figures for the table beside it.
 */
export const chartOfReport = (timeline: NonNullable<CampaignReport["timeline"]>, locale: Locale, zone: string) => {
  const totals = { delivered: 0, opened: 0, clicked: 0 }
  const rows = timeline.steps.map((step) => {
    for (const type of charted) totals[type] += step.counts[type] ?? 0
    // Each row as it stood at its step's end; the last step ends now.
    const end = Math.min(step.at.getTime() + timeline.stepMs, timeline.until.getTime())
    return { label: timeIn(locale, zone, new Date(end)), ...totals }
  })
  const max = Math.max(1, ...rows.map((row) => Math.max(row.delivered, row.opened, row.clicked)))
  const x = (i: number) => Math.round((i / (rows.length - 1)) * CHART.width * 10) / 10
  const y = (n: number) => Math.round((CHART.height - (n / max) * (CHART.height - CHART.top)) * 10) / 10
  return {
    width: CHART.width,
    height: CHART.height,
    max: numberIn(locale, max),
    lines: charted.map((type) => ({
      type,
      // One step alone is drawn across the whole width.
      points: rows.length === 1
        ? `0,${y(rows[0]![type])} ${CHART.width},${y(rows[0]![type])}`
        : rows.map((row, i) => `${x(i)},${y(row[type])}`).join(" ")
    })),
    rows: rows.map((row) => ({
      label: row.label,
      delivered: numberIn(locale, row.delivered),
      opened: numberIn(locale, row.opened),
      clicked: numberIn(locale, row.clicked)
    }))
  }
}

export const makeCampaignsScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const campaigns = yield* Campaigns
    const tags = yield* Tags
    const segments = yield* Segments
    const templates = yield* Templates
    const preview = yield* makeTemplatePreview

    const listPath = (workspace: Workspace) => `${workspace.base}/campaigns`
    const pathOf = (workspace: Workspace, id: string) => `${listPath(workspace)}/${id}`

    const refused = (workspace: Workspace, error: ApplicationError, back?: string) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: back ?? listPath(workspace)
      }, { status: refusal.status, menu: "campaigns" })
    }

    /** What the composer offers: the organization's tags, segments and templates. */
    const choices = (workspace: Workspace) =>
      Effect.all([
        tags.list(workspace.principal, { sort: "name", order: "asc", limit: 1_000 }),
        segments.list(workspace.principal, { limit: 100 }),
        templates.list(workspace.principal, { limit: 100 })
      ], { concurrency: 3 }).pipe(
        Effect.map(([tagPage, segmentPage, templatePage]) => ({
          tags: tagPage.items.map((tag) => ({ id: tag.id, name: tag.name })),
          segments: segmentPage.items.map((segment) => ({ id: segment.id, name: segment.name })),
          templates: templatePage.items.map((template) => ({ id: template.id, name: template.name }))
        }))
      )

    /** How many the audience of the fields reaches now, or why it cannot be counted. */
    const countOf = (workspace: Workspace, values: ComposerValues) => {
      const t = workspace.t.campaigns
      const audience = audienceOf(values, t)
      if (Either.isLeft(audience)) return Effect.succeed({ count: undefined, problem: Object.values(audience.left)[0] })
      return campaigns.countAudience(workspace.principal, { kind: values.kind, audience: audience.right }).pipe(
        Effect.map((count) => ({
          count: count === 1 ? t.countOne : fill(t.countMany, { count: numberIn(workspace.locale, count) }),
          problem: undefined
        })),
        Effect.catchAll((error) =>
          error._tag === "InvalidInput" || error._tag === "ResourceNotFound"
            ? Effect.succeed({ count: undefined, problem: refusalOf(error, workspace.t).text })
            : Effect.fail(error)
        )
      )
    }

    /**
     * What the campaign's emails are made of, as the fields name it: its template's parts (through
     * the templates use case, as the template editor reads them), or its own; else why there is
     * nothing to preview.
     */
    const contentOf = (
      workspace: Workspace,
      values: ComposerValues
    ): Effect.Effect<Either.Either<EmailTemplateSource, string>, ApplicationError> => {
      const t = workspace.t.campaigns
      if (values.content === "template") {
        const id = templateIdOf(values.templateId)
        if (Option.isNone(id)) return Effect.succeed(Either.left(t.chooseTemplate))
        return templates.get(workspace.principal, id.value).pipe(
          Effect.map((template) => Either.right({ subject: template.subject, html: template.html, text: template.text }))
        )
      }
      const own = (text: string) => text.trim() === "" ? null : text
      if (values.subject.trim() === "") return Effect.succeed(Either.left(t.previewNoSubject))
      return Effect.succeed(Either.right({ subject: values.subject, html: own(values.html), text: own(values.text) }))
    }

    /** The HTML body the fields make, rendered for the preview's subscriber (and the campaign's `data`) into the frame's document. */
    const frameOf = (workspace: Workspace, values: ComposerValues, data?: Readonly<Record<string, unknown>>) =>
      contentOf(workspace, values).pipe(
        Effect.flatMap(Either.match({
          onLeft: (note) => Effect.succeed(frameNote(workspace, note)),
          onRight: (source) => preview.frame(workspace, source, values.previewEmail, data, { tellProblem: true })
        })),
        Effect.catchAll((error) => Effect.succeed(frameNote(workspace, refusalOf(error, workspace.t).text)))
      )

    /**
     * The preview of what the fields make as the page shows it beside the frame (what it is for,
     * the rendered subject and text body), or why there is nothing to show.
     */
    const shownOf = (workspace: Workspace, values: ComposerValues, data?: Readonly<Record<string, unknown>>) =>
      contentOf(workspace, values).pipe(
        Effect.flatMap(Either.match({
          onLeft: (note): Effect.Effect<ShownPreview, ApplicationError> => Effect.succeed({ note }),
          onRight: (source) =>
            preview.examine(workspace, source, values.previewEmail, { data }).pipe(
              Effect.map((examined) => shownPreview(workspace, examined, { tellProblem: true }))
            )
        })),
        Effect.catchAll((error) => Effect.succeed<ShownPreview>({ note: refusalOf(error, workspace.t).text }))
      )

    /**
     * A preview route's answer: the frame's document, or, when the page's script asks for JSON,
     * the subject and text body it shows beside the frame.
     */
    const previewOf = (
      workspace: Workspace,
      request: HttpServerRequest.HttpServerRequest,
      values: ComposerValues,
      data?: Readonly<Record<string, unknown>>
    ) =>
      asksJson(request)
        ? shownOf(workspace, values, data).pipe(Effect.map((shown) => json({ preview: shown })))
        : frameOf(workspace, values, data)

    /**
     * The preview of the campaign the path names, with the fields `valuesFor` gives and the
     * campaign's `data`; a campaign that is not there, or a refusal, said in the frame (or as JSON).
     */
    const framedCampaign = (
      workspace: Workspace,
      request: HttpServerRequest.HttpServerRequest,
      valuesFor: (campaign: Campaign) => ComposerValues
    ) => {
      const said = (status: number, text: string) => asksJson(request) ? json({ error: text }, status) : frameNote(workspace, text)
      return Effect.gen(function*() {
        const { campaign_id } = yield* HttpRouter.params
        const id = campaignIdOf(campaign_id)
        if (Option.isNone(id)) return said(404, workspace.t.refusal.notFound)
        const { campaign } = yield* campaigns.get(workspace.principal, id.value)
        return yield* previewOf(workspace, request, valuesFor(campaign), campaign.data)
      }).pipe(Effect.catchAll((error) => {
        const refusal = refusalOf(error, workspace.t)
        return Effect.succeed(said(refusal.status, refusal.text))
      }))
    }

    /** The composer: a new campaign's, or a draft's (or a scheduled one's) on its own page. */
    const composerPage = (
      workspace: Workspace,
      zone: string,
      scope: {
        readonly record?: CampaignRecord
        readonly values: ComposerValues
        readonly errors?: Readonly<Record<string, string>>
        readonly status?: number
      }
    ) =>
      Effect.gen(function*() {
        const offered = yield* choices(workspace)
        const counted = yield* countOf(workspace, scope.values)
        const campaign = scope.record?.campaign
        const shown = yield* shownOf(workspace, scope.values, campaign?.data)
        const values = {
          ...scope.values,
          // A segment or template chosen before it was deleted stays chosen, and is refused by name.
          segmentId: scope.values.segmentId,
          templateId: scope.values.templateId
        }
        return page(assets, workspace, campaign === undefined ? "campaign-new" : "campaign", {
          ...offered,
          ...(campaign === undefined ? {} : summaryOf(workspace, zone, scope.record!)),
          values,
          errors: scope.errors ?? {},
          counted,
          zone,
          kinds: ["marketing", "transactional"],
          templatePath: `${workspace.base}/templates`,
          action: campaign === undefined ? `${listPath(workspace)}/new` : pathOf(workspace, campaign.id),
          countAction: `${listPath(workspace)}/count`,
          previewAction: campaign === undefined ? `${listPath(workspace)}/preview` : `${pathOf(workspace, campaign.id)}/preview`,
          searchAction: `${listPath(workspace)}/subscribers`,
          preview: shown,
          // A saved campaign's content shows in the frame at once; a new one's (or one refused) when previewed.
          frameSrc: campaign === undefined || scope.status !== undefined
            ? ""
            : `${pathOf(workspace, campaign.id)}/preview${scope.values.previewEmail === "" ? "" : `?email=${encodeURIComponent(scope.values.previewEmail)}`}`,
          testAction: campaign === undefined ? undefined : `${pathOf(workspace, campaign.id)}/test`,
          back: listPath(workspace)
        }, { status: scope.status ?? 200, menu: "campaigns", frameSrc: "'self'" })
      })

    /** What every campaign's page shows at its head: its name, state, times and the actions its state allows. */
    const summaryOf = (workspace: Workspace, zone: string, record: CampaignRecord) => {
      const { campaign } = record
      const t = workspace.t.campaigns
      const at = (date: Date | null) => date === null ? undefined : { iso: date.toISOString(), text: timeIn(workspace.locale, zone, date) }
      const path = pathOf(workspace, campaign.id)
      return {
        campaign: {
          id: campaign.id,
          name: campaign.name,
          status: campaign.status,
          statusText: t.statuses[campaign.status],
          kindText: t.kinds[campaign.kind],
          editable: campaign.status === "draft" || campaign.status === "scheduled",
          scheduledAt: at(campaign.scheduledAt),
          startedAt: at(campaign.startedAt),
          finishedAt: at(campaign.finishedAt),
          failureReason: campaign.failureReason ?? "",
          sandboxed: campaign.sandboxed
        },
        actions: {
          send: campaign.status === "draft" ? `${path}/send` : "",
          cancel: campaign.status === "scheduled" || campaign.status === "sending" ? `${path}/cancel` : "",
          retry: campaign.status === "failed" ? `${path}/retry` : "",
          duplicate: `${path}/duplicate`
        },
        progress: progressOf(record, workspace.locale, t),
        poll: `${path}/progress`,
        refresh: path
      }
    }

    /** A campaign that has started: its progress while it sends, and its figures. */
    const reportPage = (workspace: Workspace, zone: string, report: CampaignReport) => {
      const { stats } = report
      const number = (n: number) => numberIn(workspace.locale, n)
      return page(assets, workspace, "campaign-report", {
        ...summaryOf(workspace, zone, report),
        figures: [
          { key: "delivered", value: number(stats.delivered) },
          { key: "opened", value: number(stats.opened) },
          { key: "clicked", value: number(stats.clicked) },
          { key: "bounced", value: number(stats.bounced) },
          { key: "complained", value: number(stats.complained) },
          { key: "unsubscribed", value: number(report.unsubscribed) }
        ],
        chart: report.timeline === null || report.timeline.steps.length === 0
          ? undefined
          : chartOfReport(report.timeline, workspace.locale, zone),
        step: report.timeline === null ? "" : stepIn(report.timeline.stepMs, workspace.t.campaigns),
        zone,
        back: listPath(workspace)
      }, { menu: "campaigns" })
    }

    /** The campaign the path names as `read` tells it, or the page that says it is not there. */
    const withCampaignRead = <A extends CampaignRecord>(
      workspace: Workspace,
      read: (principal: Workspace["principal"], id: CampaignId) => Effect.Effect<A, ApplicationError>,
      f: (record: A) => Effect.Effect<HttpServerResponse.HttpServerResponse, ApplicationError>
    ) =>
      Effect.gen(function*() {
        const { campaign_id } = yield* HttpRouter.params
        const id = campaignIdOf(campaign_id)
        if (Option.isNone(id)) return page(assets, workspace, "not-found", {}, { status: 404, menu: "campaigns" })
        return yield* read(workspace.principal, id.value).pipe(Effect.flatMap(f))
      }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))

    /** The campaign the path names, or the page that says it is not there. */
    const withCampaign = (
      workspace: Workspace,
      f: (record: CampaignRecord) => Effect.Effect<HttpServerResponse.HttpServerResponse, ApplicationError>
    ) => withCampaignRead(workspace, campaigns.get, f)

    /** An action on the campaign (cancel, retry, duplicate) and where it leads, or its refusal. */
    const act = (
      workspace: Workspace,
      run: (id: CampaignId) => Effect.Effect<CampaignRecord, ApplicationError>,
      done: (before: Campaign, after: Campaign) => { readonly path: string; readonly text: string }
    ) =>
      withCampaign(workspace, ({ campaign }) =>
        run(campaign.id).pipe(
          Effect.map((after) => {
            const next = done(campaign, after.campaign)
            return redirect(next.path, { kind: "ok", text: next.text })
          }),
          Effect.catchAll((error) => Effect.succeed(refused(workspace, error, pathOf(workspace, campaign.id))))
        ))

    return {
      routes: [
        {
          method: "GET",
          path: "/campaigns",
          handle: (workspace, request) =>
            Effect.gen(function*() {
              const zone = zoneOf(request)
              const t = workspace.t.campaigns
              const found = yield* campaigns.listPage(workspace.principal, { page: pageNumberOf(request), perPage: PER_PAGE })
              const number = (n: number) => numberIn(workspace.locale, n)
              return page(assets, workspace, "campaigns", {
                campaigns: found.items.map(({ campaign, stats }) => {
                  const when = campaign.finishedAt ?? campaign.startedAt ?? campaign.scheduledAt
                  return {
                    id: campaign.id,
                    name: campaign.name,
                    status: campaign.status,
                    statusText: t.statuses[campaign.status],
                    when: when === null ? undefined : { iso: when.toISOString(), text: timeIn(workspace.locale, zone, when) },
                    sent: number(stats.sent),
                    opened: number(stats.opened),
                    clicked: number(stats.clicked)
                  }
                }),
                total: found.total,
                ...pagerOf(listPath(workspace), found),
                newAction: `${listPath(workspace)}/new`
              }, { menu: "campaigns" })
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/campaigns/new",
          handle: (workspace, request) =>
            composerPage(workspace, zoneOf(request), { values: blankValues }).pipe(
              Effect.catchAll((error) => Effect.succeed(refused(workspace, error)))
            )
        },
        {
          method: "POST",
          path: "/campaigns/new",
          handle: (workspace, request, form) =>
            Effect.gen(function*() {
              const zone = zoneOf(request)
              const values = valuesOf(form)
              if (field(form, "intent") === "count") return yield* composerPage(workspace, zone, { values })
              const input = inputOf(values, zone, workspace.t.campaigns)
              if (Either.isLeft(input)) return yield* composerPage(workspace, zone, { values, errors: input.left, status: 400 })
              return yield* campaigns.create(workspace.principal, input.right).pipe(
                Effect.map(({ campaign }) =>
                  redirect(pathOf(workspace, campaign.id), {
                    kind: "ok",
                    text: fill(workspace.t.campaigns.created_, { name: campaign.name })
                  })
                ),
                Effect.catchAll((error) =>
                  composerPage(workspace, zone, {
                    values,
                    errors: errorsOfRefusal(error, workspace.t),
                    status: refusalOf(error, workspace.t).status
                  })
                )
              )
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "POST",
          path: "/campaigns/count",
          handle: (workspace, _request, form) =>
            countOf(workspace, valuesOf(form)).pipe(
              Effect.map((counted) => fragment(assets, workspace, "campaign-count", { counted })),
              Effect.catchAll((error) => Effect.succeed(refused(workspace, error)))
            )
        },
        {
          method: "POST",
          path: "/campaigns/preview",
          handle: (workspace, request, form) => previewOf(workspace, request, valuesOf(form))
        },
        {
          method: "GET",
          path: "/campaigns/subscribers",
          handle: (workspace, request) => preview.suggestions(workspace, queryOf(request, "q"))
        },
        {
          method: "GET",
          path: "/campaigns/:campaign_id/preview",
          handle: (workspace, request) =>
            framedCampaign(workspace, request, (campaign) => valuesOfCampaign(campaign, "UTC", queryOf(request, "email")))
        },
        {
          method: "POST",
          path: "/campaigns/:campaign_id/preview",
          handle: (workspace, request, form) => framedCampaign(workspace, request, () => valuesOf(form))
        },
        {
          method: "POST",
          path: "/campaigns/:campaign_id/test",
          handle: (workspace) =>
            withCampaign(workspace, ({ campaign }) => {
              const back = pathOf(workspace, campaign.id)
              const scope = { name: campaign.name, back, data: campaign.data }
              if (campaign.templateId !== null) return preview.testSend(workspace, { templateId: campaign.templateId }, scope)
              if (campaign.subject === null) {
                return Effect.succeed(redirect(back, { kind: "error", text: workspace.t.campaigns.previewNoSubject }))
              }
              return preview.testSend(workspace, { source: { subject: campaign.subject, html: campaign.html, text: campaign.text } }, scope)
            })
        },
        {
          method: "GET",
          path: "/campaigns/:campaign_id",
          handle: (workspace, request) =>
            // The report holds the campaign's record: a draft's or a scheduled one's opens the composer.
            withCampaignRead(workspace, campaigns.report, (report) => {
              const zone = zoneOf(request)
              if (report.campaign.status === "draft" || report.campaign.status === "scheduled") {
                return composerPage(workspace, zone, { record: report, values: valuesOfCampaign(report.campaign, zone, queryOf(request, "email")) })
              }
              return Effect.succeed(reportPage(workspace, zone, report))
            })
        },
        {
          method: "POST",
          path: "/campaigns/:campaign_id",
          handle: (workspace, request, form) =>
            withCampaign(workspace, (record): Effect.Effect<HttpServerResponse.HttpServerResponse, ApplicationError> => {
              const zone = zoneOf(request)
              const values = valuesOf(form)
              if (field(form, "intent") === "count") return composerPage(workspace, zone, { record, values })
              const input = inputOf(values, zone, workspace.t.campaigns)
              if (Either.isLeft(input)) return composerPage(workspace, zone, { record, values, errors: input.left, status: 400 })
              return campaigns.update(workspace.principal, record.campaign.id, input.right).pipe(
                Effect.map(({ campaign }) =>
                  redirect(pathOf(workspace, campaign.id), { kind: "ok", text: fill(workspace.t.campaigns.saved, { name: campaign.name }) })
                ),
                Effect.catchAll((error): Effect.Effect<HttpServerResponse.HttpServerResponse, ApplicationError> =>
                  error._tag === "ResourceNotFound" && error.resource === "campaign"
                    ? Effect.fail(error)
                    : composerPage(workspace, zone, {
                      record,
                      values,
                      errors: errorsOfRefusal(error, workspace.t),
                      status: refusalOf(error, workspace.t).status
                    })
                )
              )
            })
        },
        {
          method: "GET",
          path: "/campaigns/:campaign_id/progress",
          handle: (workspace) =>
            withCampaign(workspace, (record) =>
              Effect.succeed(HttpServerResponse.unsafeJson(progressOf(record, workspace.locale, workspace.t.campaigns), {
                headers: { "Cache-Control": "no-store" }
              })))
        },
        {
          method: "GET",
          path: "/campaigns/:campaign_id/send",
          handle: (workspace, request) =>
            withCampaign(workspace, (record) => confirmPage(workspace, zoneOf(request), record))
        },
        {
          method: "POST",
          path: "/campaigns/:campaign_id/send",
          handle: (workspace, request) =>
            withCampaign(workspace, (record) =>
              campaigns.send(workspace.principal, record.campaign.id).pipe(
                Effect.map(({ campaign }) =>
                  redirect(pathOf(workspace, campaign.id), {
                    kind: "ok",
                    text: fill(campaign.status === "scheduled" ? workspace.t.campaigns.scheduled_ : workspace.t.campaigns.sending_, {
                      name: campaign.name
                    })
                  })
                ),
                Effect.catchAll((error): Effect.Effect<HttpServerResponse.HttpServerResponse, ApplicationError> =>
                  error._tag === "CampaignStateConflict" || (error._tag === "ResourceNotFound" && error.resource === "campaign")
                    ? Effect.succeed(refused(workspace, error, pathOf(workspace, record.campaign.id)))
                    : confirmPage(workspace, zoneOf(request), record, error)
                )
              ))
        },
        {
          method: "POST",
          path: "/campaigns/:campaign_id/cancel",
          handle: (workspace) =>
            act(workspace, (id) => campaigns.cancel(workspace.principal, id), (campaign) => ({
              path: pathOf(workspace, campaign.id),
              text: fill(workspace.t.campaigns.cancelled_, { name: campaign.name })
            }))
        },
        {
          method: "POST",
          path: "/campaigns/:campaign_id/retry",
          handle: (workspace) =>
            act(workspace, (id) => campaigns.retry(workspace.principal, id), (campaign) => ({
              path: pathOf(workspace, campaign.id),
              text: fill(workspace.t.campaigns.retried, { name: campaign.name })
            }))
        },
        {
          method: "POST",
          path: "/campaigns/:campaign_id/duplicate",
          handle: (workspace) =>
            act(workspace, (id) => campaigns.duplicate(workspace.principal, id), (_, copy) => ({
              path: pathOf(workspace, copy.id),
              text: fill(workspace.t.campaigns.duplicated, { name: copy.name })
            }))
        }
      ]
    } satisfies Screen

    /** The confirmation before sending: how many it reaches now, and when it goes; or why it cannot go. */
    function confirmPage(
      workspace: Workspace,
      zone: string,
      record: CampaignRecord,
      refusal?: ApplicationError
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, ApplicationError> {
      const t = workspace.t.campaigns
      return Effect.gen(function*() {
        const { campaign } = record
        if (campaign.status !== "draft") {
          return redirect(pathOf(workspace, campaign.id))
        }
        const counted = yield* Effect.either(campaigns.countRecipients(workspace.principal, campaign.id))
        const count = Either.getOrElse(counted, () => 0)
        const problem = refusal !== undefined
          ? refusalOf(refusal, workspace.t).text
          : Either.isLeft(counted)
          ? refusalOf(counted.left, workspace.t).text
          : undefined
        const question = campaign.scheduledAt !== null
          ? fill(t.scheduleAsk, { at: timeIn(workspace.locale, zone, campaign.scheduledAt), count: numberIn(workspace.locale, count) })
          : count === 1
          ? t.sendNowOne
          : fill(t.sendNow, { count: numberIn(workspace.locale, count) })
        return page(assets, workspace, "campaign-send", {
          campaign: { id: campaign.id, name: campaign.name },
          question,
          problem,
          scheduled: campaign.scheduledAt !== null,
          action: `${pathOf(workspace, campaign.id)}/send`,
          cancel: pathOf(workspace, campaign.id)
        }, { status: refusal === undefined ? 200 : refusalOf(refusal, workspace.t).status, menu: "campaigns" })
      })
    }
  })
