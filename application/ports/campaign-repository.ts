import type {
  Campaign,
  CampaignAction,
  CampaignContent,
  CampaignId,
  CampaignStatus,
  MessageKind,
  OrganizationId,
  SegmentFilter,
  SegmentId,
  SubscriberId,
  TagId
} from "@roster/domain"
import { Context, type Effect, type Option } from "effect"
import type { KeysetPosition } from "./subscriber-repository.js"

export interface CampaignFilter {
  readonly organizationId: OrganizationId
  readonly status?: CampaignStatus | undefined
}

/** One page of the filter's campaigns, newest first: `limit` rows after `after`, or past `offset` rows. */
export interface CampaignPageQuery extends CampaignFilter {
  readonly limit: number
  readonly after?: KeysetPosition | undefined
  readonly offset?: number | undefined
}

/** What a sending campaign's emails are made of, fixed when sending starts. */
export interface CampaignSendout {
  readonly content: CampaignContent
  /** The `From` header, from the sender settings of the moment. */
  readonly from: string
  readonly organizationName: string
}

/** A campaign in `sending`, with what its emails are made of. */
export interface SendingCampaign {
  readonly campaign: Campaign
  readonly sendout: CampaignSendout
}

/** The next recipients of a sending campaign's fixed audience, taken to become its messages. */
export interface AudienceChunk {
  readonly campaign: Campaign
  /** The `From` header fixed when sending started. */
  readonly from: string
  /** Subscriber ids in id order, after the last chunk's. */
  readonly subscriberIds: ReadonlyArray<SubscriberId>
  /** Whether the audience is taken whole with this chunk. */
  readonly complete: boolean
}

/**
 * A campaign's audience as the store selects it: the subscribers of the organization whose state
 * the campaign's kind reaches and whose erasure is not under way, that its segment's filter
 * matches at `at` (when the audience is a segment) or that carry any of `tagIds` (every one when
 * empty), less those with any of `excludeTagIds`. The use cases read the segment; the store
 * counts and fixes the audience with one condition made of this.
 */
export interface AudienceSelection {
  readonly tagIds: ReadonlyArray<TagId>
  readonly excludeTagIds: ReadonlyArray<TagId>
  /** The filter of the campaign's segment, as it is now; `null` for an audience of tags. */
  readonly filter: SegmentFilter | null
  /** The instant the filter is read at (its engagement conditions count back from it). */
  readonly at: Date
}

interface MoveChanges {
  readonly at: Date
  /** Why the campaign failed; cleared on any other move. */
  readonly failureReason?: string | null | undefined
  readonly scheduledAt?: Date | null | undefined
  readonly sandboxed?: boolean | undefined
  /**
   * Moves only a campaign that is done: its audience taken whole, none of its emails queued, and
   * `failed` of them failed (a count read before the move, checked again with it).
   */
  readonly whenDone?: { readonly failed: number } | undefined
}

/**
 * What a move records besides the new state. A move into `sending` from a draft or a schedule
 * carries what its emails are made of (`sendout`) and who receives them (`audience`): the audience
 * is fixed as it is now (once), and taken later by {@link CampaignRepository.takeAudience}.
 */
export type CampaignMoveChanges =
  & MoveChanges
  & (
    | { readonly sendout?: undefined; readonly audience?: undefined }
    | { readonly sendout: CampaignSendout; readonly audience: AudienceSelection }
  )

/**
 * Campaigns: their records, and their moves from state to state as the domain's transition table
 * says (`campaignMoves`). Every move is conditional on the state it starts from: of two requests
 * racing, one wins and the other sees `none`. The audience is one query, used alike to count
 * recipients and to fix them, so the two numbers agree. The messages of a campaign are the
 * outgoing mail queue's ({@link OutgoingMail}).
 */
export class CampaignRepository extends Context.Tag("roster/CampaignRepository")<CampaignRepository, {
  readonly insert: (campaign: Campaign) => Effect.Effect<void>
  readonly findById: (organizationId: OrganizationId, id: CampaignId) => Effect.Effect<Option.Option<Campaign>>
  /** One page of the filter's campaigns, and how many the filter holds in all. */
  readonly list: (query: CampaignPageQuery) => Effect.Effect<ReadonlyArray<Campaign>>
  readonly count: (filter: CampaignFilter) => Effect.Effect<number>
  /** Stores the campaign as given (its state chosen by the table) if it is still in `from`; whether it was. */
  readonly save: (campaign: Campaign, from: CampaignStatus) => Effect.Effect<boolean>
  /**
   * Moves the campaign as the table's moves for `action` say, with `changes`; the campaign as it
   * is now, or `none` when it was in no state the action starts from (or, `whenDone`, not done).
   */
  readonly transition: (
    id: CampaignId,
    action: CampaignAction,
    changes: CampaignMoveChanges
  ) => Effect.Effect<Option.Option<Campaign>>
  /** How many subscribers of the organization the audience holds now. */
  readonly countAudience: (
    organizationId: OrganizationId,
    audience: AudienceSelection,
    kind: MessageKind
  ) => Effect.Effect<number>
  /**
   * The campaigns of the organization whose audience is the segment and is not fixed yet (drafts,
   * scheduled ones, and failed ones that never started, which a retry starts), oldest first.
   */
  readonly usingSegment: (organizationId: OrganizationId, segmentId: SegmentId) => Effect.Effect<ReadonlyArray<CampaignId>>
  /** Scheduled campaigns whose time has come, oldest schedule first. */
  readonly dueScheduled: (now: Date, limit: number) => Effect.Effect<ReadonlyArray<Campaign>>
  /**
   * Takes the next `limit` recipients of a sending campaign whose audience is not complete yet,
   * in id order after the last chunk's, and moves its place on. Inside a transaction the campaign
   * stays held until it ends, so that workers never take the same campaign at once and the chunk
   * becomes messages in the same transaction.
   */
  readonly takeAudience: (limit: number) => Effect.Effect<Option.Option<AudienceChunk>>
  /**
   * Sending campaigns whose audience is taken whole and none of whose emails is queued (only `id`,
   * when given): their ids. A cheap look, before their emails are counted to end them.
   */
  readonly doneSending: (limit: number, id?: CampaignId) => Effect.Effect<ReadonlyArray<CampaignId>>
}>() {}
