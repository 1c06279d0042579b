import type {
  EmailAlreadyExists,
  OrganizationId,
  SortBy,
  SortOrder,
  Subscriber,
  SubscriberId,
  SubscriberStatus,
  TagId
} from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

export type SubscriberSort = "created_at" | "updated_at" | "email"

export interface SubscriberFilter {
  readonly status?: SubscriberStatus | undefined
  readonly tagId?: TagId | undefined
}

/** The fields a numbered page of subscribers may be sorted by. */
export const subscriberPageSorts = ["created_at", "updated_at", "email", "status"] as const
export type SubscriberPageSort = typeof subscriberPageSorts[number]

/** A numbered page: `limit` rows from `offset` on, in the order of the sort keys and then the id. */
export interface SubscriberPageQuery {
  readonly filter: SubscriberFilter
  readonly sort: ReadonlyArray<SortBy<SubscriberPageSort>>
  readonly offset: number
  readonly limit: number
}

/** A keyset position: rows strictly after (`asc`) or before (`desc`) this sort value and id. */
export interface KeysetPosition {
  readonly value: string | number
  readonly id: string
}

export interface SubscriberListQuery extends SubscriberFilter {
  readonly sort: SubscriberSort
  readonly order: SortOrder
  readonly after?: KeysetPosition | undefined
  readonly limit: number
}

/**
 * Subscribers, always within one organization. Sort values: `created_at` and `updated_at` compare
 * as instants (the position holds an ISO string), `email` as the email key in code-point order;
 * ties break on the id in the same direction.
 *
 * Numbered pages (`listPage`) compare the same values, and `status` as its name in code-point
 * order; after the sort keys, ties break on the id in the direction of the last key (ascending
 * when there is none), so that every row has one place and pages never overlap.
 */
export class SubscriberRepository extends Context.Tag("roster/SubscriberRepository")<SubscriberRepository, {
  readonly insert: (subscriber: Subscriber) => Effect.Effect<void, EmailAlreadyExists>
  readonly update: (subscriber: Subscriber) => Effect.Effect<void>
  /** Whether a row was deleted. Its tag assignments go with it, and those tags' counts follow. */
  readonly delete: (organizationId: OrganizationId, id: SubscriberId) => Effect.Effect<boolean>
  readonly findById: (organizationId: OrganizationId, id: SubscriberId) => Effect.Effect<Option.Option<Subscriber>>
  /** As `findById`, holding the row against concurrent changes until the transaction ends. */
  readonly findByIdForUpdate: (
    organizationId: OrganizationId,
    id: SubscriberId
  ) => Effect.Effect<Option.Option<Subscriber>>
  /** Finds by the email key (case-insensitive). */
  readonly findByEmail: (organizationId: OrganizationId, email: string) => Effect.Effect<Option.Option<Subscriber>>
  /** The organization a subscriber id belongs to, whichever it is. */
  readonly organizationOf: (id: SubscriberId) => Effect.Effect<Option.Option<OrganizationId>>
  /** The version the subscriber's preference tokens are issued under (0 at first); None without the subscriber. */
  readonly preferenceTokenVersion: (organizationId: OrganizationId, id: SubscriberId) => Effect.Effect<Option.Option<number>>
  /**
   * Moves the subscriber's preference tokens to the next version, so that every token issued
   * before is refused; the new version, None without the subscriber.
   */
  readonly revokePreferenceTokens: (organizationId: OrganizationId, id: SubscriberId) => Effect.Effect<Option.Option<number>>
  /** At most `limit` rows after the position, in the asked order. */
  readonly list: (organizationId: OrganizationId, query: SubscriberListQuery) => Effect.Effect<ReadonlyArray<Subscriber>>
  /** The rows of one numbered page; past the last row, none. */
  readonly listPage: (
    organizationId: OrganizationId,
    query: SubscriberPageQuery
  ) => Effect.Effect<ReadonlyArray<Subscriber>>
  readonly count: (organizationId: OrganizationId, filter: SubscriberFilter) => Effect.Effect<number>
}>() {}
