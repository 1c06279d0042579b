import { Effect, Layer } from "effect"
import { CampaignJob } from "./campaign-job.js"
import { DomainCheckJob } from "./domain-check-job.js"
import { EmailJob } from "./email-job.js"
import { ErasureJob } from "./erasure-job.js"
import { SignUpJob } from "./sign-up-job.js"
import { HeartbeatJob } from "./heartbeat.js"
import { TriggerJob } from "./trigger-job.js"
import { SequenceJob } from "./sequence-job.js"
import { WebhookJobsLive } from "./webhook-jobs.js"
import { BillingJob } from "./billing-job.js"
import { ImportJob, ImportProblemRetentionJob } from "./import-job.js"

/** Said last, once every job has stopped. */
const StoppedLine = Layer.scopedDiscard(Effect.addFinalizer(() => Effect.logInfo("worker stopped")))

/**
 * The background worker: every job in its lanes, until the process is told to stop (SIGTERM or
 * SIGINT). Then it takes no new work and finishes the batches in hand; work a killed worker held
 * comes due again for the others when its lease runs out. A new kind of background work is one
 * more job layer here.
 */
export const WorkerLive = Layer.mergeAll(
  WebhookJobsLive,
  ErasureJob,
  SignUpJob,
  EmailJob,
  CampaignJob,
  TriggerJob,
  SequenceJob,
  DomainCheckJob,
  HeartbeatJob,
  BillingJob,
  ImportJob,
  ImportProblemRetentionJob
).pipe(Layer.provide(StoppedLine))
