import { CampaignSending } from "@roster/application"
import { Effect, Option } from "effect"
import { jobLayer } from "./job-runner.js"
import { WorkerSettings } from "./settings.js"

/**
 * Campaigns: scheduled ones start when their time comes, the audiences of sending ones become
 * messages a chunk at a time (the email lanes send them meanwhile), campaigns whose last email was
 * settled end, and the unsent emails of cancelled ones are withdrawn. An audience chunk found
 * means more may wait, so the job goes on at once; with nothing to do it looks again soon, which
 * bounds how long a send waits for its first chunk.
 */
export const CampaignJob = jobLayer(Effect.gen(function*() {
  const sending = yield* CampaignSending
  const settings = yield* WorkerSettings
  return {
    name: "campaigns",
    run: Effect.gen(function*() {
      const started = yield* sending.startDue(settings.campaignStartBatch)
      const fixed = yield* sending.fixNextChunk(settings.audienceChunk)
      const tidied = yield* sending.tidy(settings.campaignTidyBatch)
      return started + tidied + Option.match(fixed, { onNone: () => 0, onSome: (added) => Math.max(1, added) })
    }).pipe(Effect.uninterruptible),
    batchSize: 1,
    lanes: 1,
    idleMs: settings.campaignIdleMs,
    maxIdleMs: settings.campaignMaxIdleMs
  }
}))
