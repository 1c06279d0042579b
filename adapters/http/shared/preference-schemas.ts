import { HttpApp, HttpServerResponse } from "@effect/platform"
import type {
  PreferenceExport,
  PreferenceLink as DomainLink,
  PreferenceTag as DomainTag,
  PreferenceView
} from "@roster/application"
import { InvalidToken, SubscriberStatus, TagId } from "@roster/domain"
import { Effect, Schema } from "effect"
import type { ApplicationError } from "./application-errors.js"
import { ConsentRecord, toConsentRecord } from "./consent-schemas.js"
import { answering } from "./respond.js"
import { IdInput, MetadataOutput, oneOf, Timestamp, Uuid } from "./wire-fields.js"

/** The preference center's shapes, the same in both forms (the overview form wraps them in `data`). */

export const PreferenceTag = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  slug: Schema.String,
  description: Schema.NullOr(Schema.String),
  subscribed: Schema.Boolean,
  subscribed_at: Schema.optionalWith(Timestamp, { exact: true }).annotations({
    description: "when the subscriber subscribed; on subscribed tags only"
  })
}).annotations({ identifier: "PreferenceTag" })

export const PreferenceCenter = Schema.Struct({
  organization_name: Schema.String,
  email: Schema.String,
  status: oneOf(SubscriberStatus, "the subscriber's status: only `active` subscribers get campaigns and triggered mail"),
  subscribed_tags: Schema.Array(PreferenceTag).annotations({ description: "the tags the subscriber carries, by name" }),
  available_tags: Schema.Array(PreferenceTag).annotations({
    description: "every tag of the organization, by name, each saying whether the subscriber carries it"
  })
}).annotations({ identifier: "PreferenceCenter" })

export const PreferenceLink = Schema.Struct({
  token: Schema.String.annotations({ description: "the preference token, good for 30 days" }),
  url: Schema.String.annotations({ description: "the preference center's page for this subscriber" }),
  expires_at: Timestamp
}).annotations({ identifier: "PreferenceLink" })

export const DataExport = Schema.Struct({
  exported_at: Timestamp,
  organization: Schema.Struct({ name: Schema.String }),
  subscriber: Schema.Struct({
    id: Uuid,
    email: Schema.String,
    status: SubscriberStatus,
    first_name: Schema.NullOr(Schema.String),
    last_name: Schema.NullOr(Schema.String),
    metadata: MetadataOutput,
    created_at: Timestamp,
    updated_at: Timestamp
  }),
  tags: Schema.Array(Schema.Struct({
    name: Schema.String,
    slug: Schema.String,
    description: Schema.NullOr(Schema.String),
    subscribed_at: Timestamp
  })).annotations({ description: "the tags the subscriber carries" }),
  events: Schema.Array(Schema.Struct({
    id: Uuid,
    type: Schema.String,
    occurred_at: Timestamp,
    data: Schema.Record({ key: Schema.String, value: Schema.Unknown })
  })).annotations({ description: "what was recorded about the subscriber and is still kept (30 days once sent to webhooks)" }),
  notes: Schema.Array(Schema.Struct({
    id: Uuid,
    body: Schema.String,
    created_at: Timestamp,
    updated_at: Timestamp
  })).annotations({ description: "the notes the organization keeps on the subscriber, newest first" }),
  emails: Schema.Array(Schema.Struct({
    id: Uuid,
    kind: Schema.String,
    from: Schema.String,
    subject: Schema.String,
    status: Schema.String,
    created_at: Timestamp
  })).annotations({ description: "the emails sent or withheld to the subscriber, newest first" }),
  consents: Schema.Array(ConsentRecord).annotations({ description: "what the subscriber agreed to, newest first" })
}).annotations({ identifier: "DataExport", description: "everything stored about the subscriber" })

