import type { OrganizationId, SegmentFilter, Subscriber, SubscriberId } from "@roster/domain"
import { Context, type Effect } from "effect"

/** Which matching subscribers to read: by id ascending, after `after` (an id) or past `offset` rows. */
export interface AudiencePageQuery {
  readonly after?: string | undefined
  readonly offset?: number | undefined
  readonly limit: number
}

/**
 * Who in an organization matches a segment filter at an instant, by the rules of
 * `matchesFilter` in the domain: a subscriber's status, tags, email, creation, metadata, and
 * engagement read from the history of the email sent to them (opened: an `opened` or `clicked`
 * event; clicked: a `clicked` event; received: a `sent`, `delivered`, `opened` or `clicked` event).
 * A subscriber whose erasure is under way matches no filter: they are gone within a minute, and
 * no campaign reaches them. Every adapter answers row for row alike.
 */
export class SegmentAudience extends Context.Tag("roster/SegmentAudience")<SegmentAudience, {
  /** How many subscribers of the organization match at `now`. */
  readonly count: (organizationId: OrganizationId, filter: SegmentFilter, now: Date) => Effect.Effect<number>
  /** The matching subscribers of one page, by id ascending. */
  readonly page: (
    organizationId: OrganizationId,
    filter: SegmentFilter,
    now: Date,
    query: AudiencePageQuery
  ) => Effect.Effect<ReadonlyArray<Subscriber>>
  /** Whether one subscriber of the organization matches at `now` (a trigger's condition). */
  readonly matches: (
    organizationId: OrganizationId,
    filter: SegmentFilter,
    now: Date,
    subscriberId: SubscriberId
  ) => Effect.Effect<boolean>
}>() {}
