import {
  activityWindow,
  Campaign,
  type CampaignAction,
  campaignActionFrom,
  CampaignId,
  CampaignStateConflict,
  campaignStats,
  type CampaignStats,
  type CampaignStatus,
  duplicateName,
  InvalidInput,
  MAX_AUDIENCE_TAGS,
  type MessageEventType,
  type MessageKind,
  messageKindOr,
  PlanLimitExceeded,
  reason,
  ResourceNotFound,
  scheduleProblem,
  type SegmentId,
  type TagId,
  type TemplateId,
  transitionCampaign,
  usageMonth
} from "@roster/domain"
import { Effect, Either, Option } from "effect"
import { CampaignRepository } from "./ports/campaign-repository.js"
import { EmailUsage } from "./ports/email-usage.js"
import { Ids } from "./ports/ids.js"
import { MessageRepository } from "./ports/message-repository.js"
import { OutgoingMail } from "./ports/outgoing-mail.js"
import { SegmentRepository } from "./ports/segment-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { TagRepository } from "./ports/tag-repository.js"
import { TemplateEngine } from "./ports/template-engine.js"
import { WorkSignal } from "./ports/work-signal.js"
import { TemplateRepository } from "./ports/template-repository.js"
import { makeAudienceOf } from "./support/campaign-audience.js"
import { makeCampaignSendout, requireTemplate } from "./support/campaign-content.js"
import { now } from "./support/clock.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { numberedPage, type PageNumberRequest, pageWindow } from "./support/page-numbers.js"
import { authorize, type Principal } from "./support/principal.js"
import { requireFound } from "./support/ownership.js"
import { Limits } from "./support/limits.js"
import { operations } from "./support/operation.js"

/**
 * Who a campaign reaches: a segment, or tags (never both), less excluded tags. In a change, naming
 * a segment drops the tags and naming tags drops the segment, unless both are named.
 */
export interface AudienceInput {
  readonly tagIds?: ReadonlyArray<TagId> | undefined
  readonly excludeTagIds?: ReadonlyArray<TagId> | undefined
  /** `null` removes the segment. */
  readonly segmentId?: SegmentId | null | undefined
}

export interface NewCampaign {
  readonly name: string
  /** Marketing when left out. */
  readonly kind?: MessageKind | undefined
  /** A template of the organization, or `subject` with `html` and/or `text` given here (Liquid). */
  readonly templateId?: TemplateId | null | undefined
  readonly subject?: string | null | undefined
  readonly html?: string | null | undefined
  readonly text?: string | null | undefined
  readonly audience?: AudienceInput | undefined
  readonly data?: Readonly<Record<string, unknown>> | undefined
  /** When to send, once `send` is asked; now when null or left out. */
  readonly scheduledAt?: Date | null | undefined
}

/** What a send may be told besides the campaign. */
export interface CampaignSendOptions {
  /** Schedules the campaign for this time instead of its own `scheduledAt`; it must lie ahead, within a year. */
  readonly scheduledAt?: Date | undefined
}

/** Fields left out stay as they are. Naming a template drops the campaign's own content, and the reverse. */
export type CampaignChanges = Partial<NewCampaign>

/** A campaign's figures after sending: its record, its unsubscribes, and its emails' events over time. */
export interface CampaignReport extends CampaignRecord {
  readonly unsubscribed: number
  /** Empty for a campaign that never started. */
  readonly timeline: {
    readonly since: Date
    /** When the report was made: the last step ends here or later. */
    readonly until: Date
    readonly stepMs: number
    /** One a step of the window, in order: how many emails first had each event then. */
    readonly steps: ReadonlyArray<{ readonly at: Date; readonly counts: Readonly<Partial<Record<MessageEventType, number>>> }>
  } | null
}

/** A campaign with its figures. */
export interface CampaignRecord {
  readonly campaign: Campaign
  readonly stats: CampaignStats
}

const LIST_SORT = "created_at"

/**
 * A campaign's audience after a change: fields left out stay, except that naming a segment drops
 * the tags to reach and naming tags to reach drops the segment (the two never go together), unless
 * the change names both, which the checks refuse.
 */
const changedAudience = (current: Campaign["audience"], given: AudienceInput | undefined): Campaign["audience"] => {
  if (given === undefined) return current
  const namingSegment = given.segmentId !== undefined && given.segmentId !== null
  const namingTags = given.tagIds !== undefined && given.tagIds.length > 0
  return {
    tagIds: given.tagIds ?? (namingSegment ? [] : current.tagIds),
    excludeTagIds: given.excludeTagIds ?? current.excludeTagIds,
    segmentId: given.segmentId !== undefined ? given.segmentId : namingTags ? null : current.segmentId
  }
}

