import { Redacted } from "effect"
import { timingSafeEqual } from "node:crypto"
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client"

/**
 * The process's metrics in Prometheus' terms, through prom-client: what `GET /metrics` (and a
 * worker's metrics port) answer. One registry a process; the API and the worker add to it what
 * they do, the database pool and the work waiting are read when a scrape asks.
 */
export const metricsRegistry = new Registry()

/**
 * Whether a request's `Authorization` is `Bearer <token>` with the metrics token (METRICS_TOKEN),
 * compared in constant time. The one check of `GET /metrics`, wherever it is served.
 */
export const metricsAuthorized = (authorization: string | undefined, token: Redacted.Redacted<string>): boolean => {
  if (authorization === undefined || !authorization.startsWith("Bearer ")) return false
  const given = Buffer.from(authorization.slice("Bearer ".length).trim())
  const wanted = Buffer.from(Redacted.value(token))
  return given.length === wanted.length && timingSafeEqual(given, wanted)
}

let processMetrics = false

/**
 * Adds the process's own figures (CPU, memory, event-loop delay, GC) to the registry, once, when a
 * process serves its metrics: a process that serves none does not keep their collectors.
 */
export const collectProcessMetrics = (): void => {
  if (processMetrics) return
  processMetrics = true
  collectDefaultMetrics({ register: metricsRegistry, prefix: "roster_" })
}

export const httpRequests = new Counter({
  name: "roster_http_requests_total",
  help: "Requests answered, by method, route template and status.",
  labelNames: ["method", "route", "status"] as const,
  registers: [metricsRegistry]
})

export const httpRequestDuration = new Histogram({
  name: "roster_http_request_duration_seconds",
  help: "Time from a request's arrival to its answer, by method and route template.",
  labelNames: ["method", "route"] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry]
})

export const workerBatches = new Counter({
  name: "roster_worker_batches_total",
  help: "Batches a worker's jobs ran, by job.",
  labelNames: ["job"] as const,
  registers: [metricsRegistry]
})

export const workerWakeUps = new Counter({
  name: "roster_worker_wake_ups_total",
  help: "Pauses of a worker's jobs ended early because new work was signalled (rather than by the pause running out), by job.",
  labelNames: ["job"] as const,
  registers: [metricsRegistry]
})

export const workerClaims = new Counter({
  name: "roster_worker_claimed_items_total",
  help: "Items a worker's jobs claimed and handled (deliveries, emails, events, ...), by job.",
  labelNames: ["job"] as const,
  registers: [metricsRegistry]
})

/** A PostgreSQL connection pool's use at one moment. */
export interface PoolUsage {
  readonly total: number
  readonly idle: number
  readonly waiting: number
}

let poolUsage: (() => PoolUsage) | undefined

/** The database adapter tells how its pool is used; the gauges read it at each scrape. */
export const reportPoolUsage = (read: () => PoolUsage): void => {
  poolUsage = read
}

new Gauge({
  name: "roster_db_pool_connections",
  help: "Connections of the PostgreSQL pool: open in all, idle, and requests waiting for one.",
  labelNames: ["state"] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset()
    if (poolUsage === undefined) return
    const { idle, total, waiting } = poolUsage()
    this.set({ state: "total" }, total)
    this.set({ state: "idle" }, idle)
    this.set({ state: "waiting" }, waiting)
  }
})

/** One kind of background work waiting in the database, as a scrape reads it. */
export interface QueueDepth {
  readonly work: string
  readonly waiting: number
  readonly due: number
  /** Seconds the longest-waiting due item has waited; 0 when none is due. */
  readonly lagSeconds: number
}

const queueWaiting = new Gauge({
  name: "roster_queue_waiting",
  help: "Background work waiting in the database (webhook deliveries, emails, campaign emails, events, imports, ...), by kind.",
  labelNames: ["work"] as const,
  registers: [metricsRegistry]
})

const queueDue = new Gauge({
  name: "roster_queue_due",
  help: "Of the waiting work, the items whose time has come, by kind.",
  labelNames: ["work"] as const,
  registers: [metricsRegistry]
})

const queueLag = new Gauge({
  name: "roster_queue_lag_seconds",
  help: "How long the longest-waiting due item has waited, by kind.",
  labelNames: ["work"] as const,
  registers: [metricsRegistry]
})

/** Sets the queue gauges to what a scrape just read. */
export const reportQueueDepths = (depths: ReadonlyArray<QueueDepth>): void => {
  for (const gauge of [queueWaiting, queueDue, queueLag]) gauge.reset()
  for (const { due, lagSeconds, waiting, work } of depths) {
    queueWaiting.set({ work }, waiting)
    queueDue.set({ work }, due)
    queueLag.set({ work }, lagSeconds)
  }
}
