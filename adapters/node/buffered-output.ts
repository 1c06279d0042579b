import { writeSync } from "node:fs"

/**
 * Lines for a file descriptor, written together once the current burst of work is done: one
 * write for every line logged in an event-loop turn instead of one write each. What is still
 * buffered when the process exits is written before it does.
 */
export const makeBufferedOutput = (fd: number) => {
  let pending: Array<string> = []
  let scheduled = false

  const flush = () => {
    scheduled = false
    if (pending.length === 0) return
    const text = pending.join("")
    pending = []
    try {
      writeSync(fd, text)
    } catch {
      // A closed or full output must not take the service down with it.
    }
  }

  process.once("exit", flush)

  return {
    /** Queues a line (a newline is added). */
    writeLine: (line: string): void => {
      pending.push(line + "\n")
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    },
    flush
  } as const
}
