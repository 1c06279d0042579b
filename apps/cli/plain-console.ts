import { Console, Effect } from "effect"
import { stripVTControlCharacters } from "node:util"

/**
 * The console the CLI runs with. Off a terminal, output carries no ANSI escape codes (the help of
 * @effect/cli is coloured); every line on stderr reads `roster: ...` on one line, so that the
 * usage errors @effect/cli prints there read like the CLI's own.
 */
export const plainConsole = Effect.map(Effect.console, (base): Console.Console => {
  const plain = (isTTY: boolean | undefined) => (args: ReadonlyArray<unknown>) =>
    isTTY === true ? args : args.map((arg) => typeof arg === "string" ? stripVTControlCharacters(arg) : arg)
  const forStdout = plain(process.stdout.isTTY)
  const forStderr = plain(process.stderr.isTTY)
  const oneLine = (args: ReadonlyArray<unknown>) => {
    const text = forStderr(args).map(String).join(" ").split("\n").map((line) => line.trim()).filter((line) => line !== "").join(" ")
    return text.startsWith("roster: ") ? text : `roster: ${text}`
  }
  return {
    ...base,
    log: (...args) => base.log(...forStdout(args)),
    info: (...args) => base.info(...forStdout(args)),
    error: (...args) => base.error(oneLine(args)),
    warn: (...args) => base.warn(oneLine(args))
  }
})

/** Runs `effect` with the plain console. */
export const withPlainConsole = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(plainConsole, (console) => Console.withConsole(effect, console))
