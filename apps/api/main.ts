import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { loadConfig } from "../shared/config.js"
import { describeDatabase } from "../shared/layers.js"
import { serverLayer } from "../shared/server.js"

/** `npm run api`: the HTTP API alone. Runs pending migrations at start unless MIGRATE=false. */
const main = Effect.map(loadConfig, (config) =>
  serverLayer(config, (url) => Effect.logInfo(`Roster API listening on ${url} (${config.apiForm} form, ${describeDatabase(config)})`)))

NodeRuntime.runMain(Layer.launch(Layer.unwrapEffect(main)), { disablePrettyLogger: true })
