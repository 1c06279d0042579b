import { Schema } from "effect"
import { CampaignId, OrganizationId, TagId, TemplateId } from "./ids.js"
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

/** Who receives a campaign: subscribers with any of `tagIds` (every subscriber when empty), less those with any of `excludeTagIds`. */
export const CampaignAudience = Schema.Struct({
  tagIds: Schema.Array(TagId),
  excludeTagIds: Schema.Array(TagId)
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

/** What a campaign may be asked to do, by a client or by the worker. */
export type CampaignAction = "update" | "send" | "start" | "finish" | "cancel" | "retry"

/**
 * The transition table: the states each action starts from. `send` moves a draft to `scheduled`
 * (with a time to come) or `sending`; `start` is the worker's, when a scheduled time comes;
 * `finish` ends a send as `sent`, or `failed` when some emails failed or the plan stopped it;
 * `retry` sends a failed campaign's failed emails again; `update` keeps the state (a scheduled
 * campaign whose time is removed goes back to `draft`).
 */
export const campaignTransitions: Readonly<Record<CampaignAction, ReadonlyArray<CampaignStatus>>> = {
  update: ["draft", "scheduled"],
  send: ["draft"],
  start: ["scheduled"],
  finish: ["sending"],
  cancel: ["scheduled", "sending"],
  retry: ["failed"]
}

export const canCampaign = (action: CampaignAction, status: CampaignStatus): boolean =>
  campaignTransitions[action].includes(status)

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
export const scheduleProblem = (scheduledAt: Date, now: Date): string | null => {
  if (scheduledAt.getTime() <= now.getTime()) return "must be in the future"
  if (scheduledAt.getTime() - now.getTime() > MAX_SCHEDULE_AHEAD_MS) return "must be within a year"
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