export const toDataExport = (exported: PreferenceExport): typeof DataExport.Type => ({
  exported_at: exported.exportedAt.toISOString(),
  organization: { name: exported.organization.name },
  subscriber: {
    id: exported.subscriber.id,
    email: exported.subscriber.email,
    status: exported.subscriber.status,
    first_name: exported.subscriber.firstName,
    last_name: exported.subscriber.lastName,
    metadata: exported.subscriber.metadata,
    created_at: exported.subscriber.createdAt.toISOString(),
    updated_at: exported.subscriber.updatedAt.toISOString()
  },
  tags: exported.tags.map(({ subscribedAt, tag }) => ({
    name: tag.name,
    slug: tag.slug,
    description: tag.description,
    subscribed_at: subscribedAt.toISOString()
  })),
  events: exported.events.map((event) => ({
    id: event.id,
    type: event.type,
    occurred_at: event.occurredAt.toISOString(),
    data: event.data
  })),
  notes: exported.notes.map((note) => ({
    id: note.id,
    body: note.body,
    created_at: note.createdAt.toISOString(),
    updated_at: note.updatedAt.toISOString()
  })),
  emails: exported.emails.map((email) => ({
    id: email.id,
    kind: email.kind,
    from: email.from,
    subject: email.subject,
    status: email.status,
    created_at: email.createdAt.toISOString()
  })),
  consents: exported.consents.map(toConsentRecord)
})

/** How a data export is offered: a file to save, `roster-data-<date>.json`. */
export const dataExportDisposition = (exported: PreferenceExport) =>
  `attachment; filename="roster-data-${exported.exportedAt.toISOString().slice(0, 10)}.json"`

/** The answer is a file to save: `roster-data-<date>.json`. */
export const asDownload = (exported: PreferenceExport) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "Content-Disposition", dataExportDisposition(exported)))
  )

export const ErasureRequested = Schema.Struct({
  message: Schema.String
}).annotations({ identifier: "ErasureRequested" })

export const erasureRequested: typeof ErasureRequested.Type = {
  message: "Your data will be erased within a minute. The links you were sent no longer work."
}

export const PreferenceTokenParams = Schema.Struct({
  token: Schema.optionalWith(
    Schema.String.annotations({ description: "the preference token of the subscriber's link" }),
    { exact: true }
  ),
  locale: Schema.optionalWith(
    Schema.String.annotations({ description: "for the page browsers get: `en` or `de`, else the best of `Accept-Language`" }),
    { exact: true }
  ),
  saved: Schema.optionalWith(Schema.String.annotations({ description: "for the page: say the last change was saved" }), {
    exact: true
  }),
  confirm: Schema.optionalWith(Schema.String.annotations({ description: "for the page: `erase` asks to confirm the erasure" }), {
    exact: true
  })
})

export const PreferenceTagPath = Schema.Struct({ tag_id: IdInput(TagId, "the tag's id") })

const toPreferenceTag = ({ subscribedAt, tag }: DomainTag): typeof PreferenceTag.Type => ({
  id: tag.id,
  name: tag.name,
  slug: tag.slug,
  description: tag.description,
  subscribed: subscribedAt !== null,
  ...(subscribedAt === null ? {} : { subscribed_at: subscribedAt.toISOString() })
})

export const toPreferenceCenter = ({ organization, subscriber, tags }: PreferenceView): typeof PreferenceCenter.Type => {
  const available = tags.map(toPreferenceTag)
  return {
    organization_name: organization.name,
    email: subscriber.email,
    status: subscriber.status,
    subscribed_tags: available.filter((tag) => tag.subscribed),
    available_tags: available
  }
}

/** Where a subscriber opens their preferences: the page of the link's token. */
export const preferenceCenterUrl = (publicBaseUrl: string, token: string): string =>
  `${publicBaseUrl.replace(/\/+$/, "")}/preference-center?token=${encodeURIComponent(token)}`

export const toPreferenceLink = (publicBaseUrl: string) => (link: DomainLink): typeof PreferenceLink.Type => ({
  token: link.token,
  url: preferenceCenterUrl(publicBaseUrl, link.token),
  expires_at: link.expiresAt.toISOString()
})

/**
 * Runs a preference use case with the request's token; its failures are the errors the service
 * answers, as `answering` makes them.
 */
export const withToken = <A, E extends ApplicationError, R>(
  params: typeof PreferenceTokenParams.Type,
  run: (token: string) => Effect.Effect<A, E, R>
) => answering(Effect.flatMap(preferenceToken(params), run))

/** The token of a preference request; a link without one is as good as a broken one. */
export const preferenceToken = (params: typeof PreferenceTokenParams.Type): Effect.Effect<string, InvalidToken> => {
  const token = params.token?.trim() ?? ""
  return token === "" ? Effect.fail(new InvalidToken({ reason: "the link carries no token" })) : Effect.succeed(token)
}
