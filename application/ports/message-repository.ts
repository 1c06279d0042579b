import type {
  CampaignId,
  Message,
  MessageEvent,
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
 * The messages as they were recorded, and their histories, for reading: the outgoing mail queue
 * ({@link OutgoingMail}) makes and changes them.
 */
export class MessageRepository extends Context.Tag("roster/MessageRepository")<MessageRepository, {
  readonly findById: (organizationId: OrganizationId, id: MessageId) => Effect.Effect<Option.Option<Message>>
  /** The organization a message id belongs to, whichever it is. */
  readonly organizationOf: (id: MessageId) => Effect.Effect<Option.Option<OrganizationId>>
  /** The message's history, oldest first. */
  readonly history: (id: MessageId) => Effect.Effect<ReadonlyArray<MessageEvent>>
  /** The histories of several messages at once, each oldest first. */
  readonly histories: (ids: ReadonlyArray<MessageId>) => Effect.Effect<ReadonlyMap<MessageId, ReadonlyArray<MessageEvent>>>
  readonly list: (query: MessagePageQuery) => Effect.Effect<ReadonlyArray<Message>>
  readonly count: (filter: MessageFilter) => Effect.Effect<number>
  /** The campaign's messages by status, for each of `ids`. */
  readonly campaignStats: (
    ids: ReadonlyArray<CampaignId>
  ) => Effect.Effect<ReadonlyMap<CampaignId, Partial<Record<MessageStatus, number>>>>
  /** The message the provider knows by this id, in whichever organization. */
  readonly findByProviderId: (providerId: string) => Effect.Effect<Option.Option<Message>>
  /** The latest message the provider took for this address, in each organization that sent one. */
  readonly latestTo: (address: string) => Effect.Effect<ReadonlyArray<Message>>
}>() {}
