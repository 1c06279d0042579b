import type {
  EmailAlreadyExists,
  OrganizationId,
  SortBy,
  SortOrder,
  Subscriber,
  SubscriberId,
  SubscriberStatus,
  TagId,
  TagSubscription
} from "@roster/domain"
import { Context, type Effect, type Option, type Stream } from "effect"

export type SubscriberSort = "created_at" | "updated_at" | "email"

export interface SubscriberFilter {
  readonly status?: SubscriberStatus | undefined
  readonly tagId?: TagId | undefined
}

/** A filter of the subscriber lists, which may also ask for the start of the email. */
export interface SubscriberSearch extends SubscriberFilter {
  /**
   * Only subscribers whose email key starts with the email key of this text (`emailKey`: letter
   * case ignored); every character stands for itself.
   */
  readonly emailPrefix?: string | undefined
}

/** The fields a numbered page of subscribers may be sorted by. */
export const subscriberPageSorts = ["created_at", "updated_at", "email", "status"] as const
export type SubscriberPageSort = typeof subscriberPageSorts[number]

/** A numbered page: `limit` rows from `offset` on, in the order of the sort keys and then the id. */
export interface SubscriberPageQuery {
  readonly filter: SubscriberSearch
  readonly sort: ReadonlyArray<SortBy<SubscriberPageSort>>
  readonly offset: number
  readonly limit: number
}

/** What a subscriber's preference tokens are checked against. */
export interface PreferenceAccess {
  /** The version their tokens are issued under (0 at first); a token of another version is revoked. */
  readonly tokenVersion: number
  /** When they asked to be erased; their tokens then do nothing but ask again. */
  readonly erasureRequestedAt: Date | null
}

/** A page of a list that runs oldest first: after a keyset position, or past a number of rows. */
export interface OldestFirstQuery {
  readonly after?: KeysetPosition | undefined
  readonly offset?: number | undefined
  readonly limit: number
}

export interface KeysetPosition {
  readonly value: string | number
  readonly id: string
}

export interface SubscriberListQuery extends SubscriberSearch {
  readonly sort: SubscriberSort
  readonly order: SortOrder
  readonly after?: KeysetPosition | undefined
  readonly limit: number
}

export interface StatusCount {
  readonly status: SubscriberStatus
  readonly count: number
}

export interface DayRange {
  readonly from: Date
  readonly to: Date
  readonly timeZone: string
}

export interface DayCount {
  /** The calendar day in the range's time zone, `YYYY-MM-DD`. */
  readonly day: string
  readonly count: number
}

