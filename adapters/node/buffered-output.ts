import { writeSync } from "node:fs"

export interface BufferedOutputOptions {
  /** How long a line waits for the lines after it, at most. */
  readonly windowMs?: number
  /** Lines waiting are written at once when they reach this many characters. */
  readonly maxChars?: number
}

/**
 * Lines for a file descriptor, written together: the first line of a window starts it, and what
 * was logged within it goes out in one write when it closes (after `windowMs`), or at once when it
 * holds `maxChars`. A busy API logs a line per request, thousands a second; one write per window
 * instead of one per event-loop turn spares the process and whatever reads its output (a log
 * shipper, a container runtime) most of their system calls and wake-ups. What is still buffered
 * when the process exits is written before it does; a process killed outright loses at most a
 * window's lines.
 */
export const makeBufferedOutput = (fd: number, { maxChars = 64 * 1024, windowMs = 10 }: BufferedOutputOptions = {}) => {
  let pending: Array<string> = []
  let chars = 0
  let window: ReturnType<typeof setTimeout> | undefined

  const flush = () => {
    if (window !== undefined) {
      clearTimeout(window)
      window = undefined
    }
    if (pending.length === 0) return
    const text = pending.join("")
    pending = []
    chars = 0
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
      chars += line.length + 1
      if (chars >= maxChars) flush()
      // The window does not keep the process alive: what it holds is written at exit.
      else if (window === undefined) window = setTimeout(flush, windowMs).unref()
    },
    flush
  } as const
}
