import { Schema } from "effect"
import { OrganizationId, SegmentId, TagId, TemplateId, TriggerId } from "./ids.js"
import { MessageKind } from "./message.js"
import { isStorableText, UNSTORABLE_TEXT, longerThan } from "./text.js"

/**
 * An email trigger sends a template to a subscriber when something happens to them: they were
 * created, or given a tag (any, or one). It may wait first, up to 30 days, and it sends a
 * subscriber its email at most once, however often the event happens again. A subscriber who is
 * no longer `active` when the wait ends gets nothing, nor does one its segment (when it names one)
 * does not match then.
 */

export const TriggerEvent = Schema.Literal("subscriber.created", "tag.subscribed")
export type TriggerEvent = typeof TriggerEvent.Type

export const TriggerStatus = Schema.Literal("active", "paused")
export type TriggerStatus = typeof TriggerStatus.Type

export class EmailTrigger extends Schema.Class<EmailTrigger>("EmailTrigger")({
  id: TriggerId,
  organizationId: OrganizationId,
  name: Schema.String,
  event: TriggerEvent,
  /** For `tag.subscribed`: only this tag; any tag when null. */
  tagId: Schema.NullOr(TagId),
  /** Null once the template was deleted: the trigger sends nothing until it is given another. */
  templateId: Schema.NullOr(TemplateId),
  /** When set, only a subscriber this segment matches when the wait ends gets the email. */
  segmentId: Schema.NullOr(SegmentId),
  kind: MessageKind,
  /** How long after the event the email goes. */
  delaySeconds: Schema.Number,
  status: TriggerStatus,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
}) {}

/** The longest a trigger may wait: 30 days. */
export const MAX_TRIGGER_DELAY_SECONDS = 30 * 24 * 3_600

export const TriggerDelay = Schema.Int.pipe(
  Schema.filter((n) =>
    (n >= 0 && n <= MAX_TRIGGER_DELAY_SECONDS) || `must be from 0 to ${MAX_TRIGGER_DELAY_SECONDS} seconds (30 days)`
  )
)

export const MAX_TRIGGER_NAME_LENGTH = 200

export const TriggerName = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty"
    if (longerThan(s, MAX_TRIGGER_NAME_LENGTH)) return `must be at most ${MAX_TRIGGER_NAME_LENGTH} characters`
    if (/\p{Cc}/u.test(s)) return "must be one line without control characters"
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  }, { identifier: "TriggerName" })
)

/** Whether an event of `type` about a subscriber (and, for tags, `tagId`) fires the trigger. */
export const firesOn = (trigger: EmailTrigger, type: string, tagId: string | null): boolean =>
  trigger.status === "active" && trigger.event === type &&
  (trigger.event !== "tag.subscribed" || trigger.tagId === null || trigger.tagId === tagId)

/** A firing's outcome: the email was queued, or why none went. */
export const FiringStatus = Schema.Literal("pending", "sent", "skipped", "failed")
export type FiringStatus = typeof FiringStatus.Type
