import { readdirSync, readFileSync } from "node:fs"

/** Latency figures of one measured run. */
export interface RunFigures {
  readonly label: string
  readonly count: number
  readonly seconds: number
  readonly perSecond: number
  readonly p50: number
  readonly p95: number
  readonly p99: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/**
 * Runs `task(i)` for i in 0..count-1 with at most `concurrency` in flight, timing each call.
 * Any failure stops the run: a benchmark of errors measures nothing.
 */
export const measure = async (
  label: string,
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>
): Promise<RunFigures> => {
  const latencies: Array<number> = []
  let next = 0
  const started = performance.now()
  const lane = async () => {
    while (next < count) {
      const i = next++
      const t0 = performance.now()
      await task(i)
      latencies.push(performance.now() - t0)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane))
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return {
    label,
    count,
    seconds,
    perSecond: count / seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99)
  }
}

const fixed = (n: number, digits = 1) => n.toFixed(digits).padStart(9)

export const printTable = (rows: ReadonlyArray<RunFigures>): void => {
  console.log(`${"run".padEnd(44)} ${"count".padStart(7)} ${"per s".padStart(9)} ${"p50 ms".padStart(9)} ${"p95 ms".padStart(9)} ${"p99 ms".padStart(9)}`)
  for (const r of rows) {
    console.log(`${r.label.padEnd(44)} ${String(r.count).padStart(7)} ${fixed(r.perSecond, 0)} ${fixed(r.p50, 2)} ${fixed(r.p95, 2)} ${fixed(r.p99, 2)}`)
  }
}

export const ratio = (label: string, a: number, b: number): void =>
  console.log(`${label.padEnd(64)} ${(a / b).toFixed(2).padStart(7)}`)

/** A process's CPU time so far (user and system), in seconds; undefined once it has ended. */
export const cpuSeconds = (pid: number | string): number | undefined => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    // utime and stime, in clock ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

/**
 * The CPU time the server's backends of one database spend, read from /proc while they run (when
 * the server runs on this machine; 0 otherwise): it moves less than rows or requests a second with
 * what else the machine is doing, so that runs on a busy machine can still be compared.
 */
export const makeServerCpu = (database: string) => {
  const backends = new Map<string, { readonly first: number; last: number }>()
  const sample = () => {
    let entries: Array<string>
    try {
      entries = readdirSync("/proc")
    } catch {
      return
    }
    for (const pid of entries) {
      if (!/^\d+$/.test(pid)) continue
      let command: string
      try {
        command = readFileSync(`/proc/${pid}/cmdline`, "utf8")
      } catch {
        continue
      }
      if (!command.startsWith("postgres: ") || !command.includes(` ${database} `)) continue
      const seconds = cpuSeconds(pid)
      if (seconds === undefined) continue
      const backend = backends.get(pid)
      if (backend === undefined) backends.set(pid, { first: seconds, last: seconds })
      else backend.last = seconds
    }
  }
  sample()
  return {
    sample,
    seconds: () => [...backends.values()].reduce((sum, b) => sum + b.last - b.first, 0)
  }
}
