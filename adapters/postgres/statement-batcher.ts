import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Runtime } from "effect"

/**
 * Many small writes made one statement at a time, the way a database groups commits: the first
 * write runs at once; those that arrive while it runs wait for it, then go together in the next
 * statement (at most `maxBatch`). A lone write waits for nothing; a busy process makes a few large
 * statements instead of many small ones. Inside a transaction a write runs alone, in it.
 */
export const makeStatementBatcher = <I, O>(options: {
  readonly maxBatch: number
  /** One statement for all `inputs`; answers one output per input, in their order. */
  readonly run: (inputs: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>>
}): Effect.Effect<(input: I) => Effect.Effect<O>> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const waiting: Array<{ readonly input: I; readonly resume: (effect: Effect.Effect<O>) => void }> = []
    let running = false

    const drain: Effect.Effect<void> = Effect.suspend(() => {
      const batch = waiting.splice(0, options.maxBatch)
      if (batch.length === 0) {
        running = false
        return Effect.void
      }
      return options.run(batch.map(({ input }) => input)).pipe(
        Effect.exit,
        Effect.map((exit) => {
          batch.forEach(({ resume }, i) =>
            resume(exit._tag === "Success" ? Effect.succeed(exit.value[i]!) : Effect.failCause(exit.cause))
          )
        }),
        Effect.zipRight(drain)
      )
    })

    return (input: I) =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) =>
        Option.isSome(transaction)
          ? Effect.map(options.run([input]), (outputs) => outputs[0]!)
          : Effect.async<O>((resume) => {
            waiting.push({ input, resume })
            if (!running) {
              running = true
              Runtime.runFork(runtime)(drain)
            }
          }))
  })
