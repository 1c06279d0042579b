import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Layer, Option, Predicate, Redacted } from "effect"
import type { RosterConfig } from "./config.js"

/** A URL with its password hidden. */
const withoutPassword = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password !== "") parsed.password = "***"
    return parsed.toString()
  } catch {
    return "(not a URL)"
  }
}

const causeMessage = (error: unknown): string => {
  const cause = Predicate.hasProperty(error, "cause") ? error.cause : undefined
  return cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error)
}

const errorCode = (error: unknown): unknown =>
  Predicate.hasProperty(error, "cause") && Predicate.hasProperty(error.cause, "code") ? error.cause.code : undefined

/**
 * What stopped a start, in one line naming the setting to look at, for the failures an operator
 * causes and can fix: a database that cannot be reached, an address already taken, the embedded
 * database held by another process, no email provider in production. Anything else is not described (and is logged as it is).
 */
export const describeStartFailure = (config: RosterConfig, error: unknown): string | undefined => {
  if (Predicate.isTagged(error, "EmbeddedDatabaseInUse") && error instanceof Error) return error.message
  if (Predicate.isTagged(error, "ConsoleMailerInProduction") && error instanceof Error) return error.message
  if (Predicate.isTagged(error, "ServeError")) {
    const address = `${config.host}:${config.port}`
    const code = errorCode(error)
    if (code === "EADDRINUSE") return `PORT: ${address} is already in use by another process; stop it or set PORT to a free port`
    if (code === "EACCES") return `PORT: ${address} may not be listened on by this user; set PORT above 1023`
    if (code === "EADDRNOTAVAIL") return `HOST: ${config.host} is not an address of this machine`
    return `PORT: cannot listen on ${address}: ${causeMessage(error)}`
  }
  if (Predicate.isTagged(error, "SqlError")) {
    const where = Option.match(config.databaseUrl, {
      onNone: () => "the embedded database",
      onSome: (url) => `DATABASE_URL (${withoutPassword(Redacted.value(url))})`
    })
    return `cannot use ${where}: ${causeMessage(error)}`
  }
  return undefined
}

/**
 * Runs a program's layer until the process is told to stop. A start that fails for a reason the
 * operator can fix prints one line on stderr and exits with 1, without a stack trace.
 */
export const launch = <E>(config: RosterConfig, layer: Layer.Layer<never, E>) =>
  Layer.launch(layer).pipe(
    Effect.catchAllCause((cause) => {
      const described = [...Cause.failures(cause), ...Cause.defects(cause)]
        .map((error) => describeStartFailure(config, error))
        .find((line) => line !== undefined)
      if (described === undefined) return Effect.failCause(cause)
      return Effect.sync(() => {
        process.stderr.write(`roster: ${described}\n`)
        process.exit(1)
      })
    })
  )

/** `launch` as a program's main, once the configuration is read. */
export const runProgram = <E>(program: Effect.Effect<{ readonly config: RosterConfig; readonly layer: Layer.Layer<never, E> }>) =>
  NodeRuntime.runMain(Effect.flatMap(program, ({ config, layer }) => launch(config, layer)), { disablePrettyLogger: true })