/**
 * Campaigns: written as drafts, sent now or at a set time, cancelled, retried and duplicated. The
 * state of a campaign moves only as the transition table of the domain allows, each move one
 * conditional write, so that of two sends of one campaign exactly one starts it. The worker does
 * the sending ({@link CampaignSending}).
 */
export class Campaigns extends Effect.Service<Campaigns>()("roster/Campaigns", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const campaigns = yield* CampaignRepository
    const messages = yield* MessageRepository
    const outgoing = yield* OutgoingMail
    const unitOfWork = yield* UnitOfWork
    const tags = yield* TagRepository
    const usage = yield* EmailUsage
    const limits = yield* Limits
    const engine = yield* TemplateEngine
    const signal = yield* WorkSignal
    const ids = yield* Ids
    const sendoutOf = yield* makeCampaignSendout
    const audienceOf = yield* makeAudienceOf
    const templates = yield* TemplateRepository
    const segments = yield* SegmentRepository

    // Another organization's campaign is not found, as its template and tags are: nothing of it is told.
    const owned = (principal: Principal, id: CampaignId) =>
      requireFound("campaign", id, campaigns.findById(principal.organization.id, id))

    const withStats = (items: ReadonlyArray<Campaign>) =>
      Effect.map(messages.campaignStats(items.map((c) => c.id)), (stats) =>
        items.map((campaign): CampaignRecord => ({ campaign, stats: campaignStats(stats.get(campaign.id) ?? {}) })))

    const record = (campaign: Campaign) => Effect.map(withStats([campaign]), (records) => records[0]!)

    /** The state `action` moves the campaign to, or the conflict, in the words of the client's `asked`. */
    const nextStatus = (campaign: Campaign, action: CampaignAction, asked: string = action) =>
      Either.match(transitionCampaign(campaign, action, asked), {
        onLeft: (conflict) => Effect.fail(conflict),
        onRight: (status) => Effect.succeed(status)
      })

    /** A move lost to another request: the conflict as the campaign is now. */
    const conflict = (campaign: Campaign, action: CampaignAction, asked: string = action) =>
      new CampaignStateConflict({
        id: campaign.id,
        status: campaign.status,
        action: asked,
        allowed: campaignActionFrom(action)
      })

    /**
     * The audience's tags, each one of the organization's (another organization's is not found), none
     * twice; its segment, one of the organization's (another organization's is a 400 as a deleted
     * one is), never beside tags to reach.
     */
    const checkAudience = (principal: Principal, audience: Campaign["audience"]) =>
      Effect.gen(function*() {
        if (audience.segmentId !== null) {
          if (audience.tagIds.length > 0) {
            return yield* new InvalidInput({ field: "audience.segment_id", reason: reason("audienceSegmentOrTags") })
          }
          if (Option.isNone(yield* segments.findById(principal.organization.id, audience.segmentId))) {
            return yield* new InvalidInput({
              field: "audience.segment_id",
              reason: reason("noSegmentWithId", { id: audience.segmentId })
            })
          }
        }
        for (const [field, list] of [["audience.tag_ids", audience.tagIds], ["audience.exclude_tag_ids", audience.excludeTagIds]] as const) {
          if (list.length > MAX_AUDIENCE_TAGS) {
            return yield* new InvalidInput({ field, reason: reason("audienceTooManyTags", { max: MAX_AUDIENCE_TAGS }) })
          }
          if (new Set(list).size !== list.length) return yield* new InvalidInput({ field, reason: reason("audienceTagTwice") })
        }
        const both = audience.tagIds.find((id) => audience.excludeTagIds.includes(id))
        if (both !== undefined) {
          return yield* new InvalidInput({ field: "audience.exclude_tag_ids", reason: reason("audienceTagExcluded", { id: both }) })
        }
        const named = [...audience.tagIds, ...audience.excludeTagIds]
        if (named.length === 0) return
        const found = yield* tags.findByIds(principal.organization.id, named)
        const known = new Set(found.map((tag) => tag.id as string))
        const missing = named.find((id) => !known.has(id))
        if (missing !== undefined) return yield* new ResourceNotFound({ resource: "tag", id: missing })
      })

    /** The content rules: a template of the organization, or a subject with a body, checked as templates are. */
    const checkContent = (principal: Principal, campaign: Campaign) =>
      Effect.gen(function*() {
        const inline = campaign.subject !== null || campaign.html !== null || campaign.text !== null
        if (campaign.templateId !== null) {
          if (inline) {
            return yield* new InvalidInput({
              field: "template_id",
              reason: reason("templateOrContent")
            })
          }
          yield* requireTemplate(templates, principal.organization.id, campaign.templateId)
          return
        }
        if (campaign.subject === null) {
          return yield* new InvalidInput({ field: "subject", reason: reason("subjectRequired") })
        }
        if (campaign.html === null && campaign.text === null) {
          return yield* new InvalidInput({ field: "html", reason: reason("bodyRequired") })
        }
        yield* engine.check({ subject: campaign.subject, html: campaign.html, text: campaign.text })
      })

    const checkSchedule = (scheduledAt: Date | null, at: Date) => {
      const problem = scheduledAt === null ? null : scheduleProblem(scheduledAt, at)
      return problem === null ? Effect.void : Effect.fail(new InvalidInput({ field: "scheduled_at", reason: problem }))
    }

    const check = (principal: Principal, campaign: Campaign, at: Date) =>
      Effect.all([
        checkContent(principal, campaign),
        checkAudience(principal, campaign.audience),
        checkSchedule(campaign.scheduledAt, at)
      ], { discard: true })

    const create = operation("Campaigns.create")(function*(principal: Principal, input: NewCampaign) {
      yield* authorize(principal, "campaigns:write")
      const at = yield* now
      const campaign = new Campaign({
        id: CampaignId.make(yield* ids.next),
        organizationId: principal.organization.id,
        name: input.name,
        kind: messageKindOr(input.kind),
        templateId: input.templateId ?? null,
        subject: input.subject ?? null,
        html: input.html ?? null,
        text: input.text ?? null,
        audience: {
          tagIds: input.audience?.tagIds ?? [],
          excludeTagIds: input.audience?.excludeTagIds ?? [],
          segmentId: input.audience?.segmentId ?? null
        },
        data: input.data ?? {},
        status: "draft",
        scheduledAt: input.scheduledAt ?? null,
        startedAt: null,
        finishedAt: null,
        failureReason: null,
        sandboxed: false,
        createdAt: at,
        updatedAt: at
      })
      yield* check(principal, campaign, at)
      yield* campaigns.insert(campaign)
      return yield* record(campaign)
    })

    const get = operation("Campaigns.get")(function*(principal: Principal, id: CampaignId) {
      yield* authorize(principal, "campaigns:read")
      return yield* record(yield* owned(principal, id))
    })

    /** One page of the organization's campaigns, newest first, optionally of one state. */
    const list = operation("Campaigns.list")(function*(
      principal: Principal,
      query: { readonly limit: number; readonly cursor?: string | undefined; readonly status?: CampaignStatus | undefined }
    ) {
      yield* authorize(principal, "campaigns:read")
      const after = yield* positionFromCursor(query.cursor, LIST_SORT, "desc")
      const filter = { organizationId: principal.organization.id, status: query.status }
      const [rows, total] = yield* Effect.all([
        campaigns.list({ ...filter, limit: query.limit + 1, after }),
        campaigns.count(filter)
      ], { concurrency: 2 })
      const page = cutPage(rows, query.limit, LIST_SORT, "desc", (c) => c.createdAt.toISOString())
      return { items: yield* withStats(page.items), nextCursor: page.nextCursor, total }
    })

    const listPage = operation("Campaigns.listPage")(function*(
      principal: Principal,
      request: PageNumberRequest & { readonly status?: CampaignStatus | undefined }
    ) {
      yield* authorize(principal, "campaigns:read")
      const window = yield* pageWindow(request, [], [])
      const filter = { organizationId: principal.organization.id, status: request.status }
      const [items, total] = yield* Effect.all([
        campaigns.list({ ...filter, limit: window.limit, offset: window.offset }),
        campaigns.count(filter)
      ], { concurrency: 2 })
      return numberedPage(yield* withStats(items), total, request)
    })

    /**
     * Changes a draft or a scheduled campaign. A scheduled campaign whose `scheduled_at` is removed
     * goes back to draft; one given a new time keeps its state.
     */
    const update = operation("Campaigns.update")(function*(principal: Principal, id: CampaignId, changes: CampaignChanges) {
      yield* authorize(principal, "campaigns:write")
      const current = yield* owned(principal, id)
      yield* nextStatus(current, "update")
      const at = yield* now
      const naming = changes.templateId !== undefined && changes.templateId !== null
      const writing = [changes.subject, changes.html, changes.text].some((v) => v !== undefined && v !== null)
      const keep = <A>(given: A | undefined, was: A, dropped: boolean, empty: A) =>
        given !== undefined ? given : dropped ? empty : was
      const scheduledAt = changes.scheduledAt === undefined ? current.scheduledAt : changes.scheduledAt
      const status = yield* nextStatus(
        current,
        current.status === "scheduled" && scheduledAt === null ? "unschedule" : "update",
        "update"
      )
      const next = new Campaign({
        ...current,
        name: changes.name ?? current.name,
        kind: changes.kind ?? current.kind,
        templateId: keep(changes.templateId, current.templateId, writing && !naming, null),
        subject: keep(changes.subject, current.subject, naming && !writing, null),
        html: keep(changes.html, current.html, naming && !writing, null),
        text: keep(changes.text, current.text, naming && !writing, null),
        audience: changedAudience(current.audience, changes.audience),
        data: changes.data ?? current.data,
        scheduledAt,
        status,
        updatedAt: at
      })
      yield* check(principal, next, at)
      if (!(yield* campaigns.save(next, current.status))) {
        return yield* conflict(Option.getOrElse(yield* campaigns.findById(current.organizationId, id), () => current), "update")
      }
      return yield* record(next)
    })

    /** How many subscribers the campaign would reach now: the very query the send takes its audience with. */
    const countRecipients = operation("Campaigns.countRecipients")(function*(principal: Principal, id: CampaignId) {
      yield* authorize(principal, "campaigns:read")
      const campaign = yield* owned(principal, id)
      const audience = yield* audienceOf(campaign, yield* now)
      return yield* campaigns.countAudience(campaign.organizationId, audience, campaign.kind)
    })

    /**
     * How many subscribers an audience not saved yet would reach now, for a campaign of `kind`: the
     * count a composer shows as its audience changes, checked as a saved campaign's audience is.
     */
    const countAudience = operation("Campaigns.countAudience")(function*(
      principal: Principal,
      input: { readonly kind?: MessageKind | undefined; readonly audience: AudienceInput }
    ) {
      yield* authorize(principal, "campaigns:read")
      const audience = changedAudience({ tagIds: [], excludeTagIds: [], segmentId: null }, input.audience)
      yield* checkAudience(principal, audience)
      const organizationId = principal.organization.id
      const selection = yield* audienceOf({ organizationId, audience }, yield* now)
      return yield* campaigns.countAudience(organizationId, selection, messageKindOr(input.kind))
    })

    /**
     * A campaign's figures with what its emails came to over time, from its start to now, and how
     * many of its recipients unsubscribed since.
     */
    const report = operation("Campaigns.report")(function*(principal: Principal, id: CampaignId) {
      yield* authorize(principal, "campaigns:read")
      const campaign = yield* owned(principal, id)
      const startedAt = campaign.startedAt
      if (startedAt === null) return { ...(yield* record(campaign)), unsubscribed: 0, timeline: null } satisfies CampaignReport
      const until = yield* now
      const window = activityWindow(startedAt, until)
      // The counts by status and the events over time are read side by side.
      const [found, activity] = yield* Effect.all([record(campaign), messages.campaignActivity(id, window)], { concurrency: 2 })
      const steps = Array.from({ length: window.buckets }, (_, i) => ({
        at: new Date(startedAt.getTime() + i * window.stepMs),
        counts: {} as Partial<Record<MessageEventType, number>>
      }))
      for (const { bucket, count, type } of activity.timeline) steps[bucket]!.counts[type] = count
      return {
        ...found,
        unsubscribed: activity.unsubscribed,
        timeline: { since: startedAt, until, stepMs: window.stepMs, steps }
      } satisfies CampaignReport
    })

    /**
     * Sends a draft: at the time the send names, else at its `scheduled_at`, or now. Its content must
     * render, its audience must hold someone, and the plan must have emails left this month; a test
     * key's campaign is sandboxed.
     */
    const send = operation("Campaigns.send")(function*(principal: Principal, id: CampaignId, options: CampaignSendOptions = {}) {
      yield* authorize(principal, "campaigns:write")
      const campaign = yield* owned(principal, id)
      yield* nextStatus(campaign, "send")
      const at = yield* now
      if (options.scheduledAt !== undefined) {
        yield* checkSchedule(options.scheduledAt, at)
      } else if (campaign.scheduledAt !== null && campaign.scheduledAt.getTime() <= at.getTime()) {
        return yield* new InvalidInput({
          field: "scheduled_at",
          reason: reason("schedulePassed")
        })
      }
      const scheduledAt = options.scheduledAt ?? campaign.scheduledAt
      yield* checkAudience(principal, campaign.audience)
      const sendout = yield* sendoutOf(campaign)
      const audience = yield* audienceOf(campaign, at)
      const recipients = yield* campaigns.countAudience(campaign.organizationId, audience, campaign.kind)
      if (recipients === 0) {
        return yield* new InvalidInput({ field: "audience", reason: reason("audienceEmpty") })
      }
      const sandboxed = principal.credential.kind === "api_key" && principal.credential.environment === "test"
      const max = limits.emailsPerMonth(principal.organization.tier)
      if (!sandboxed && max !== null && (yield* usage.sentIn(campaign.organizationId, usageMonth(at))) >= max) {
        return yield* new PlanLimitExceeded({
          limit: "emails_per_month",
          tier: principal.organization.tier,
          max
        })
      }
      const action = scheduledAt !== null ? "schedule" : "send"
      const moved = yield* campaigns.transition(
        id,
        action,
        scheduledAt !== null ? { at, sandboxed, scheduledAt } : { at, sandboxed, sendout, audience }
      )
      if (Option.isNone(moved)) return yield* conflict(yield* owned(principal, id), action, "send")
      if (moved.value.status === "sending") yield* signal.emailQueued
      return yield* record(moved.value)
    })

    /** Stops a scheduled or sending campaign: no email goes out from now on; what went out stays counted. */
    const cancel = operation("Campaigns.cancel")(function*(principal: Principal, id: CampaignId) {
      yield* authorize(principal, "campaigns:write")
      const campaign = yield* owned(principal, id)
      const moved = yield* campaigns.transition(id, "cancel", { at: yield* now })
      if (Option.isNone(moved)) return yield* conflict(yield* owned(principal, id), "cancel")
      yield* signal.emailQueued
      return yield* record(Option.getOrElse(moved, () => campaign))
    })

    /**
     * Sends a failed campaign's failed emails again, and the rest of its audience if it stopped
     * midway; one that could not start is started, its content checked as a send checks it.
     */
    const retry = operation("Campaigns.retry")(function*(principal: Principal, id: CampaignId) {
      yield* authorize(principal, "campaigns:write")
      const campaign = yield* owned(principal, id)
      yield* nextStatus(campaign, "retry")
      const max = limits.emailsPerMonth(principal.organization.tier)
      const at = yield* now
      if (!campaign.sandboxed && max !== null && (yield* usage.sentIn(campaign.organizationId, usageMonth(at))) >= max) {
        return yield* new PlanLimitExceeded({
          limit: "emails_per_month",
          tier: principal.organization.tier,
          max
        })
      }
      // One that failed before it started has no audience yet: the retry starts it, as a send does.
      const start = campaign.startedAt === null
        ? { sendout: yield* sendoutOf(campaign), audience: yield* audienceOf(campaign, at) }
        : {}
      // The campaign moves and its failed emails are queued again together, or neither.
      const moved = yield* unitOfWork.transaction(
        Effect.tap(campaigns.transition(id, "retry", { at, ...start }), (moved) =>
          Option.isSome(moved) ? outgoing.requeueFailed(id, at) : Effect.void)
      )
      if (Option.isNone(moved)) return yield* conflict(yield* owned(principal, id), "retry")
      yield* signal.emailQueued
      return yield* record(moved.value)
    })

    /** A new draft with the campaign's content, audience and data, and no schedule. */
    const duplicate = operation("Campaigns.duplicate")(function*(principal: Principal, id: CampaignId) {
      yield* authorize(principal, "campaigns:write")
      const source = yield* owned(principal, id)
      const at = yield* now
      const copy = new Campaign({
        ...source,
        id: CampaignId.make(yield* ids.next),
        name: duplicateName(source.name),
        status: "draft",
        scheduledAt: null,
        startedAt: null,
        finishedAt: null,
        failureReason: null,
        sandboxed: false,
        // A template deleted since is dropped: the copy is a draft to finish.
        templateId: source.templateId === null
          ? null
          : Option.isSome(yield* Effect.option(requireTemplate(templates, source.organizationId, source.templateId)))
          ? source.templateId
          : null,
        createdAt: at,
        updatedAt: at
      })
      yield* campaigns.insert(copy)
      return yield* record(copy)
    })

    return { create, get, list, listPage, update, countRecipients, countAudience, report, send, cancel, retry, duplicate } as const
  })
}) {}