/** A subscriber as an export writes it out: plain values, read in bulk. */
export interface ExportedSubscriber {
  readonly id: SubscriberId
  readonly email: string
  readonly firstName: string | null
  readonly lastName: string | null
  readonly status: SubscriberStatus
  /** Their tags' names, oldest attachment first; subscribers of a page with the same tags may share one list. */
  readonly tagNames: ReadonlyArray<string>
  readonly metadata: Readonly<Record<string, unknown>>
  /** When they were created, as ISO 8601 text to the millisecond in UTC (`2026-01-31T09:15:00.000Z`). */
  readonly createdAt: string
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
  /** As `findById`, with the subscriber's tags (oldest subscription first), read together. */
  readonly findWithTags: (
    organizationId: OrganizationId,
    id: SubscriberId
  ) => Effect.Effect<Option.Option<{ readonly subscriber: Subscriber; readonly tags: ReadonlyArray<TagSubscription> }>>
  /** As `findById`, holding the row against concurrent changes until the transaction ends. */
  readonly findByIdForUpdate: (
    organizationId: OrganizationId,
    id: SubscriberId
  ) => Effect.Effect<Option.Option<Subscriber>>
  /**
   * The organization's subscribers among `ids`, each held as `findByIdForUpdate` holds one, taken
   * in id order (so that two batches never wait for each other in a circle).
   */
  readonly findManyForUpdate: (
    organizationId: OrganizationId,
    ids: ReadonlyArray<SubscriberId>
  ) => Effect.Effect<ReadonlyArray<Subscriber>>
  /** Finds by the email key (case-insensitive). */
  readonly findByEmail: (organizationId: OrganizationId, email: string) => Effect.Effect<Option.Option<Subscriber>>
  /** The organization a subscriber id belongs to, whichever it is. */
  readonly organizationOf: (id: SubscriberId) => Effect.Effect<Option.Option<OrganizationId>>
  /**
   * Every subscriber with this email key (case-insensitive), in whichever organization: what a
   * report of the email provider about an address reaches.
   */
  readonly holdersOf: (email: string) => Effect.Effect<
    ReadonlyArray<{ readonly organizationId: OrganizationId; readonly id: SubscriberId }>
  >
  /** What preference tokens of the subscriber need to be checked against; None without the subscriber. */
  readonly preferenceAccess: (organizationId: OrganizationId, id: SubscriberId) => Effect.Effect<Option.Option<PreferenceAccess>>
  /** As `preferenceAccess` for many at once: those of `ids` that are the organization's subscribers. */
  readonly preferenceAccesses: (
    organizationId: OrganizationId,
    ids: ReadonlyArray<SubscriberId>
  ) => Effect.Effect<ReadonlyMap<SubscriberId, PreferenceAccess>>
  /**
   * Moves the subscriber's preference tokens to the next version, so that every token issued
   * before is refused; the new version, None without the subscriber.
   */
  readonly revokePreferenceTokens: (organizationId: OrganizationId, id: SubscriberId) => Effect.Effect<Option.Option<number>>
  /** Notes that the subscriber asked to be erased, once (a later request keeps the first time); whether the subscriber exists. */
  readonly requestErasure: (organizationId: OrganizationId, id: SubscriberId, at: Date) => Effect.Effect<boolean>
  /**
   * Up to `limit` subscribers whose erasure was asked for, longest waiting first. Inside a
   * transaction they stay locked until it ends, and other workers skip them rather than wait.
   */
  readonly claimErasures: (limit: number) => Effect.Effect<ReadonlyArray<{ readonly organizationId: OrganizationId; readonly id: SubscriberId }>>
  /** At most `limit` rows after the position, in the asked order. */
  readonly list: (organizationId: OrganizationId, query: SubscriberListQuery) => Effect.Effect<ReadonlyArray<Subscriber>>
  /** The rows of one numbered page; past the last row, none. */
  readonly listPage: (
    organizationId: OrganizationId,
    query: SubscriberPageQuery
  ) => Effect.Effect<ReadonlyArray<Subscriber>>
  /**
   * How many subscribers match; with `upTo`, counting stops there (the answer is then at most
   * `upTo`), so that the work is bounded however many match.
   */
  readonly count: (organizationId: OrganizationId, filter: SubscriberSearch, upTo?: number) => Effect.Effect<number>
  /** How many subscribers the organization has in each status; a status it has none in is left out. */
  readonly countByStatus: (organizationId: OrganizationId) => Effect.Effect<ReadonlyArray<StatusCount>>
  /**
   * How many subscribers were created on each day of `[from, to)`, days as `timeZone` (an IANA
   * name the caller has checked) counts them: the days with any, as `YYYY-MM-DD`, oldest first.
   */
  readonly createdPerDay: (organizationId: OrganizationId, range: DayRange) => Effect.Effect<ReadonlyArray<DayCount>>
  /**
   * The next `limit` subscribers matching `filter` after `after`, oldest first (by creation,
   * then id), as an export writes them.
   */
  readonly exportPage: (
    organizationId: OrganizationId,
    query: SubscriberFilter & { readonly after?: KeysetPosition | undefined; readonly limit: number }
  ) => Effect.Effect<ReadonlyArray<ExportedSubscriber>>
  /** Every key the metadata of the matching subscribers uses, each once, in code-point order. */
  readonly metadataKeys: (organizationId: OrganizationId, filter: SubscriberFilter) => Effect.Effect<ReadonlyArray<string>>
  /**
   * Every subscriber matching `filter`, oldest first (by creation, then id), as `exportPage` gives
   * them, in pages of about `pageSize` each read as the one before is taken: memory holds a page
   * or so however many there are. Their metadata holds at least `metadataKeys` (other keys may be
   * left out). A store that can reads them all in one statement, so from one snapshot.
   */
  readonly exportAll: (
    organizationId: OrganizationId,
    query: SubscriberFilter & { readonly metadataKeys: ReadonlyArray<string>; readonly pageSize: number }
  ) => Stream.Stream<ReadonlyArray<ExportedSubscriber>>
}>() {}
