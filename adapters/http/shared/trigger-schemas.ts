import type { NewTrigger, TriggerChanges, TriggerRecord } from "@roster/application"
import {
  MAX_TRIGGER_DELAY_SECONDS,
  MAX_TRIGGER_NAME_LENGTH,
  MessageKind,
  SegmentId,
  TagId,
  TemplateId,
  TriggerDelay,
  TriggerEvent,
  TriggerName,
  TriggerStatus
} from "@roster/domain"
import { Schema } from "effect"
import { EmailData } from "./email-schemas.js"
import { Count, IdInput, oneOf, strictInput, Timestamp, Uuid } from "./wire-fields.js"

/** Email triggers as every form shows and takes them. */

const NameInput = TriggerName.annotations({
  jsonSchema: { type: "string", minLength: 1, maxLength: MAX_TRIGGER_NAME_LENGTH, description: "for people; trimmed" }
})
const EventInput = oneOf(TriggerEvent, "`subscriber.created`, or `tag.subscribed` (a tag given to a subscriber)")
const TagInput = Schema.NullOr(IdInput(TagId, "for `tag.subscribed`: only this tag; any tag when null or left out"))
const TemplateInput = IdInput(TemplateId, "the template it sends")
const SegmentInput = Schema.NullOr(IdInput(
  SegmentId,
  "a segment of the organization: only a subscriber it matches when the wait ends gets the email; any subscriber when " +
    "null or left out"
))
const KindInput = oneOf(MessageKind, "`marketing` (default: carries List-Unsubscribe) or `transactional`")
const DelayInput = TriggerDelay.annotations({
  jsonSchema: {
    type: "integer",
    minimum: 0,
    maximum: MAX_TRIGGER_DELAY_SECONDS,
    description: "seconds to wait after the event, up to 30 days (2592000); 0 by default"
  }
})
const StatusInput = oneOf(TriggerStatus, "`active` (default) or `paused`: a paused trigger fires nothing")

export const CreateTriggerRequest = Schema.Struct({
  name: NameInput,
  event: EventInput,
  tag_id: Schema.optionalWith(TagInput, { exact: true }),
  template_id: TemplateInput,
  segment_id: Schema.optionalWith(SegmentInput, { exact: true }),
  kind: Schema.optionalWith(KindInput, { exact: true }),
  delay_seconds: Schema.optionalWith(DelayInput, { exact: true }),
  status: Schema.optionalWith(StatusInput, { exact: true }),
  data: Schema.optionalWith(EmailData, { exact: true })
}).annotations({ identifier: "CreateEmailTriggerRequest", ...strictInput })

export const UpdateTriggerRequest = Schema.Struct({
  name: Schema.optionalWith(NameInput, { exact: true }),
  event: Schema.optionalWith(EventInput, { exact: true }),
  tag_id: Schema.optionalWith(TagInput, { exact: true }),
  template_id: Schema.optionalWith(TemplateInput, { exact: true }),
  segment_id: Schema.optionalWith(SegmentInput, { exact: true }),
  kind: Schema.optionalWith(KindInput, { exact: true }),
  delay_seconds: Schema.optionalWith(DelayInput, { exact: true }),
  status: Schema.optionalWith(StatusInput, { exact: true }),
  data: Schema.optionalWith(EmailData, { exact: true })
}).annotations({ identifier: "UpdateEmailTriggerRequest", description: "fields left out stay as they are", ...strictInput })

export const TriggerView = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  event: TriggerEvent,
  tag_id: Schema.NullOr(Uuid),
  template_id: Schema.NullOr(Uuid).annotations({ description: "null once the template was deleted: nothing is sent" }),
  segment_id: Schema.NullOr(Uuid).annotations({
    description: "only a subscriber this segment matches when the wait ends gets the email; null: any subscriber"
  }),
  kind: MessageKind,
  delay_seconds: Count("seconds it waits after the event"),
  status: TriggerStatus,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  firings: Schema.Struct({
    pending: Count("waiting for their time"),
    sent: Count("emails queued"),
    skipped: Count("no email: the subscriber was no longer active, was not in the trigger's segment, or must not receive email"),
    failed: Count("no email: it could not be queued (the plan's monthly limit, say)")
  }),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "EmailTrigger" })

export const toTriggerView = ({ firings, trigger }: TriggerRecord): typeof TriggerView.Type => ({
  id: trigger.id,
  name: trigger.name,
  event: trigger.event,
  tag_id: trigger.tagId,
  template_id: trigger.templateId,
  segment_id: trigger.segmentId,
  kind: trigger.kind,
  delay_seconds: trigger.delaySeconds,
  status: trigger.status,
  data: trigger.data,
  firings,
  created_at: trigger.createdAt.toISOString(),
  updated_at: trigger.updatedAt.toISOString()
})

export const toTriggerChanges = (payload: typeof UpdateTriggerRequest.Type): TriggerChanges => ({
  name: payload.name,
  event: payload.event,
  tagId: payload.tag_id,
  templateId: payload.template_id,
  segmentId: payload.segment_id,
  kind: payload.kind,
  delaySeconds: payload.delay_seconds,
  status: payload.status,
  data: payload.data
})

export const toNewTrigger = (payload: typeof CreateTriggerRequest.Type): NewTrigger => ({
  ...toTriggerChanges(payload),
  name: payload.name,
  event: payload.event,
  templateId: payload.template_id
})

/** How triggers work, told once for both forms. */
export const triggerRules = `An email trigger sends a template to a subscriber when they are created (\`subscriber.created\`) or
given a tag (\`tag.subscribed\`, for one tag with \`tag_id\` or any), after \`delay_seconds\` (up to 30 days). It hears the
same recorded events as outgoing webhooks: it fires for every committed change and for no change that was rolled back.
It sends a subscriber at most one email, however often the event comes again. A subscriber who is no longer \`active\`
when the wait ends gets nothing. With \`segment_id\`, only a subscriber the segment matches when the wait ends gets the
email; one it does not match then is skipped, and the trigger does not fire for them again. A segment of another
organization, or one deleted, is a 400 naming \`segment_id\`; a segment a trigger reads cannot be deleted (409). A paused trigger fires nothing; its waiting emails wait until it is active again. The
emails are single sends of the organization (listed under \`/emails\`), counted against the plan's monthly limit.`
