import { Schema } from "effect"
import { EventId, OrganizationId } from "./ids.js"

/**
 * Kinds of events that external systems can subscribe to, each with what it means and, where its
 * `data` is not about a subscriber, what that holds.
 */
export const eventTypeDescriptions = {
  "subscriber.created": "a subscriber was created",
  "subscriber.updated": "a subscriber's status, metadata or name changed",
  "subscriber.deleted": "a subscriber was deleted",
  "tag.subscribed": "a tag was attached to a subscriber",
  "tag.unsubscribed": "a tag was detached from a subscriber",
  "subscriber.note_added": "a note was added to a subscriber",
  "subscriber.confirmed": "a reader confirmed their sign-up (through a form, or asked for through the API), and is subscribed",
  "form.list_full":
    "a sign-up through a form was refused because the plan holds no more subscribers (at most one an hour per form); " +
    "data: form {id, name}, tier, max_subscribers"
} as const

export type EventType = keyof typeof eventTypeDescriptions
export const eventTypes = Object.keys(eventTypeDescriptions) as ReadonlyArray<EventType>
export const EventType = Schema.Literal(...(eventTypes as [EventType, ...Array<EventType>]))

/** Something that happened, recorded in the same transaction as the change it describes. */
export class DomainEvent extends Schema.Class<DomainEvent>("DomainEvent")({
  id: EventId,
  organizationId: OrganizationId,
  type: EventType,
  occurredAt: Schema.DateFromSelf,
  /** The payload's `data`, in the snake_case JSON that webhook receivers get. */
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}) {}

/**
 * How long after a `form.list_full` event no other is recorded for the same form: a full list
 * refuses every reader who tries, and the owner needs to hear of it once, not once per reader.
 */
export const LIST_FULL_NOTICE_INTERVAL_MS = 60 * 60_000
