import type { CampaignChanges, CampaignRecord, CampaignSendOptions, NewCampaign } from "@roster/application"
import {
  CampaignName,
  CampaignStatus,
  DEFAULT_MESSAGE_KIND,
  MAX_AUDIENCE_TAGS,
  MAX_CAMPAIGN_NAME_LENGTH,
  MAX_SUBJECT_LENGTH,
  MAX_TEMPLATE_LENGTH,
  MessageKind,
  SegmentId,
  TagId,
  TemplateBody,
  TemplateId,
  TemplateSubject
} from "@roster/domain"
import { Schema } from "effect"
import { actionBody } from "./action-body.js"
import { EmailData } from "./email-schemas.js"
import { Count, IdInput, oneOf, strictInput, Timestamp, Uuid } from "./wire-fields.js"

/** Campaigns as every form shows and takes them. */

const TagIds = (description: string) =>
  Schema.Array(Schema.Unknown).pipe(
    Schema.maxItems(MAX_AUDIENCE_TAGS, { message: () => `must hold at most ${MAX_AUDIENCE_TAGS} tag ids` }),
    Schema.compose(Schema.Array(TagId), { strict: false })
  ).annotations({
    jsonSchema: { type: "array", items: { type: "string", format: "uuid" }, maxItems: MAX_AUDIENCE_TAGS, description }
  })

const SegmentInput = Schema.NullOr(IdInput(
  SegmentId,
  "a segment of the organization: the subscribers it matches when sending starts, instead of `tag_ids` (never " +
    "beside them; naming one drops the tags, and naming tags drops the segment); `null` removes it"
))

export const AudienceInput = Schema.Struct({
  tag_ids: Schema.optionalWith(TagIds("subscribers with any of these tags; every subscriber when empty or left out"), {
    exact: true
  }),
  exclude_tag_ids: Schema.optionalWith(TagIds("less the subscribers with any of these tags"), { exact: true }),
  segment_id: Schema.optionalWith(SegmentInput, { exact: true })
}).annotations({ identifier: "CampaignAudienceInput", ...strictInput })

