import type {
  CampaignId,
  Message,
  MessageEventType,
  MessageId,
  MessageStatus,
  OrganizationId,
  PlanTier,
  SubscriberStatus
} from "@roster/domain"
import { Context, type Effect, type Option } from "effect"
import type { AudienceChunk, SendingCampaign } from "./campaign-repository.js"

/**
 * Messages a worker leased together: one call to the provider. `key` names the batch; the same
 * batch comes back with the same key and the same messages until it is settled, so the provider
 * can tell a repeat (after a killed worker, or a failure that may have reached it) from new mail.
 */
export interface LeasedMessages {
  readonly key: string
  readonly messages: ReadonlyArray<Message>
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

/** What became of one leased email. `subject`, when given, is the subject it was rendered with. */
export type RecipientOutcome =
  | { readonly id: MessageId; readonly status: "sent"; readonly providerId: string; readonly subject?: string | undefined }
  | {
    readonly id: MessageId
    readonly status: Extract<MessageStatus, "suppressed" | "failed" | "sandboxed">
    readonly detail: string
    readonly subject?: string | undefined
  }

/** What the provider said of a message, as it is recorded. */
export interface ProviderReport {
  readonly type: MessageEventType
  readonly occurredAt: Date
  readonly detail: string | null
  /** The report's own id (or a digest of it): the same report is recorded once. */
  readonly key: string
}

/** What a lease asks for: up to `limit` emails due at `now`, held until `now + leaseMs`, a new batch under `newKey`. */
export interface LeaseRequest {
  readonly limit: number
  readonly leaseMs: number
  readonly now: Date
  readonly newKey: string
}

/**
 * The outgoing mail queue: every change to a message goes through it. Single sends and the
 * audience chunks of campaigns are queued here, leased in batches by the workers that hand them
 * to the provider, and settled with what became of them; what the provider reports later is
 * recorded here too. Concurrent workers never lease the same message, and every change of a
 * message's status adds an event to its history. Reading messages is {@link MessageRepository}'s.
 */
export class OutgoingMail extends Context.Tag("roster/OutgoingMail")<OutgoingMail, {
  /**
   * Stores new messages (single sends, or a sequence batch's emails), each with its creation (the
   * domain's `creationEvent`) as the first event of its history; the ids of those that were new.
   * A message whose id is stored already is left as it is (a worker making the same message again
   * after a crash).
   */
  readonly enqueue: (messages: ReadonlyArray<Message>) => Effect.Effect<ReadonlySet<MessageId>>
  /**
   * Queues one email of the chunk's campaign for each of its subscribers who is still there, to
   * their address of now; a subscriber the campaign has a message for already gets none. How many
   * were queued.
   */
  readonly enqueueAudience: (chunk: AudienceChunk, at: Date) => Effect.Effect<number>
  /** Whether any single send or any email of a sending campaign is due: a cheap look before waiting for the provider's rate. */
  readonly anyDue: (now: Date) => Effect.Effect<boolean>
  /**
   * Leases the next batch of single sends due at `now`: the oldest batch whose lease ran out (a
   * killed worker's, or one waiting for its next attempt), whole and under its own key, else up
   * to `limit` queued messages not yet in a batch, oldest first, under `newKey`. Each message's
   * attempt count goes up by one.
   */
  readonly lease: (request: LeaseRequest) => Effect.Effect<Option.Option<LeasedMessages>>
  /**
   * Leases the next campaign batch due at `now`: when `overdue` (the default), a batch whose lease
   * ran out or whose retry came due, whole and under its own key; else up to `limit` queued emails
   * of the next sending campaign after `after` in id order (the first when none is after it),
   * under `newKey`, in the campaign's order and, for a campaign in `positions`, after that
   * position (a batch's `position`). Campaigns take turns, and leasing writes nothing that every
   * lease of a campaign would wait for. Only campaigns in `sending` are served. Emails queued again
   * behind a position (a retried campaign's) are found by a lease without positions.
   */
  readonly leaseCampaign: (request: LeaseRequest & {
    readonly after?: CampaignId | undefined
    readonly overdue?: boolean | undefined
    readonly positions?: ReadonlyMap<CampaignId, string> | undefined
  }) => Effect.Effect<Option.Option<LeasedCampaignBatch>>
  /** Records what became of each email of the batch `key`: it leaves the batch, settled. */
  readonly settle: (key: string, outcomes: ReadonlyArray<RecipientOutcome>, at: Date) => Effect.Effect<void>
  /** An attempt failed and may pass: the batch waits, whole, until `retryAt`. */
  readonly postpone: (key: string, retryAt: Date, error: string, at: Date) => Effect.Effect<void>
  /** The batch is broken up: its messages go out on their own from now on (one bad email refused them all). */
  readonly unbatch: (key: string, at: Date) => Effect.Effect<void>
  /** The campaign's failed emails are queued again, their attempts counted from nought. */
  readonly requeueFailed: (campaignId: CampaignId, at: Date) => Effect.Effect<void>
  /** The campaign's queued emails not in a batch fail with `reason` (a batch in flight settles as it goes). */
  readonly failQueued: (campaignId: CampaignId, reason: string, at: Date) => Effect.Effect<void>
  /** Deletes up to `limit` emails of cancelled campaigns that were never handed over; how many. */
  readonly withdrawCancelled: (limit: number) => Effect.Effect<number>
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
