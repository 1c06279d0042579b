import { Effect, Layer } from "effect"
import { describeLimits, loadConfig } from "../shared/config.js"
import { runProgram } from "../shared/launch.js"
import { describeDatabase, tracingLayer } from "../shared/layers.js"
import { serverLayer } from "../shared/server.js"
import { traceableAttribute } from "../../adapters/http/index.js"

/** `npm run api`: the HTTP API alone. Runs pending migrations at start unless MIGRATE=false. */
const main = Effect.map(loadConfig, (config) => ({
  config,
  layer: serverLayer(config, (url) =>
    Effect.zipRight(
      Effect.logInfo(`Roster API listening on ${url} (${config.apiForm} form, ${describeDatabase(config)})`),
      Effect.logInfo(describeLimits(config))
    )).pipe(Layer.provide(tracingLayer(config, "roster-api", { attribute: traceableAttribute })))
}))

runProgram(main)
