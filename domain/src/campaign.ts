import { Either, Option, Schema } from "effect"
import { CampaignStateConflict } from "./errors.js"
import { type Reason, reason } from "./reason.js"
import { CampaignId, OrganizationId, SegmentId, TagId, TemplateId } from "./ids.js"
import { MessageKind, type MessageStatus } from "./message.js"
import type { SubscriberStatus } from "./subscriber.js"
import { isStorableText, UNSTORABLE_TEXT, longerThan } from "./text.js"

/**
 * A campaign is one email to a whole audience. It is written as a draft, sent now or at a chosen
 * time, and goes out through the worker: the audience is fixed when sending starts, one message per
 * recipient, each rendered for its subscriber when it is handed to the provider.
 */

export const CampaignStatus = Schema.Literal("draft", "scheduled", "sending", "sent", "failed", "cancelled")
export type CampaignStatus = typeof CampaignStatus.Type

/**
 * Who receives a campaign: the subscribers its segment matches when it names one, else those with
 * any of `tagIds` (every subscriber when empty); less those with any of `excludeTagIds`. A segment
 * and tags are never named together: the segment names its tags itself.
 */
export const CampaignAudience = Schema.Struct({
  tagIds: Schema.Array(TagId),
  excludeTagIds: Schema.Array(TagId),
  segmentId: Schema.NullOr(SegmentId)
})
export type CampaignAudience = typeof CampaignAudience.Type

/** What a campaign says: a template of the organization, or its own subject and bodies (Liquid). */
export const CampaignContent = Schema.Struct({
  subject: Schema.String,
  html: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String)
})
export type CampaignContent = typeof CampaignContent.Type

export class Campaign extends Schema.Class<Campaign>("Campaign")({
  id: CampaignId,
  organizationId: OrganizationId,
  name: Schema.String,
  kind: MessageKind,
  templateId: Schema.NullOr(TemplateId),
  /** The campaign's own content; null parts with a template. */
  subject: Schema.NullOr(Schema.String),
  html: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String),
  audience: CampaignAudience,
  /** Values every email's template reads as `data`. */
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  status: CampaignStatus,
  scheduledAt: Schema.NullOr(Schema.DateFromSelf),
  startedAt: Schema.NullOr(Schema.DateFromSelf),
  finishedAt: Schema.NullOr(Schema.DateFromSelf),
  /** Why the campaign failed or stopped, when it did. */
  failureReason: Schema.NullOr(Schema.String),
  /** Sent with a test key: every email is recorded as `sandboxed`, none reaches the provider. */
  sandboxed: Schema.Boolean,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
}) {}

/** What may move a campaign: a client through the API, or the worker sending it. */
export const CampaignActor = Schema.Literal("client", "worker")
export type CampaignActor = typeof CampaignActor.Type

/**
 * What a campaign may be asked to do. A client's `send` is `schedule` with a time to come and
 * `send` without one; `unschedule` is an update that removes a scheduled campaign's time.
 */
export const CampaignAction = Schema.Literal(
  "update",
  "unschedule",
  "schedule",
  "send",
  "start",
  "complete",
  "fail",
  "cancel",
  "retry"
)
export type CampaignAction = typeof CampaignAction.Type
export const campaignActions: ReadonlyArray<CampaignAction> = CampaignAction.literals
export const campaignStatuses: ReadonlyArray<CampaignStatus> = CampaignStatus.literals

export interface CampaignMove {
  readonly from: CampaignStatus
  readonly action: CampaignAction
  readonly to: CampaignStatus
  readonly by: CampaignActor
  readonly why: string
}

/**
 * Every move a campaign's state may make: from a state, on an action, to the next state. Any
 * (state, action) not listed here is refused. Entering `sending` from a draft or a scheduled
 * campaign fixes its audience; `sent`, `failed` and `cancelled` end a send.
 */