/** A date and time with its offset (RFC 3339). */
const ScheduleTime = Schema.String.pipe(
  Schema.filter((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(s) ||
    "must be a date and time with its offset (RFC 3339), such as 2030-01-31T09:00:00Z"),
  Schema.compose(Schema.DateFromString, { strict: false }),
  Schema.filter((d) => !Number.isNaN(d.getTime()) || "must be a real date and time")
)

const ScheduleInput = Schema.NullOr(ScheduleTime).annotations({
  jsonSchema: {
    type: ["string", "null"],
    format: "date-time",
    description: "when `send` sends it: a time to come, within a year; now when null or left out"
  }
})

const NameInput = CampaignName.annotations({
  jsonSchema: { type: "string", minLength: 1, maxLength: MAX_CAMPAIGN_NAME_LENGTH, description: "for people; trimmed" }
})
const SubjectInput = Schema.NullOr(TemplateSubject.annotations({
  jsonSchema: { type: "string", minLength: 1, maxLength: MAX_SUBJECT_LENGTH, description: "one line, in Liquid" }
}))
const BodyInput = (part: string) =>
  Schema.NullOr(TemplateBody.annotations({
    jsonSchema: { type: "string", maxLength: MAX_TEMPLATE_LENGTH, description: `the ${part} body, in Liquid` }
  }))
const kindMeaning = "`marketing` (reaches active subscribers; carries List-Unsubscribe) or `transactional` (a notice " +
  "every subscriber must get, such as a change of terms, said explicitly: reaches unsubscribed subscribers too, never " +
  "bounced or complained ones)"
const KindInput = oneOf(MessageKind, kindMeaning)
const NewKindInput = oneOf(MessageKind, `${kindMeaning}; \`marketing\` when left out`).annotations({
  default: DEFAULT_MESSAGE_KIND
})
const TemplateInput = Schema.NullOr(IdInput(TemplateId, "a template of the organization, instead of the campaign's own content"))

const fields = {
  template_id: Schema.optionalWith(TemplateInput, { exact: true }),
  subject: Schema.optionalWith(SubjectInput, { exact: true }),
  html: Schema.optionalWith(BodyInput("HTML"), { exact: true }),
  text: Schema.optionalWith(BodyInput("text"), { exact: true }),
  audience: Schema.optionalWith(AudienceInput, { exact: true }),
  data: Schema.optionalWith(EmailData, { exact: true }),
  scheduled_at: Schema.optionalWith(ScheduleInput, { exact: true })
}

export const CreateCampaignRequest = Schema.Struct({
  name: NameInput,
  kind: Schema.optionalWith(NewKindInput, { exact: true }),
  ...fields
}).annotations({ identifier: "CreateCampaignRequest", ...strictInput })

export const UpdateCampaignRequest = Schema.Struct({
  name: Schema.optionalWith(NameInput, { exact: true }),
  kind: Schema.optionalWith(KindInput, { exact: true }),
  ...fields
}).annotations({
  identifier: "UpdateCampaignRequest",
  description: "fields left out stay as they are; naming a template drops the campaign's own content, and the reverse",
  ...strictInput
})

/** What `send` may be told: when. */
export const SendCampaignRequest = actionBody(
  "SendCampaignRequest",
  "No body, `{}`, or `scheduled_at`: when to send. Any other field is a 400 naming it, and nothing is sent.",
  {
    scheduled_at: Schema.optionalWith(
      ScheduleTime.annotations({
        jsonSchema: {
          type: "string",
          format: "date-time",
          description: "schedules the campaign for this time (a time to come, within a year) instead of sending it " +
            "now; it replaces the campaign's own `scheduled_at`. Left out: the campaign's own `scheduled_at`, or now"
        }
      }),
      { exact: true }
    )
  }
)

/** A send request as the use case reads it. */
export const toSendOptions = (payload: typeof SendCampaignRequest.Type): CampaignSendOptions => ({
  scheduledAt: payload.scheduled_at
})

export const CampaignStatsView = Schema.Struct({
  recipients: Count("emails made for the audience so far: its size, once sending has taken all of it"),
  queued: Count("not handed to the provider yet"),
  sent: Count("handed to the provider"),
  delivered: Count("delivered (opened and clicked ones included)"),
  opened: Count("opened (clicked ones included)"),
  clicked: Count("clicked"),
  bounced: Count("bounced"),
  complained: Count("marked as spam"),
  failed: Count("not sent: refused, given up on, or stopped by the plan's limit; `retry` sends them again"),
  suppressed: Count("withheld: the subscriber unsubscribed, bounced or complained before their email went"),
  sandboxed: Count("recorded only: the campaign was sent with a test key")
}).annotations({ identifier: "CampaignStats" })

export const CampaignView = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  kind: MessageKind,
  status: CampaignStatus.annotations({
    description: "`draft`, `scheduled`, `sending`, then `sent`, or `failed` (see `failure_reason`), or `cancelled`"
  }),
  template_id: Schema.NullOr(Uuid),
  subject: Schema.NullOr(Schema.String).annotations({ description: "the campaign's own subject, without a template" }),
  html: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String),
  audience: Schema.Struct({
    tag_ids: Schema.Array(Uuid).annotations({
      description: "subscribers with any of these tags; every subscriber when empty and no segment is named"
    }),
    exclude_tag_ids: Schema.Array(Uuid).annotations({ description: "less the subscribers with any of these tags" }),
    segment_id: Schema.NullOr(Uuid).annotations({
      description: "the segment whose subscribers the campaign reaches, instead of tags; null for an audience of tags"
    })
  }),
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "values every email's template reads as `data`"
  }),
  scheduled_at: Schema.NullOr(Timestamp),
  started_at: Schema.NullOr(Timestamp).annotations({ description: "when sending began: the audience is fixed then" }),
  finished_at: Schema.NullOr(Timestamp),
  failure_reason: Schema.NullOr(Schema.String).annotations({ description: "why it failed or stopped" }),
  sandboxed: Schema.Boolean.annotations({ description: "sent with a test key: no email reaches the provider" }),
  stats: CampaignStatsView,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Campaign" })

export const RecipientCount = Schema.Struct({
  recipients: Count("subscribers the campaign would reach if it were sent now")
}).annotations({ identifier: "CampaignRecipientCount" })

