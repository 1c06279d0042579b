import { Data, Effect } from "effect"

// The CSV text of an export is the use case's (the dashboard streams the same); the CLI writes it to stdout.
export { csvCell, csvLines, makeSubscriberLines, subscriberColumns, subscriberRow } from "@roster/application"

/** stdout was closed before everything was written (a reader such as `head` stopped reading). */
export class OutputClosed extends Data.TaggedError("OutputClosed")<{ readonly message: string }> {}

/** Why stdout failed, once it did; and the write waiting for it to drain, if one is. */
let failure: Error | undefined
let waiting: (() => void) | undefined
let watching = false

const closed = (error: Error) => new OutputClosed({ message: `stdout was closed before the end (${error.message})` })

/**
 * Writes to stdout, waiting while its buffer is full: memory stays flat however much is written.
 * Once stdout is closed (a reader such as `head` stopped reading) every write fails, so that
 * nothing more is read for it.
 */
export const writeOut = (text: string): Effect.Effect<void, OutputClosed> =>
  Effect.async<void, OutputClosed>((resume) => {
    if (!watching) {
      watching = true
      process.stdout.on("error", (error) => {
        failure = error
        waiting?.()
      })
    }
    if (failure !== undefined) return resume(Effect.fail(closed(failure)))
    if (process.stdout.write(text)) return resume(Effect.void)
    const done = () => {
      waiting = undefined
      process.stdout.off("drain", done)
      resume(failure === undefined ? Effect.void : Effect.fail(closed(failure)))
    }
    waiting = done
    process.stdout.once("drain", done)
  })
