import {
  type EmailAddress,
  type Metadata,
  type OrganizationId,
  type Slug,
  Subscriber,
  type SubscriberId,
  type SubscriberStatus,
  Tag,
  type TagId,
  type TagSubscription,
  type TagVisibility
} from "@roster/domain"
import type { PreferenceAccess } from "@roster/application"
import type { Row } from "./rows.js"

/**
 * The rows read on every request, made into domain values field by field, without decoding:
 * the database holds only what the domain wrote (its constraints say so), and these are read too
 * often to check again. Everything else is decoded with its schema (rows.ts).
 */

export const subscriberOfRow = (row: Row): Subscriber =>
  new Subscriber({
    id: row.id as SubscriberId,
    organizationId: row.organization_id as OrganizationId,
    email: row.email as EmailAddress,
    status: row.status as SubscriberStatus,
    metadata: row.metadata as Metadata,
    firstName: row.first_name as string | null,
    lastName: row.last_name as string | null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date
  }, true)

/** What a subscriber's preference tokens are checked against (`token_version`, `erasure_requested_at`): read for every email queued and every token checked. */
export const preferenceAccessOfRow = (row: Row): PreferenceAccess => ({
  tokenVersion: row.token_version as number,
  erasureRequestedAt: row.erasure_requested_at as Date | null
})

/** The tags of a subscriber as `tagSubscriptionsJson` aggregates them. */
const tagSubscriptionOf = (json: Row): TagSubscription => ({
  subscribedAt: new Date(json.subscribed_at as string),
  tag: new Tag({
    id: json.id as TagId,
    organizationId: json.organization_id as OrganizationId,
    name: json.name as string,
    slug: json.slug as Slug,
    description: json.description as string | null,
    displayName: json.display_name as string | null,
    category: json.category as string | null,
    visibility: json.visibility as TagVisibility,
    metadata: json.metadata as Metadata,
    subscriberCount: json.subscriber_count as number,
    createdAt: new Date(json.created_at as string),
    updatedAt: new Date(json.updated_at as string)
  }, true)
})

export const tagSubscriptionsOfJson = (json: unknown): ReadonlyArray<TagSubscription> =>
  (json as ReadonlyArray<Row>).map(tagSubscriptionOf)

/**
 * A correlated subquery with the tags of subscriber `s` as one JSON array, oldest subscription
 * first, for `tagSubscriptionsOfJson`.
 */
export const tagSubscriptionsJson = `(
  SELECT coalesce(json_agg(json_build_object(
    'subscribed_at', st.subscribed_at, 'id', t.id, 'organization_id', t.organization_id, 'name', t.name,
    'slug', t.slug, 'description', t.description, 'display_name', t.display_name, 'category', t.category,
    'visibility', t.visibility, 'metadata', t.metadata, 'subscriber_count', t.subscriber_count, 'created_at', t.created_at, 'updated_at', t.updated_at
  ) ORDER BY st.subscribed_at, t.id), '[]'::json)
  FROM subscriber_tags st JOIN tags t ON t.id = st.tag_id
  WHERE st.subscriber_id = s.id
)`
