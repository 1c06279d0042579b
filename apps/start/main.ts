import { Onboarding } from "@roster/application"
import { Console, Effect, Layer, Option } from "effect"
import { workerSettingsLayer } from "../worker/settings.js"
import { WorkerLive } from "../worker/worker.js"
import { describeLimits, loadConfig, type RosterConfig } from "../shared/config.js"
import { runProgram } from "../shared/launch.js"
import { describeDatabase, loggerLayer, tracingLayer } from "../shared/layers.js"
import { serverLayer } from "../shared/server.js"
import { traceableAttribute } from "../../adapters/http/index.js"

/**
 * `npm start`: the API and the worker in one process, on zero-setup defaults (embedded database
 * in DATA_DIR, in-process cache, console mailer). On an empty embedded database it creates
 * organization `default` and prints one test key, once.
 */

const welcome = (config: RosterConfig, url: string) =>
  Effect.gen(function*() {
    const firstKey = Option.isNone(config.databaseUrl)
      ? yield* Effect.flatMap(Onboarding, (onboarding) => onboarding.firstStart)
      : Option.none()
    const lines = [
      "",
      `  Roster is listening on ${url}`,
      `  ${config.apiForm} API form, ${describeDatabase(config)}`,
      `  ${describeLimits(config)}`,
      "",
      `  API docs        ${url}/docs  (also ${url}/redoc, ${url}/openapi.json)`,
      `  Health          ${url}/health  ${url}/ready`,
      ""
    ]
    if (Option.isSome(firstKey)) {
      lines.push(
        "  First start: organization `default` has this test key with every scope.",
        "  It is shown only now; keep it.",
        "",
        `    ${firstKey.value.key}`,
        "",
        `    curl -H "X-API-Key: ${firstKey.value.key}" ${url}/api/v1/subscribers`,
        ""
      )
    } else {
      lines.push(
        "  Create an API key with the CLI (with the embedded database, stop this server first):",
        "    npm run cli -- api-key create --org default --name \"My key\" --scopes '*'",
        ""
      )
    }
    yield* Console.log(lines.join("\n"))
  })

const main = Effect.map(loadConfig, (config) => {
  const worker = Layer.provide(WorkerLive, workerSettingsLayer(config))
  const both = Layer.provideMerge(worker, serverLayer(config, (url) => welcome(config, url)))
  const logged = Layer.provide(both, loggerLayer(config))
  return { config, layer: Layer.provide(logged, tracingLayer(config, "roster", { attribute: traceableAttribute })) }
})

runProgram(main)
