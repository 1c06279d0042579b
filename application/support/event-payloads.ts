import { type DomainEvent, instantText, type Note, type Subscriber, type Tag, type TagSubscription } from "@roster/domain"

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
  tags: tags.map(({ subscribedAt, tag }) => ({ id: tag.id, name: tag.name, slug: tag.slug, subscribed_at: instantText(subscribedAt) })),
  created_at: instantText(subscriber.createdAt),
  updated_at: instantText(subscriber.updatedAt)
})

export const tagSubscriptionData = (subscriber: { readonly id: string; readonly email: string }, tag: Tag) => ({
  subscriber: { id: subscriber.id, email: subscriber.email },
  tag: tagReference(tag)
})

/** A note as the API shows it, with whom it is about. */
export const noteData = (note: Note, subscriber: { readonly id: string; readonly email: string }) => ({
  subscriber: { id: subscriber.id, email: subscriber.email },
  note: {
    id: note.id,
    subscriber_id: note.subscriberId,
    body: note.body,
    author: { type: note.author.kind, id: note.author.id },
    created_at: instantText(note.createdAt),
    updated_at: instantText(note.updatedAt)
  }
})

/** The `source` an import's events carry in their data, so that receivers can tell them apart. */
export const IMPORT_EVENT_SOURCE = "import"

/** Whether an event was recorded by an import (email triggers do not fire for those). */
export const isImportEvent = (event: DomainEvent): boolean => event.data.source === IMPORT_EVENT_SOURCE
