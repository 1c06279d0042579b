import { Effect, Layer } from "effect"
import { workerApplicationLayer } from "../shared/application.js"
import { describeLimits, loadConfig } from "../shared/config.js"
import { runProgram } from "../shared/launch.js"
import { describeDatabase, loggerLayer, tracingLayer } from "../shared/layers.js"
import { workerMetricsLayer } from "./metrics-server.js"
import { workerSettingsLayer } from "./settings.js"
import { WorkerLive } from "./worker.js"

/** `npm run worker`: background work alone, as many copies as the load needs. */
const main = Effect.gen(function*() {
  const config = yield* loadConfig
  // Said once the database is reached, migrated, and the jobs run.
  const started = Layer.effectDiscard(Effect.zipRight(
    Effect.logInfo(`worker started (${describeDatabase(config)})`),
    Effect.logInfo(describeLimits(config))
  ))
  const layer = started.pipe(
    Layer.provide(WorkerLive),
    Layer.provide(workerMetricsLayer(config)),
    Layer.provide(workerSettingsLayer(config)),
    Layer.provide(workerApplicationLayer(config)),
    Layer.provide(loggerLayer(config)),
    Layer.provide(tracingLayer(config, "roster-worker"))
  )
  return { config, layer }
})

runProgram(main)
