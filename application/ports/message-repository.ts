import type {
  ActivityWindow,
  CampaignId,
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

/** What a campaign's emails came to over time, as a chart of its figures reads it. */
export interface CampaignActivity {
  /**
   * For each step of the window (0 its first) and each kind of event, how many of the campaign's
   * emails first had that event then; a first time before the window counts in its first step, one
   * after it in its last.
   */
  readonly timeline: ReadonlyArray<{ readonly bucket: number; readonly type: MessageEventType; readonly count: number }>
  /**
   * How many of its recipients whose email went out are unsubscribed now, their last change made
   * after their email was: the campaign's unsubscribes, as near as the records tell.
   */
  readonly unsubscribed: number
}

/** The events a campaign's figures over time count. */
export const activityEventTypes: ReadonlyArray<MessageEventType> = ["delivered", "opened", "clicked", "bounced", "complained"]

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
  /** What the campaign's emails came to in the window: {@link activityEventTypes} over time, and unsubscribes. */
  readonly campaignActivity: (id: CampaignId, window: ActivityWindow) => Effect.Effect<CampaignActivity>
  /** The message the provider knows by this id, in whichever organization. */
  readonly findByProviderId: (providerId: string) => Effect.Effect<Option.Option<Message>>
  /** The latest message the provider took for this address, in each organization that sent one. */
  readonly latestTo: (address: string) => Effect.Effect<ReadonlyArray<Message>>
}>() {}
