import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  MIN_PAGE_SIZE,
  parseSortList,
  PersonName,
  SortOrder,
  SubscriberStatus,
  TagCategory,
  TagDisplayName,
  WebhookEndpointId
} from "@roster/domain"
import { Either, ParseResult, Schema } from "effect"
import {
  Count,
  EmailInput,
  IdInput,
  MetadataInput,
  MetadataOutput,
  oneOf,
  SearchInput,
  strictInput,
  TagNameInput,
  Timestamp,
  Uuid,
  withStatus
} from "../shared/wire-fields.js"
import { ConfirmationSent, ConsentRecord, consentFields } from "../shared/consent-schemas.js"
import { WebhookEndpoint, WebhookEndpointWithSecret } from "../shared/webhook-endpoint-schemas.js"
import { newTagDetails, newTagNames, tagDetailChanges, tagNameChange } from "../shared/tag-request-fields.js"
import { VisibilityOutput } from "../shared/tag-visibility.js"

/**
 * Subscribers, tags and webhook endpoints as the overview form shows and accepts them: snake_case inside a `data`
 * envelope, tags of a subscriber by name, numbered pages.
 */

/** A single resource: `{data: {...}}`. */
export const Single = <S extends Schema.Schema.Any>(item: S, identifier: string) =>
  Schema.Struct({ data: item }).annotations({ identifier })

export const PageMeta = Schema.Struct({
  total: Count("how many match in all"),
  page: Count("the number of this page, from 1"),
  per_page: Count("rows per page"),
  total_pages: Count("how many pages of `per_page` rows the matches fill; 0 when none match")
}).annotations({ identifier: "PageMeta" })

/** A list: `{data: [...], meta: {total, page, per_page, total_pages}}`. */
export const NumberedList = <S extends Schema.Schema.Any>(item: S, identifier: string) =>
  Schema.Struct({ data: Schema.Array(item), meta: PageMeta }).annotations({ identifier })

const Page = Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1)).annotations({
  message: () => ({ message: "must be a whole number of at least 1", override: true }),
  jsonSchema: { type: "integer", minimum: 1, default: 1, description: "the page, from 1" }
})

const PerPage = Schema.NumberFromString.pipe(Schema.int(), Schema.between(MIN_PAGE_SIZE, MAX_PAGE_SIZE)).annotations({
  message: () => ({ message: `must be a whole number from ${MIN_PAGE_SIZE} to ${MAX_PAGE_SIZE}`, override: true }),
  jsonSchema: {
    type: "integer",
    minimum: MIN_PAGE_SIZE,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `rows per page, ${MIN_PAGE_SIZE} to ${MAX_PAGE_SIZE}`
  }
})

const SortKey = Schema.Struct({ field: Schema.String, order: SortOrder })

/** `-created_at,email`: fields in turn, each descending with a leading `-`. */
const SortList = (fields: ReadonlyArray<string>, defaultSort: string) =>
  Schema.transformOrFail(Schema.String, Schema.Array(SortKey), {
    strict: true,
    decode: (text, _, ast) =>
      Either.match(parseSortList(text), {
        onLeft: (message) => ParseResult.fail(new ParseResult.Type(ast, text, message)),
        onRight: (keys) => ParseResult.succeed(keys.map(({ field, order }) => ({ field, order })))
      }),
    encode: (keys) => ParseResult.succeed(keys.map(({ field, order }) => order === "desc" ? `-${field}` : field).join(","))
  }).annotations({
    jsonSchema: {
      type: "string",
      description: `fields separated by commas, each descending with a leading \`-\`; of ${fields.join(", ")}. ` +
        `Default \`${defaultSort}\``,
      examples: [`-${fields[0]},${fields[1] ?? fields[0]}`]
    }
  })

export const pageParams = {
  page: Schema.optionalWith(Page, { default: () => 1, exact: true }),
  per_page: Schema.optionalWith(PerPage, { default: () => DEFAULT_PAGE_SIZE, exact: true })
}

export const TagOfSubscriber = Schema.Struct({
  name: Schema.String,
  subscribed_at: Timestamp
}).annotations({ identifier: "TagOfSubscriber", description: "a tag the subscriber carries, and since when" })

