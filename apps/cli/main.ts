import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Logger, LogLevel } from "effect"
import { apiKeyCommand } from "./api-key-commands.js"
import { orgCommand } from "./org-commands.js"
import { withPlainConsole } from "./plain-console.js"
import { printJson } from "./print.js"
import { withServices } from "./services.js"
import { subscribersCommand } from "./subscriber-commands.js"
import { workerCommand } from "./worker-commands.js"

/**
 * The operators' command line: JSON on stdout, progress and errors on stderr (one line each,
 * `roster: ...`), exit 1 on failure. It runs pending migrations itself.
 */

const migrate = Command.make("migrate", {}, () => withServices(Effect.void).pipe(Effect.zipRight(printJson({ migrated: true })))).pipe(
  Command.withDescription("Apply pending database migrations.")
)

const roster = Command.make("roster").pipe(
  Command.withDescription("Operate a Roster installation."),
  Command.withSubcommands([migrate, orgCommand, apiKeyCommand, workerCommand, subscribersCommand])
)

const cli = Command.run(roster, { name: "roster", version: "0.1.0" })

/** Usage errors of @effect/cli, which it has printed already. */
const isUsageError = (error: object) => "_tag" in error && String(error._tag).startsWith("Validation")

cli(process.argv).pipe(
  Effect.catchAll((error) =>
    Effect.sync(() => {
      if (typeof error === "object" && error !== null && "message" in error && !isUsageError(error)) {
        process.stderr.write(`roster: ${String(error.message).split("\n")[0]}\n`)
      }
      process.exitCode = 1
    })
  ),
  withPlainConsole,
  Effect.provide(NodeContext.layer),
  Logger.withMinimumLogLevel(LogLevel.Warning),
  NodeRuntime.runMain({ disableErrorReporting: false })
)