export const campaignMoves: ReadonlyArray<CampaignMove> = [
  { from: "draft", action: "update", to: "draft", by: "client", why: "a draft is written" },
  { from: "scheduled", action: "update", to: "scheduled", by: "client", why: "a scheduled campaign is changed, its time kept or moved" },
  { from: "scheduled", action: "unschedule", to: "draft", by: "client", why: "its time is removed: it waits as a draft" },
  { from: "draft", action: "schedule", to: "scheduled", by: "client", why: "sent with a time to come" },
  { from: "draft", action: "send", to: "sending", by: "client", why: "sent now: its audience is fixed" },
  { from: "scheduled", action: "start", to: "sending", by: "worker", why: "its time came: its audience is fixed" },
  { from: "scheduled", action: "fail", to: "failed", by: "worker", why: "its content no longer renders when its time comes" },
  { from: "sending", action: "complete", to: "sent", by: "worker", why: "every email settled, none failed" },
  { from: "sending", action: "fail", to: "failed", by: "worker", why: "some emails failed, or the plan's monthly limit stopped it" },
  { from: "scheduled", action: "cancel", to: "cancelled", by: "client", why: "called off before its time" },
  { from: "sending", action: "cancel", to: "cancelled", by: "client", why: "stopped midway: what went out stays counted" },
  { from: "failed", action: "retry", to: "sending", by: "client", why: "its failed emails are queued again" }
]

/** The states a send has ended in. */
export const campaignEnded = (status: CampaignStatus): boolean =>
  status === "sent" || status === "failed" || status === "cancelled"

/** The moves `action` makes, one per state it starts from. */
export const campaignMovesOf = (action: CampaignAction): ReadonlyArray<CampaignMove> =>
  campaignMoves.filter((move) => move.action === action)

/** The states `action` starts from. */
export const campaignActionFrom = (action: CampaignAction): ReadonlyArray<CampaignStatus> =>
  campaignMovesOf(action).map((move) => move.from)

/** The state after `action` from `status`, or none when the table has no such move. */
export const nextCampaignStatus = (status: CampaignStatus, action: CampaignAction): Option.Option<CampaignStatus> =>
  Option.map(Option.fromNullable(campaignMoves.find((m) => m.from === status && m.action === action)), (m) => m.to)

export const canCampaign = (action: CampaignAction, status: CampaignStatus): boolean =>
  Option.isSome(nextCampaignStatus(status, action))

/**
 * The state the campaign moves to on `action`, or the conflict, naming the states the action
 * starts from. `asked` is the action as the client named it (a `send` that schedules is a send).
 */
export const transitionCampaign = (
  campaign: Pick<Campaign, "id" | "status">,
  action: CampaignAction,
  asked: string = action
): Either.Either<CampaignStatus, CampaignStateConflict> =>
  Option.match(nextCampaignStatus(campaign.status, action), {
    onNone: () =>
      Either.left(
        new CampaignStateConflict({
          id: campaign.id,
          status: campaign.status,
          action: asked,
          allowed: campaignActionFrom(action)
        })
      ),
    onSome: Either.right
  })

/** The subscriber states a campaign of `kind` reaches: active ones, and unsubscribed ones for transactional mail. */
export const audienceStatuses = (kind: MessageKind): ReadonlyArray<SubscriberStatus> =>
  kind === "marketing" ? ["active"] : ["active", "unsubscribed"]

/** A campaign's figures, from its messages' statuses. Each counts every email that got at least that far. */
export interface CampaignStats {
  readonly recipients: number
  readonly queued: number
  readonly sent: number
  readonly delivered: number
  readonly opened: number
  readonly clicked: number
  readonly bounced: number
  readonly complained: number
  readonly failed: number
  readonly suppressed: number
  readonly sandboxed: number
}

const reached: Readonly<Record<keyof Omit<CampaignStats, "recipients">, ReadonlyArray<MessageStatus>>> = {
  queued: ["queued"],
  sent: ["sent", "delivered", "opened", "clicked", "bounced", "complained"],
  delivered: ["delivered", "opened", "clicked"],
  opened: ["opened", "clicked"],
  clicked: ["clicked"],
  bounced: ["bounced"],
  complained: ["complained"],
  failed: ["failed"],
  suppressed: ["suppressed"],
  sandboxed: ["sandboxed"]
}

