import type {
  Campaign,
  CampaignAudience,
  CampaignContent,
  CampaignId,
  CampaignStatus,
  Message,
  MessageKind,
  MessageStatus,
  OrganizationId,
  PlanTier,
  SubscriberStatus
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

/** A recipient as their email is rendered, read when the email is handed over. */
export interface CampaignRecipient {
  readonly message: Message
  readonly status: SubscriberStatus
  readonly firstName: string | null
  readonly lastName: string | null
  readonly metadata: Readonly<Record<string, unknown>>
  readonly tagNames: ReadonlyArray<string>
  readonly tokenVersion: number
  readonly erasureRequested: boolean
}

/** Recipients leased together, under `key`, for one call to the provider. */
export interface LeasedCampaignBatch {
  readonly key: string
  readonly campaign: SendingCampaign
  /** The organization's plan now, for its monthly email limit. */
  readonly tier: PlanTier
  readonly recipients: ReadonlyArray<CampaignRecipient>
  /** Where the batch ends in its campaign's order: the next lease of the campaign can start after it. */
  readonly position: string
}

/** What became of one leased email. */
export type RecipientOutcome =
  | { readonly id: Message["id"]; readonly status: "sent"; readonly providerId: string; readonly subject: string }
  | {
    readonly id: Message["id"]
    readonly status: Extract<MessageStatus, "suppressed" | "failed" | "sandboxed">
    readonly detail: string
    readonly subject: string
  }

/**
 * Campaigns, and the messages of their recipients. The audience is one query, used alike to
 * count recipients and to make their messages, so the two numbers agree. Changes of state are
 * conditional on the state they start from: of two requests racing, one wins and the other sees
 * `none`.
 */
export class CampaignRepository extends Context.Tag("roster/CampaignRepository")<CampaignRepository, {
  readonly insert: (campaign: Campaign) => Effect.Effect<void>
  readonly findById: (organizationId: OrganizationId, id: CampaignId) => Effect.Effect<Option.Option<Campaign>>
  readonly list: (query: CampaignPageQuery) => Effect.Effect<ReadonlyArray<Campaign>>
  readonly count: (filter: CampaignFilter) => Effect.Effect<number>
  /** The campaign's messages by status, for each of `ids`. */
  readonly stats: (ids: ReadonlyArray<CampaignId>) => Effect.Effect<ReadonlyMap<CampaignId, Partial<Record<MessageStatus, number>>>>
  /** Stores the campaign as given if it is still in one of `from`; whether it was. */
  readonly save: (campaign: Campaign, from: ReadonlyArray<CampaignStatus>) => Effect.Effect<boolean>
  /**
   * Moves the campaign from one of `from` to `to`, with `changes` (when, why); the campaign as it
   * is now, or `none` when it was in none of `from`.
   */
  readonly transition: (
    id: CampaignId,
    from: ReadonlyArray<CampaignStatus>,
    to: CampaignStatus,
    changes: { readonly at: Date; readonly failureReason?: string | null; readonly scheduledAt?: Date | null; readonly sandboxed?: boolean }
  ) => Effect.Effect<Option.Option<Campaign>>
  /**
   * Moves the campaign from one of `from` to `sending` with what its emails are made of (and, when
   * given, whether they are sandboxed); the
   * audience is taken from now on, in chunks, by {@link fixAudience}. Subscribers who join later
   * are not in it.
   */
  readonly start: (
    id: CampaignId,
    from: ReadonlyArray<CampaignStatus>,
    sendout: CampaignSendout,
    at: Date,
    sandboxed?: boolean
  ) => Effect.Effect<Option.Option<Campaign>>
  /** A failed campaign goes `sending` again, its failed emails queued anew; `none` if it was not failed. */
  readonly retry: (id: CampaignId, at: Date) => Effect.Effect<Option.Option<Campaign>>
  /** How many subscribers of the organization the audience holds now. */
  readonly countAudience: (
    organizationId: OrganizationId,
    audience: CampaignAudience,
    kind: MessageKind
  ) => Effect.Effect<number>
  /** Scheduled campaigns whose time has come, oldest schedule first. */
  readonly dueScheduled: (now: Date, limit: number) => Effect.Effect<ReadonlyArray<Campaign>>
  /**
   * Makes the messages of the next `limit` recipients of a sending campaign whose audience is not
   * complete yet (one statement, recipients in id order after the last chunk's); which campaign,
   * and whether its audience is now complete. Workers never take the same campaign at once.
   */
  readonly fixAudience: (
    limit: number,
    at: Date
  ) => Effect.Effect<Option.Option<{ readonly id: CampaignId; readonly added: number; readonly complete: boolean }>>
  /** Whether any campaign email is due: a cheap look before waiting for the provider's rate. */
  readonly anyDue: (now: Date) => Effect.Effect<boolean>
  /**
   * Leases the next campaign batch due at `now` until `now + leaseMs`: when `overdue` (the default),
   * a batch whose lease ran out or whose retry came due, whole and under its own key; else up to
   * `limit` queued emails of the next sending campaign after `after` in id order (the first when
   * none is after it), under `newKey`, in the campaign's order and, for a campaign in `positions`,
   * after that position (a batch's `position`). Campaigns take turns, and leasing writes nothing
   * that every lease of a campaign would wait for. Only campaigns in `sending` are served. Emails
   * queued again behind a position (a retried campaign's) are found by a lease without positions.
   */
  readonly leaseDue: (options: {
    readonly limit: number
    readonly leaseMs: number
    readonly now: Date
    readonly newKey: string
    readonly after?: CampaignId | undefined
    readonly overdue?: boolean | undefined
    readonly positions?: ReadonlyMap<CampaignId, string> | undefined
  }) => Effect.Effect<Option.Option<LeasedCampaignBatch>>
  /** Records what became of each email of the batch. */
  readonly settle: (key: string, outcomes: ReadonlyArray<RecipientOutcome>, at: Date) => Effect.Effect<void>
  /**
   * Stops a sending campaign as `failed` with `reason`: its emails not handed over yet fail with
   * the same reason (and `retry` queues them again).
   */
  readonly stop: (id: CampaignId, reason: string, at: Date) => Effect.Effect<void>
  /**
   * Ends a sending campaign once its audience is complete and no email is queued: `sent`, or
   * `failed` when some failed. The campaign as it ends, or `none` while it is not done.
   */
  readonly finishIfDone: (
    id: CampaignId,
    at: Date,
    failedReason: (failed: number) => string
  ) => Effect.Effect<Option.Option<Campaign>>
  /** Sending campaigns that are done, for a worker that missed their end; their ids. */
  readonly doneSending: (limit: number) => Effect.Effect<ReadonlyArray<CampaignId>>
  /** Deletes up to `limit` emails of cancelled campaigns that were never handed over; how many. */
  readonly withdrawCancelled: (limit: number) => Effect.Effect<number>
}>() {}
