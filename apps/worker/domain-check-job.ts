import { SendingDomains } from "@roster/application"
import { Effect } from "effect"
import { jobLayer } from "./job-runner.js"
import { WorkerSettings } from "./settings.js"

/**
 * Pending custom sending domains checked with the email provider when their next check comes (a
 * minute after they are added, then less and less often, at most an hour apart), until the
 * provider finds their DNS records or gives up looking.
 */
export const DomainCheckJob = jobLayer(Effect.gen(function*() {
  const domains = yield* SendingDomains
  const settings = yield* WorkerSettings
  return {
    name: "sending domain checks",
    run: domains.recheckDue(settings.domainCheckBatch).pipe(Effect.uninterruptible),
    batchSize: settings.domainCheckBatch,
    lanes: 1,
    idleMs: settings.domainCheckIdleMs
  }
}))
