import { SignUps } from "@roster/application"
import { Effect } from "effect"
import { jobLayer } from "./job-runner.js"
import { WorkerSettings } from "./settings.js"

/** How many confirmation emails one run sends, and how many expired sign-ups it clears. */
const SIGN_UP_BATCH = 50

/** How long the job rests when a run found nothing to do. */
const SIGN_UP_IDLE_MS = 2_000

/**
 * The confirmation emails of sign-ups through forms, each sent once, and the sign-ups past their
 * week cleared away. A run counts what it did, so the job runs again at once while there is more.
 */
export const SignUpJob = jobLayer(Effect.gen(function*() {
  const signUps = yield* SignUps
  yield* WorkerSettings
  return {
    name: "sign-up confirmations",
    run: Effect.zipWith(
      signUps.sendDueConfirmations(SIGN_UP_BATCH),
      signUps.clearExpired(SIGN_UP_BATCH),
      (sent, cleared) => Math.max(sent, cleared)
    ),
    batchSize: SIGN_UP_BATCH,
    lanes: 1,
    idleMs: SIGN_UP_IDLE_MS
  }
}))
