import { COUNT_CAP } from "@roster/application"
import { SubscriberId, SubscriberStatus, TagId } from "@roster/domain"
import { Schema } from "effect"
import { cursorParam, limitParam, orderParam, Page, sortParam } from "./pagination.js"
import {
  Count,
  EmailInput,
  IdInput,
  IdListInput,
  MetadataInput,
  MetadataOutput,
  oneOf,
  SearchInput,
  strictInput,
  Timestamp,
  Uuid,
  withStatus
} from "../shared/wire-fields.js"
import { ConfirmationSent, ConsentRecord, consentFields } from "../shared/consent-schemas.js"

/** Subscribers as the reference form shows and accepts them (snake_case, bare JSON). */

export const TagReference = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  slug: Schema.String
}).annotations({ identifier: "TagReference", description: "a tag the subscriber carries" })

export const Subscriber = Schema.Struct({
  id: Uuid,
  email: Schema.String.annotations({ description: "as given at creation, trimmed" }),
  status: SubscriberStatus.annotations({
    description: "only `active` subscribers receive campaigns and triggered mail"
  }),
  tags: Schema.Array(TagReference).annotations({ description: "the tags the subscriber carries, oldest first" }),
  metadata: MetadataOutput,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Subscriber" })

export const CreatedSubscriber = withStatus(Subscriber, 201, "Subscriber")

/** The answer to a create with `double_opt_in`: 202, nothing created yet. */
export const ConfirmationRequested = withStatus(ConfirmationSent, 202, "ConfirmationSent")

export const SubscriberConsentList = Schema.Struct({
  items: Schema.Array(ConsentRecord).annotations({ description: "newest first" }),
  total: Count("how many consents are kept for the subscriber"),
  next_cursor: Schema.Null.annotations({ description: "always null: the whole list comes in one page" })
}).annotations({ identifier: "SubscriberConsentList" })

export const SubscriberList = Schema.Struct({
  ...Page(Subscriber, "SubscriberList").fields,
  total_capped: Schema.Boolean.annotations({
    description: `true when more match than \`total\` says: with \`count=capped\`, counting stopped at ${COUNT_CAP}`
  })
}).annotations({ identifier: "SubscriberList" })

export const SubscriberTag = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  slug: Schema.String,
  subscribed_at: Timestamp
}).annotations({ identifier: "SubscriberTag", description: "a tag the subscriber carries, and since when" })

export const SubscriberTagList = Schema.Struct({
  items: Schema.Array(SubscriberTag),
  total: Count("how many tags the subscriber carries"),
  next_cursor: Schema.Null.annotations({ description: "always null: the whole list comes in one page" })
}).annotations({ identifier: "SubscriberTagList" })

const statusMoves =
  "Through the API: active -> unsubscribed, unsubscribed -> active, bounced -> active or unsubscribed, " +
  "complained -> unsubscribed; any other move is 409 `invalid_status_transition`. Setting the current status changes nothing."

export const CreateSubscriberRequest = Schema.Struct({
  email: EmailInput("the subscriber's email address; unique in the organization regardless of letter case"),
  tags: Schema.optionalWith(IdListInput(TagId, "ids of tags of the organization to attach at once"), { exact: true }),
  metadata: Schema.optionalWith(MetadataInput(), { exact: true }),
  ...consentFields
}).annotations({ identifier: "CreateSubscriberRequest", ...strictInput })

export const UpdateSubscriberRequest = Schema.Struct({
  metadata: Schema.optionalWith(MetadataInput("replaces the whole map"), { exact: true }),
  status: Schema.optionalWith(oneOf(SubscriberStatus, `the new status. ${statusMoves}`), { exact: true })
}).annotations({
  identifier: "UpdateSubscriberRequest",
  description: "fields left out stay as they are",
  ...strictInput
})

export const AttachTagsRequest = Schema.Struct({
  tag_ids: IdListInput(TagId, "ids of tags of the organization; tags already attached stay as they are")
}).annotations({ identifier: "AttachTagsRequest", ...strictInput })

const subscriberId = IdInput(SubscriberId, "the subscriber's id")

export const SubscriberPath = Schema.Struct({ subscriber_id: subscriberId })

export const SubscriberTagPath = Schema.Struct({
  subscriber_id: subscriberId,
  tag_id: IdInput(TagId, "the tag's id")
})

export const SubscriberEmailPath = Schema.Struct({
  email: EmailInput("the email address, URL-encoded; compared regardless of letter case")
})

const CountMode = Schema.Literal("exact", "capped")

export const SubscriberListParams = Schema.Struct({
  cursor: cursorParam,
  limit: limitParam,
  status: Schema.optionalWith(oneOf(SubscriberStatus, "only subscribers in this status"), { exact: true }),
  tag: Schema.optionalWith(IdInput(TagId, "only subscribers carrying this tag (its id)"), { exact: true }),
  search: Schema.optionalWith(SearchInput, { exact: true }),
  count: Schema.optionalWith(
    oneOf(
      CountMode,
      `how \`total\` is counted (default exact): \`capped\` stops counting at ${COUNT_CAP} when rows must be counted ` +
        "(a `status` or a `search`) and says so in `total_capped`, so that a page of a large list costs little"
    ),
    { default: () => "exact" as const, exact: true }
  ),
  sort: sortParam(["created_at", "updated_at", "email"]),
  order: orderParam("desc")
}).annotations(strictInput)
