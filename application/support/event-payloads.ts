import type { Subscriber, Tag, TagSubscription } from "@roster/domain"

/**
 * The `data` of outgoing events, in the snake_case JSON that webhook receivers get. One shape for
 * every wire form, so receivers never depend on how the API is deployed.
 */

export const tagReference = (tag: Tag) => ({ id: tag.id, name: tag.name, slug: tag.slug })

export const subscriberSnapshot = (subscriber: Subscriber, tags: ReadonlyArray<TagSubscription>) => ({
  id: subscriber.id,
  email: subscriber.email,
  status: subscriber.status,
  first_name: subscriber.firstName,
  last_name: subscriber.lastName,
  metadata: subscriber.metadata,
  tags: tags.map(({ subscribedAt, tag }) => ({ ...tagReference(tag), subscribed_at: subscribedAt.toISOString() })),
  created_at: subscriber.createdAt.toISOString(),
  updated_at: subscriber.updatedAt.toISOString()
})

export const tagSubscriptionData = (subscriber: { readonly id: string; readonly email: string }, tag: Tag) => ({
  subscriber: { id: subscriber.id, email: subscriber.email },
  tag: tagReference(tag)
})
