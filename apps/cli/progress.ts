import { SingleBar } from "cli-progress"

/**
 * How far a long command is, on stderr: how many of how many are done, how many a second, and
 * how long the rest should take at that pace. On a terminal a bar (cli-progress) redrawn in
 * place; off one (a log, a pipe) a plain line every few seconds, without escape codes.
 */
export interface Progress {
  /** How many there are in all, once known: until then there is no percentage and no time left. */
  readonly setTotal: (total: number) => void
  /** How many are done (and, where the command counts them, how many of those had problems). */
  readonly update: (done: number, problems?: number) => void
  /** Shows where it got to, for the last time. */
  readonly stop: () => void
}

/** What progress writes to: stderr, or in tests a stand-in that says whether it is a terminal. */
export type ProgressStream = Pick<NodeJS.WriteStream, "write" | "isTTY"> & Partial<NodeJS.WriteStream>

export interface ProgressOptions {
  /** What is going on, as the line starts: `importing`. */
  readonly doing: string
  /** What is counted, in the plural: `rows`. */
  readonly unit: string
  /** Whether problems are counted and shown. */
  readonly problems?: boolean
  readonly stream?: ProgressStream
  /** How often a plain line is written off a terminal, in milliseconds. */
  readonly everyMs?: number
  /** The clock, in milliseconds. */
  readonly now?: () => number
}

/** Off a terminal, a line this often unless ROSTER_PROGRESS_SECONDS says otherwise. */
export const PLAIN_EVERY_MS = 5000

/** How often plain lines are written: ROSTER_PROGRESS_SECONDS (a number of seconds, 0 for every step), or every 5 seconds. */
export const plainEveryMs = (env: NodeJS.ProcessEnv = process.env): number | Error => {
  const text = env.ROSTER_PROGRESS_SECONDS
  if (text === undefined || text.trim() === "") return PLAIN_EVERY_MS
  const seconds = Number(text)
  return Number.isFinite(seconds) && seconds >= 0
    ? Math.round(seconds * 1000)
    : new Error(`ROSTER_PROGRESS_SECONDS: expected a number of seconds, 0 or more; got '${text}'`)
}

const grouped = (n: number) => n.toLocaleString("en-US")

/** A number of seconds as people read it: `42s`, `3m 05s`, `1h 02m`. */
export const duration = (totalSeconds: number): string => {
  const seconds = Math.max(0, Math.ceil(totalSeconds))
  if (seconds < 60) return `${seconds}s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`
  return `${Math.floor(seconds / 3600)}h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, "0")}m`
}

/** Where a count stands, in words: each part of a line or a bar. */
interface Standing {
  /** `42%`, or `?` while the total is not known. */
  readonly percent: string
  /** `2,000 of 60,000 rows`, or `2,000 rows`. */
  readonly count: string
  /** `1,989 rows/s`. */
  readonly rate: string
  /** `ETA 29s`, or `ETA ?` (named apart from cli-progress's own `eta`). */
  readonly timeLeft: string
  readonly problems: string
}

export const makeProgress = (options: ProgressOptions): Progress => {
  const stream = options.stream ?? process.stderr
  const now = options.now ?? Date.now
  const everyMs = options.everyMs ?? PLAIN_EVERY_MS
  const startedAt = now()
  let total: number | undefined
  let done = 0
  let problems = 0

  const standing = (): Standing => {
    const seconds = (now() - startedAt) / 1000
    const perSecond = seconds > 0 ? done / seconds : 0
    // Counted beforehand, the total can fall short of what is done (rows added meanwhile): never past 100 %.
    const all = total === undefined ? undefined : Math.max(total, done)
    return {
      percent: all === undefined ? "?" : `${all === 0 ? 100 : Math.floor((done / all) * 100)}%`,
      count: all === undefined ? `${grouped(done)} ${options.unit}` : `${grouped(done)} of ${grouped(all)} ${options.unit}`,
      rate: `${grouped(Math.round(perSecond))} ${options.unit}/s`,
      timeLeft: all === undefined ? "ETA ?" : done >= all ? "ETA 0s" : perSecond > 0 ? `ETA ${duration((all - done) / perSecond)}` : "ETA ?",
      problems: `${grouped(problems)} problems`
    }
  }

  if (stream.isTTY === true) {
    const bar = new SingleBar({
      stream: stream as NodeJS.WriteStream,
      format: `${options.doing} |{bar}| {percent} | {count} | {rate} | {timeLeft}${options.problems === true ? " | {problems}" : ""}`,
      barCompleteChar: "\u2588",
      barIncompleteChar: "\u2591",
      hideCursor: true
    })
    const barTotal = () => Math.max(total ?? 0, done, 1)
    // Until the total is known the bar stays empty: it fills only by what it is a part of.
    const barValue = () => total === undefined ? 0 : done
    bar.start(barTotal(), barValue(), { ...standing() })
    const show = () => {
      bar.setTotal(barTotal())
      bar.update(barValue(), { ...standing() })
    }
    return {
      setTotal: (n) => {
        total = n
        show()
      },
      update: (n, failed) => {
        done = n
        if (failed !== undefined) problems = failed
        show()
      },
      stop: () => {
        show()
        bar.stop()
      }
    }
  }

  let shownAt = startedAt
  const line = () => {
    const s = standing()
    stream.write(`roster: ${options.doing}: ${s.percent} (${s.count}), ${s.rate}, ${s.timeLeft}${options.problems === true ? `, ${s.problems}` : ""}\n`)
  }
  return {
    setTotal: (n) => {
      total = n
    },
    update: (n, failed) => {
      done = n
      if (failed !== undefined) problems = failed
      if (now() - shownAt >= everyMs) {
        shownAt = now()
        line()
      }
    },
    stop: () => {}
  }
}
