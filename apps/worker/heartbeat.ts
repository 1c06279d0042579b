import { DatabaseHealth } from "@roster/application"
import { Effect, Layer, Schedule } from "effect"
import { rename, writeFile } from "node:fs/promises"
import { WorkerSettings } from "./settings.js"

/** Writes `text` to a file beside `file`, then renames it into place: a reader sees the old time or the new, never part of one. */
const replaceFile = async (file: string, text: string) => {
  const draft = `${file}.${process.pid}.tmp`
  await writeFile(draft, text)
  await rename(draft, file)
}

/**
 * With WORKER_HEARTBEAT_FILE set, the worker writes the time to that file every ten seconds while
 * its database answers: a container's health check reads how old the file is. A database that does
 * not answer, or a worker that is stuck, leaves the file to age.
 */
export const HeartbeatJob = Layer.scopedDiscard(Effect.gen(function*() {
  const { heartbeatFile, heartbeatMs } = yield* WorkerSettings
  if (heartbeatFile === null) return
  const database = yield* DatabaseHealth
  const beat = database.check.pipe(
    Effect.zipRight(Effect.tryPromise(() => replaceFile(heartbeatFile, `${new Date().toISOString()}\n`))),
    Effect.catchAll((reason) => Effect.logWarning(`WORKER_HEARTBEAT_FILE: not written (${String(reason)})`))
  )
  yield* Effect.forkScoped(Effect.repeat(beat, Schedule.spaced(heartbeatMs)))
}))
