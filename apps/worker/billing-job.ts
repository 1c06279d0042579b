import { Billing } from "@roster/application"
import { Effect } from "effect"
import { jobLayer } from "./job-runner.js"

/** Organizations settled per batch, and the pause once none is due: a plan outlives its paid period by at most this. */
const SETTLE_BATCH = 50
const SETTLE_IDLE_MS = 60_000

/**
 * Plans whose subscription was canceled, went unpaid or paused fall back to `free` once the period
 * paid for ends; no event of the provider comes then, so the worker looks once a minute.
 */
export const BillingJob = jobLayer(Effect.map(Billing, (billing) => ({
  name: "billing period ends",
  run: Effect.uninterruptible(billing.settleEnded(SETTLE_BATCH)),
  batchSize: SETTLE_BATCH,
  lanes: 1,
  idleMs: SETTLE_IDLE_MS
})))
