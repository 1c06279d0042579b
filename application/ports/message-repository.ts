import type {
  Message,
  MessageEvent,
  MessageEventType,
  MessageId,
  MessageStatus,
  OrganizationId,
  SubscriberId
} from "@roster/domain"
import { Context, type Effect, type Option } from "effect"
import type { KeysetPosition } from "./subscriber-repository.js"

/** Which of an organization's messages a list holds. */
export interface MessageFilter {
  readonly organizationId: OrganizationId
  readonly subscriberId?: SubscriberId | undefined
  readonly status?: MessageStatus | undefined
}

/** One page of the filter's messages, newest first: `limit` rows after `after`, or past `offset` rows. */
export interface MessagePageQuery extends MessageFilter {
  readonly limit: number
  readonly after?: KeysetPosition | undefined
  readonly offset?: number | undefined
}

/**
 * Messages a worker leased together: one call to the provider. `key` names the batch; the same
 * batch comes back with the same key and the same messages until it is settled, so the provider
 * can tell a repeat (after a killed worker, or a failure that may have reached it) from new mail.
 */
export interface LeasedMessages {
  readonly key: string
  readonly messages: ReadonlyArray<Message>
}

/** What the provider said of a message, as it is recorded. */
export interface ProviderReport {
  readonly type: MessageEventType
  readonly occurredAt: Date
  readonly detail: string | null
  /** The report's own id (or a digest of it): the same report is recorded once. */
  readonly key: string
}

export class MessageRepository extends Context.Tag("roster/MessageRepository")<MessageRepository, {
  /**
   * Stores a new message with the first event of its history; whether it was new. A message whose
   * id is stored already is left as it is (a worker making the same message again after a crash).
   */
  readonly insert: (message: Message, first: MessageEvent) => Effect.Effect<boolean>
  readonly findById: (organizationId: OrganizationId, id: MessageId) => Effect.Effect<Option.Option<Message>>
  /** The organization a message id belongs to, whichever it is. */
  readonly organizationOf: (id: MessageId) => Effect.Effect<Option.Option<OrganizationId>>
  /** The message's history, oldest first. */
  readonly history: (id: MessageId) => Effect.Effect<ReadonlyArray<MessageEvent>>
  /** The histories of several messages at once, each oldest first. */
  readonly histories: (ids: ReadonlyArray<MessageId>) => Effect.Effect<ReadonlyMap<MessageId, ReadonlyArray<MessageEvent>>>
  readonly list: (query: MessagePageQuery) => Effect.Effect<ReadonlyArray<Message>>
  readonly count: (filter: MessageFilter) => Effect.Effect<number>
  /** Whether any message or batch is due at `now`: a cheap look before waiting for the provider's rate. */
  readonly anyDue: (now: Date) => Effect.Effect<boolean>
  /**
   * Leases the next batch due at `now` until `now + leaseMs`: the oldest batch whose lease ran out
   * (a killed worker's, or one waiting for its next attempt), whole and under its own key, else up
   * to `limit` queued messages not yet in a batch, oldest first, under `newKey`. Each message's
   * attempt count goes up by one. Concurrent workers never lease the same message.
   */
  readonly leaseDue: (options: {
    readonly limit: number
    readonly leaseMs: number
    readonly now: Date
    readonly newKey: string
  }) => Effect.Effect<Option.Option<LeasedMessages>>
  /** The provider took the batch: each message is `sent` with its provider id, in the batch's order. */
  readonly markSent: (
    key: string,
    sent: ReadonlyArray<{ readonly id: MessageId; readonly providerId: string }>,
    at: Date
  ) => Effect.Effect<void>
  /** An attempt failed and may pass: the batch waits, whole, until `retryAt`. */
  readonly postpone: (key: string, retryAt: Date, error: string, at: Date) => Effect.Effect<void>
  /** The batch is broken up: its messages go out on their own from now on (one bad email refused them all). */
  readonly unbatch: (key: string, at: Date) => Effect.Effect<void>
  /** The messages of the batch will not be sent: `failed`, with why. */
  readonly markFailed: (key: string, error: string, at: Date) => Effect.Effect<void>
  /** The message the provider knows by this id, in whichever organization. */
  readonly findByProviderId: (providerId: string) => Effect.Effect<Option.Option<Message>>
  /** The latest message the provider took for this address, in each organization that sent one. */
  readonly latestTo: (address: string) => Effect.Effect<ReadonlyArray<Message>>
  /**
   * Notes that the provider's report with this key was applied in the organization; whether it is
   * the first time. Inside a transaction the note commits with it, and a concurrent claim of the
   * same key waits for it, so a report is applied once in each organization.
   */
  readonly claimReport: (organizationId: OrganizationId, key: string, at: Date) => Effect.Effect<boolean>
  /**
   * Records a provider's report on a message and moves its status to `next(current)`, the message
   * held meanwhile so that reports arriving together apply one after the other; a report whose
   * key was recorded already changes nothing. Whether it was recorded now.
   */
  readonly recordReport: (
    id: MessageId,
    report: ProviderReport,
    next: (current: MessageStatus) => MessageStatus
  ) => Effect.Effect<boolean>
}>() {}
