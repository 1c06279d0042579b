import { Effect } from "effect"
import { now } from "./support/clock.js"
import { type Backlog, WorkBacklog, type WorkBacklogSnapshot } from "./ports/work-backlog.js"
import { operations } from "./support/operation.js"

/** The kinds of work whose lag tells whether workers keep up. */
export type WatchedWork =
  | "events"
  | "webhook_deliveries"
  | "emails"
  | "scheduled_campaigns"
  | "trigger_firings"
  | "sequence_steps"
  | "imports"

export interface OverdueWork {
  readonly work: WatchedWork
  /** How long the longest-waiting due item has waited, in seconds. */
  readonly lagSeconds: number
}

export interface WorkerHealthReport {
  readonly checkedAt: Date
  readonly maxLagSeconds: number
  /** No watched work has waited longer than `maxLagSeconds` since it came due. */
  readonly healthy: boolean
  readonly overdue: ReadonlyArray<OverdueWork>
  readonly backlog: WorkBacklogSnapshot
}

/** Seconds since `backlog`'s oldest due item came due, at `at`; null when nothing is due. */
export const lagSeconds = (backlog: Backlog, at: Date): number | null =>
  backlog.oldestDueAt === null ? null : Math.max(0, (at.getTime() - backlog.oldestDueAt.getTime()) / 1_000)

/**
 * Whether the workers keep up: the work waiting in the database, and which kinds have waited
 * past their due time for longer than allowed. Campaign emails are left out of the verdict: they
 * leave at the provider's rate, and a large campaign's queue is old by nature.
 */
export class WorkerHealth extends Effect.Service<WorkerHealth>()("roster/WorkerHealth", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const backlog = yield* WorkBacklog

    const check = operation("WorkerHealth.check")(function*(maxLagSeconds: number) {
      const at = yield* now
      const snapshot = yield* backlog.snapshot(at)
      const watched: ReadonlyArray<readonly [WatchedWork, Backlog]> = [
        ["events", snapshot.events],
        ["webhook_deliveries", snapshot.webhookDeliveries],
        ["emails", snapshot.emails],
        ["scheduled_campaigns", snapshot.scheduledCampaigns],
        ["trigger_firings", snapshot.triggerFirings],
        ["sequence_steps", snapshot.sequenceSteps],
        ["imports", snapshot.imports]
      ]
      const overdue = watched.flatMap(([work, waiting]): ReadonlyArray<OverdueWork> => {
        const lag = lagSeconds(waiting, at)
        return lag !== null && lag > maxLagSeconds ? [{ work, lagSeconds: lag }] : []
      })
      return { checkedAt: at, maxLagSeconds, healthy: overdue.length === 0, overdue, backlog: snapshot } satisfies WorkerHealthReport
    })

    return { check } as const
  })
}) {}
