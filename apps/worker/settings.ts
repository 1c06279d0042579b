import { Context, Effect, Layer, Option } from "effect"
import type { RosterConfig } from "../shared/config.js"

/** How the worker's jobs are sized and paced; the defaults suit production. */
export class WorkerSettings extends Context.Reference<WorkerSettings>()("roster/WorkerSettings", {
  defaultValue: () => ({
    /** Recorded events turned into deliveries per transaction. */
    fanOutBatch: 200,
    /** Sends in flight at once in one worker. */
    maxInFlight: 100,
    /**
     * Once this many sends to one endpoint are in flight in one worker, claims pass over it, so an
     * endpoint that answers slowly (or not at all, until the time-out) cannot take every slot from
     * the others. One claim may take it past this by up to `claimBatch - 1`.
     */
    endpointInFlight: 50,
    /** Deliveries leased by one claim at most. */
    claimBatch: 25,
    /**
     * How long a worker holds leased deliveries. Longer than a send can take, so that no other
     * worker sends the same attempt; a killed worker's deliveries come due again after it.
     */
    leaseMs: 30_000,
    /** The pause of fan-out when it found no events: how long a recorded event may wait. */
    fanOutIdleMs: 50,
    /**
     * The pause of delivery when it found nothing due. Deliveries this worker's fan-out makes, and
     * sends that end, wake it at once; this bounds the wait for retries that come due and for
     * deliveries other workers made.
     */
    deliveryIdleMs: 250,
    /**
     * How long the pauses of a job that keeps finding nothing may grow: the longest a first event
     * after a quiet spell waits for fan-out, and the longest a due retry waits.
     */
    fanOutMaxIdleMs: 500,
    deliveryMaxIdleMs: 1_000,
    /** Subscribers erased per transaction, and the pause once none is waiting: an erasure waits at most this. */
    erasureBatch: 50,
    erasureIdleMs: 5_000,
    /** Email batches in flight at once in one worker, and the most emails one provider call takes. */
    emailLanes: 4,
    emailBatch: 100,
    /** Calls a second to the email provider, shared by every worker (EMAIL_PROVIDER_RATE). */
    providerRate: 2,
    /**
     * The pause of email delivery when nothing was due; a send wakes it at once, so this bounds
     * only the wait of retries that come due.
     */
    emailIdleMs: 250,
    emailMaxIdleMs: 2_000,
    /** Scheduled campaigns started per look, and finished or cancelled ones tidied per look. */
    campaignStartBatch: 20,
    campaignTidyBatch: 1_000,
    /**
     * Recipients made into messages per statement: the first chunk is what a send waits for before
     * its first email, the rest go on while the email lanes send.
     */
    audienceChunk: 5_000,
    /** The pause of the campaign job when it found nothing: how long a send waits for its first chunk, at most. */
    campaignIdleMs: 100,
    campaignMaxIdleMs: 500,
    /** Trigger firings turned into emails per batch, and the pauses when none was due. */
    triggerBatch: 50,
    triggerIdleMs: 250,
    triggerMaxIdleMs: 1_000,
    /**
     * Enrollments moved per transaction, and the pauses when none was due: a due step starts
     * within the longest pause.
     */
    sequenceBatch: 200,
    sequenceIdleMs: 100,
    sequenceMaxIdleMs: 500,
    /** Rows of history deleted per statement, and the pause once there is no more to delete. */
    pruneBatch: 1_000,
    pruneIntervalMs: 10 * 60_000,
    /**
     * A file the worker touches whenever its database answers (WORKER_HEARTBEAT_FILE), for a
     * container's health check; `null` for none.
     */
    heartbeatFile: null as string | null,
    heartbeatMs: 10_000,
    /** Pending sending domains checked with the provider per batch, and the pause when none was due. */
    domainCheckBatch: 20,
    domainCheckIdleMs: 30_000,
    /**
     * Imports run at once in one worker (each lane runs one to its end), and the pauses when none
     * was waiting: how long an uploaded file waits for a worker, at most.
     */
    importLanes: 2,
    importIdleMs: 500,
    importMaxIdleMs: 2_000,
    /** Ended imports whose problem rows are dropped per statement (each holds up to a thousand). */
    importPruneBatch: 100
  })
}) {}

/** The worker's settings from the configuration: WORKER_LEASE_SECONDS, EMAIL_PROVIDER_RATE, WORKER_HEARTBEAT_FILE. */
export const workerSettingsLayer = (config: RosterConfig) =>
  Layer.effect(
    WorkerSettings,
    Effect.map(WorkerSettings, (defaults) => ({
      ...defaults,
      leaseMs: config.workerLeaseSeconds * 1000,
      providerRate: config.emailProviderRate,
      heartbeatFile: Option.getOrNull(config.workerHeartbeatFile)
    }))
  )