export const campaignFilters = {
  status: Schema.optionalWith(oneOf(CampaignStatus, "only campaigns in this state"), { exact: true })
}

export const toCampaignView = ({ campaign, stats }: CampaignRecord): typeof CampaignView.Type => ({
  id: campaign.id,
  name: campaign.name,
  kind: campaign.kind,
  status: campaign.status,
  template_id: campaign.templateId,
  subject: campaign.subject,
  html: campaign.html,
  text: campaign.text,
  audience: {
    tag_ids: campaign.audience.tagIds,
    exclude_tag_ids: campaign.audience.excludeTagIds,
    segment_id: campaign.audience.segmentId
  },
  data: campaign.data,
  scheduled_at: campaign.scheduledAt?.toISOString() ?? null,
  started_at: campaign.startedAt?.toISOString() ?? null,
  finished_at: campaign.finishedAt?.toISOString() ?? null,
  failure_reason: campaign.failureReason,
  sandboxed: campaign.sandboxed,
  stats,
  created_at: campaign.createdAt.toISOString(),
  updated_at: campaign.updatedAt.toISOString()
})

const audienceOf = (audience: typeof AudienceInput.Type | undefined) =>
  audience === undefined
    ? undefined
    : { tagIds: audience.tag_ids, excludeTagIds: audience.exclude_tag_ids, segmentId: audience.segment_id }

export const toCampaignChanges = (payload: typeof UpdateCampaignRequest.Type): CampaignChanges => ({
  name: payload.name,
  kind: payload.kind,
  templateId: payload.template_id,
  subject: payload.subject,
  html: payload.html,
  text: payload.text,
  audience: audienceOf(payload.audience),
  data: payload.data,
  scheduledAt: payload.scheduled_at
})

export const toNewCampaign = (payload: typeof CreateCampaignRequest.Type): NewCampaign => ({
  ...toCampaignChanges(payload),
  name: payload.name,
  kind: payload.kind
})

/** How campaigns work, told once for both forms. */
export const campaignRules = `A campaign is one email to an audience: subscribers with any of \`audience.tag_ids\` (every
subscriber when none is named), or the subscribers a segment matches (\`audience.segment_id\`, never beside tags: a
segment names its tags itself), less those with any of \`audience.exclude_tag_ids\`. A segment of another organization,
or one deleted, is a 400 naming \`audience.segment_id\`; a segment that a campaign not started yet reads cannot be
deleted (409). A campaign is \`marketing\` unless
\`kind\` says \`transactional\`. A \`marketing\` campaign reaches
\`active\` subscribers; a \`transactional\` one (a notice every subscriber must get) reaches unsubscribed ones too; bounced
and complained subscribers, and those whose erasure is under way, never receive one. Its content is a template
(\`template_id\`) or its own \`subject\` and \`html\` and/or \`text\`, in Liquid with the variables templates know and the
campaign's \`data\`.

States: \`draft\` -> \`scheduled\` (when \`scheduled_at\` is set) -> \`sending\` -> \`sent\`; a send with emails that could not
be sent ends \`failed\`, and \`retry\` sends those again; \`cancel\` stops a scheduled or sending campaign (\`cancelled\`);
\`duplicate\` makes a new draft of any campaign. An action the state does not allow is 409 \`conflict\` naming the state.
Only drafts and scheduled campaigns can be changed. \`send\` checks that the content renders and the audience holds
someone (\`count-recipients\` counts it with the very query the send uses); a test key's campaign is sandboxed.

Sending: the audience is fixed when sending starts (subscribers created later are not in it, and a segment is read as it
is then, its engagement conditions counted back from that moment), one email per
recipient, each rendered for its subscriber with its own \`unsubscribe_url\` and \`preferences_url\`; marketing email
carries \`List-Unsubscribe\` and \`List-Unsubscribe-Post\`. A subscriber who unsubscribes while the campaign sends gets
nothing more (\`suppressed\`). Emails count against the plan's monthly limit as they go; once it is reached the campaign
stops as \`failed\` with the reason, and \`retry\` after an upgrade sends the rest. The emails are listed under
\`/emails\` with the campaign's id; their bodies are not kept.`