export const Subscriber = Schema.Struct({
  id: Uuid,
  email: Schema.String.annotations({ description: "as given at creation, trimmed" }),
  status: SubscriberStatus.annotations({ description: "only `active` subscribers receive campaigns and triggered mail" }),
  first_name: Schema.NullOr(Schema.String),
  last_name: Schema.NullOr(Schema.String),
  tags: Schema.Array(TagOfSubscriber).annotations({ description: "the tags the subscriber carries, oldest first" }),
  metadata: MetadataOutput,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Subscriber" })

export const SubscriberData = Single(Subscriber, "SubscriberData")
export const CreatedSubscriberData = withStatus(SubscriberData, 201, "SubscriberData")
export const SubscriberList = NumberedList(Subscriber, "SubscriberList")
export const SubscriberTags = Schema.Struct({ data: Schema.Array(TagOfSubscriber) }).annotations({
  identifier: "SubscriberTags"
})

/** The answer to a create with `double_opt_in`: 202, nothing created yet. */
export const ConfirmationSentData = withStatus(Single(ConfirmationSent, "ConfirmationSentData"), 202, "ConfirmationSentData")

export const SubscriberConsents = Schema.Struct({
  data: Schema.Array(ConsentRecord).annotations({ description: "newest first" })
}).annotations({ identifier: "SubscriberConsents" })

const NameInput = (description: string) =>
  Schema.NullOr(PersonName.annotations({ jsonSchema: { type: "string", maxLength: 100 } })).annotations({ description })

export const TagNames = (description: string) =>
  Schema.Array(TagNameInput("a tag's name")).pipe(Schema.maxItems(1000)).annotations({ description })

export const CreateSubscriberRequest = Schema.Struct({
  email: EmailInput("the subscriber's email address; unique in the organization regardless of letter case"),
  first_name: Schema.optionalWith(NameInput("trimmed; at most 100 characters"), { exact: true }),
  last_name: Schema.optionalWith(NameInput("trimmed; at most 100 characters"), { exact: true }),
  tags: Schema.optionalWith(
    TagNames("names of tags to attach; a name no tag has becomes a new tag when the caller may write tags"),
    { exact: true }
  ),
  metadata: Schema.optionalWith(MetadataInput(), { exact: true }),
  ...consentFields
}).annotations({ identifier: "CreateSubscriberRequest", ...strictInput })

const statusMoves = "Through the API: active -> unsubscribed, unsubscribed -> active, bounced -> active or unsubscribed, " +
  "complained -> unsubscribed; any other move is 409 `invalid_status_transition`."

export const UpdateSubscriberRequest = Schema.Struct({
  status: Schema.optionalWith(oneOf(SubscriberStatus, `the new status. ${statusMoves}`), { exact: true }),
  first_name: Schema.optionalWith(NameInput("null removes it"), { exact: true }),
  last_name: Schema.optionalWith(NameInput("null removes it"), { exact: true }),
  metadata: Schema.optionalWith(MetadataInput("replaces the whole map"), { exact: true })
}).annotations({ identifier: "UpdateSubscriberRequest", description: "fields left out stay as they are", ...strictInput })

export const ChangeTagsRequest = Schema.Struct({
  add: Schema.optionalWith(
    TagNames("names of tags to attach; a name no tag has becomes a new tag when the caller may write tags"),
    { exact: true }
  ),
  remove: Schema.optionalWith(TagNames("names of tags to detach; a name no tag has is passed over"), { exact: true })
}).annotations({ identifier: "ChangeTagsRequest", ...strictInput })

export const SubscriberListParams = Schema.Struct({
  ...pageParams,
  status: Schema.optionalWith(oneOf(SubscriberStatus, "only subscribers in this status"), { exact: true }),
  tag: Schema.optionalWith(
    Schema.String.annotations({ description: "only subscribers carrying the tag of this name (any letter case)" }),
    { exact: true }
  ),
  search: Schema.optionalWith(SearchInput, { exact: true }),
  sort: Schema.optionalWith(SortList(["created_at", "updated_at", "email", "status"], "-created_at"), { exact: true })
}).annotations(strictInput)

export const Tag = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  slug: Schema.String,
  display_name: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  visibility: VisibilityOutput,
  metadata: MetadataOutput,
  subscriber_count: Count("how many subscribers carry the tag"),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Tag" })

export const TagData = Single(Tag, "TagData")
export const CreatedTagData = withStatus(TagData, 201, "TagData")
export const TagList = NumberedList(Tag, "TagList")

const DisplayNameInput = Schema.NullOr(TagDisplayName.annotations({ jsonSchema: { type: "string", maxLength: 100 } }))
  .annotations({ description: "how the tag is shown to people, 1 to 100 characters; null removes it" })

const CategoryInput = Schema.NullOr(TagCategory.annotations({ jsonSchema: { type: "string", maxLength: 64 } }))
  .annotations({ description: "the group the tag belongs to, 1 to 64 characters; null removes it" })

export const CreateTagRequest = Schema.Struct({
  ...newTagNames,
  display_name: Schema.optionalWith(DisplayNameInput, { exact: true }),
  category: Schema.optionalWith(CategoryInput, { exact: true }),
  ...newTagDetails
}).annotations({ identifier: "CreateTagRequest", ...strictInput })

export const UpdateTagRequest = Schema.Struct({
  ...tagNameChange,
  display_name: Schema.optionalWith(DisplayNameInput, { exact: true }),
  category: Schema.optionalWith(CategoryInput, { exact: true }),
  ...tagDetailChanges
}).annotations({
  identifier: "UpdateTagRequest",
  description: "fields left out stay as they are; the slug never changes",
  ...strictInput
})

export const TagListParams = Schema.Struct({
  ...pageParams,
  category: Schema.optionalWith(
    Schema.String.annotations({ description: "only tags of this category (exactly as written)" }),
    { exact: true }
  ),
  sort: Schema.optionalWith(SortList(["name", "created_at", "subscriber_count", "category"], "name"), { exact: true })
}).annotations(strictInput)

/** Webhook endpoints: the reference form's fields inside the `data` envelope. */
export const CreatedWebhookEndpointData = withStatus(
  Single(WebhookEndpointWithSecret, "WebhookEndpointWithSecretData"),
  201,
  "WebhookEndpointWithSecretData"
)
export const WebhookEndpointList = NumberedList(WebhookEndpoint, "WebhookEndpointList")

export const WebhookPath = Schema.Struct({ id: IdInput(WebhookEndpointId, "the webhook endpoint's id") })

export const WebhookListParams = Schema.Struct(pageParams).annotations(strictInput)

/** `page` and `per_page` alone, for lists without filters or sorting. */
export const PageListParams = Schema.Struct(pageParams).annotations(strictInput)
