import { Context, type Effect } from "effect"

/** One kind of background work that waits in the database. */
export interface Backlog {
  /** Items waiting, whether their time has come or not. */
  readonly waiting: number
  /** Of those, the ones whose time has come (a leased item's time comes when its lease runs out). */
  readonly due: number
  /** When the longest-waiting due item came due; null when none is due. */
  readonly oldestDueAt: Date | null
}

/** The background work waiting in the database at one moment. */
export interface WorkBacklogSnapshot {
  /** Recorded events not yet handed on to webhooks and triggers; each is due when it occurred. */
  readonly events: Backlog
  /** Webhook deliveries still pending (retries included). */
  readonly webhookDeliveries: Backlog
  /** Single sends queued for the provider. */
  readonly emails: Backlog
  /** Campaign emails queued for the provider; they leave at the provider's rate, so a long backlog is normal. */
  readonly campaignEmails: Backlog
  /** Campaigns scheduled; due once their time has come. */
  readonly scheduledCampaigns: Backlog
  /** Campaigns sending now. */
  readonly sendingCampaigns: number
  /** Trigger emails waiting for their delay to pass. */
  readonly triggerFirings: Backlog
  /**
   * Enrollments in active sequences, each waiting for its next step: due once its time has come
   * (those of paused sequences wait without a time, and are left out).
   */
  readonly sequenceSteps: Backlog
  /**
   * Imports sent over HTTP and not yet ended: a queued one is due from when it was queued (one
   * handed back, from its last batch), a running one when its worker's lease runs out.
   */
  readonly imports: Backlog
}

/** Read-only figures about the background work, for health checks: nothing is claimed or locked. */
export class WorkBacklog extends Context.Tag("roster/WorkBacklog")<WorkBacklog, {
  /** The backlog as it stands at `now`. */
  readonly snapshot: (now: Date) => Effect.Effect<WorkBacklogSnapshot>
}>() {}
