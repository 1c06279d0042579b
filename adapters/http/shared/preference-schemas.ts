import type { PreferenceLink as DomainLink, PreferenceTag as DomainTag, PreferenceView } from "@roster/application"
import { InvalidToken, SubscriberStatus, TagId } from "@roster/domain"
import { Effect, Schema } from "effect"
import { IdInput, oneOf, Timestamp, Uuid } from "./wire-fields.js"

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

export const PreferenceTokenParams = Schema.Struct({
  token: Schema.optionalWith(
    Schema.String.annotations({ description: "the preference token of the subscriber's link" }),
    { exact: true }
  )
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

/** The token of a preference request; a link without one is as good as a broken one. */
export const preferenceToken = (params: typeof PreferenceTokenParams.Type): Effect.Effect<string, InvalidToken> => {
  const token = params.token?.trim() ?? ""
  return token === "" ? Effect.fail(new InvalidToken({ reason: "the link carries no token" })) : Effect.succeed(token)
}
