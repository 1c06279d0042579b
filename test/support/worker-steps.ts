/**
 * The worker's jobs as single steps, for HTTP suites that run them inside the test server's
 * runtime (`server.run(...)`) instead of starting a worker process.
 */
import { CampaignSending, EmailDelivery, ImportJobs, SequenceEngine, TriggerFiring, WebhookDispatch } from "@roster/application"
import { Effect, Option } from "effect"

/** The email lanes: due batches of `batchSize` handed over until none is left, or `batches` of them; how many emails. */
export const deliverDue = (options: { readonly batchSize?: number; readonly batches?: number } = {}) =>
  Effect.gen(function*() {
    const delivery = yield* EmailDelivery
    let handed = 0
    for (let n = 0; n < (options.batches ?? Infinity); n++) {
      const moved = yield* delivery.deliverNext({ batchSize: options.batchSize ?? 100, leaseMs: 30_000, providerRate: 1_000 })
      if (moved === 0) break
      handed += moved
    }
    return handed
  })

/** The campaign job's audience step: every open audience taken, `chunk` recipients at a time. */
export const fixAudiences = (chunk = 1_000) =>
  Effect.flatMap(CampaignSending, (sending) =>
    Effect.gen(function*() {
      while (Option.isSome(yield* sending.fixNextChunk(chunk)));
    }))

/** Recorded events fanned out (trigger firings made), then every due firing fired. */
export const fireTriggers = Effect.gen(function*() {
  const dispatch = yield* WebhookDispatch
  const firing = yield* TriggerFiring
  while ((yield* dispatch.fanOut(200)).events > 0);
  while ((yield* firing.fireDue(50, 30_000)) > 0);
})

/**
 * Recorded events fanned out (enrollments made), then the enrollments due now run to their next
 * wait or end, each once: batches are taken while they come full.
 */
export const runSequences = Effect.gen(function*() {
  const dispatch = yield* WebhookDispatch
  const engine = yield* SequenceEngine
  while ((yield* dispatch.fanOut(200)).events > 0);
  while ((yield* engine.runDue(200)) === 200);
})

/** The import job: every waiting import run to its end, one after the other; how many ran. */
export const runImports = Effect.flatMap(ImportJobs, (imports) =>
  Effect.gen(function*() {
    let ran = 0
    while ((yield* imports.runNext(30_000)) > 0) ran++
    return ran
  }))