export const campaignStats = (byStatus: Readonly<Partial<Record<MessageStatus, number>>>): CampaignStats => {
  const sum = (statuses: ReadonlyArray<MessageStatus>) => statuses.reduce((n, s) => n + (byStatus[s] ?? 0), 0)
  return {
    recipients: Object.values(byStatus).reduce<number>((n, c) => n + (c ?? 0), 0),
    ...Object.fromEntries(Object.entries(reached).map(([name, statuses]) => [name, sum(statuses)])) as Omit<
      CampaignStats,
      "recipients"
    >
  }
}

export const MAX_CAMPAIGN_NAME_LENGTH = 200
/** Tags an audience may name, each way. */
export const MAX_AUDIENCE_TAGS = 100
/** How far ahead a campaign may be scheduled. */
export const MAX_SCHEDULE_AHEAD_MS = 366 * 24 * 3_600_000

/** A campaign's name, for people: one line, trimmed. */
export const CampaignName = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty"
    if (longerThan(s, MAX_CAMPAIGN_NAME_LENGTH)) return `must be at most ${MAX_CAMPAIGN_NAME_LENGTH} characters`
    if (/\p{Cc}/u.test(s)) return "must be one line without control characters"
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  }, { identifier: "CampaignName" })
)

/** Why a schedule cannot be kept, or null: it must lie ahead, and within a year. */
export const scheduleProblem = (scheduledAt: Date, now: Date): Reason | null => {
  if (scheduledAt.getTime() <= now.getTime()) return reason("scheduleInPast")
  if (scheduledAt.getTime() - now.getTime() > MAX_SCHEDULE_AHEAD_MS) return reason("scheduleTooFar")
  return null
}

/** The copy `duplicate` makes: a draft with the same content and audience, and no schedule. */
export const duplicateName = (name: string): string => {
  const copy = `${name} (copy)`
  return longerThan(copy, MAX_CAMPAIGN_NAME_LENGTH) ? name : copy
}

/** Why a campaign that stopped for its plan's email limit stopped. */
export const emailLimitReason = (max: number): string =>
  `the plan's monthly email limit (${max}) was reached; upgrade, then retry to send the rest`

/** Why a campaign with failed emails ended `failed`. */
export const failedEmailsReason = (failed: number): string =>
  `${failed} email${failed === 1 ? "" : "s"} could not be sent; retry sends ${failed === 1 ? "it" : "them"} again`

/** The steps a campaign's figures over time are counted in, shortest first. */
const ACTIVITY_STEPS_MS = [300_000, 900_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000, 86_400_000, 7 * 86_400_000]
/** At most this many steps a chart of a campaign's figures over time. */
export const MAX_ACTIVITY_BUCKETS = 48

/** The window a campaign's figures over time are counted in: from its start, in steps of `stepMs`. */
export interface ActivityWindow {
  readonly since: Date
  readonly stepMs: number
  readonly buckets: number
}

/**
 * How a campaign started at `startedAt` is charted at `now`: from its start to now, in the
 * shortest of the usual steps that needs at most {@link MAX_ACTIVITY_BUCKETS} (one step at least;
 * the last ends at or after now).
 */
export const activityWindow = (startedAt: Date, now: Date): ActivityWindow => {
  const span = Math.max(now.getTime() - startedAt.getTime(), 1)
  const stepMs = ACTIVITY_STEPS_MS.find((step) => Math.ceil(span / step) <= MAX_ACTIVITY_BUCKETS) ??
    ACTIVITY_STEPS_MS[ACTIVITY_STEPS_MS.length - 1]!
  return { since: startedAt, stepMs, buckets: Math.min(Math.ceil(span / stepMs), MAX_ACTIVITY_BUCKETS) }
}
