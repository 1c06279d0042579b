/**
 * What every process tells of itself, whichever adapters it runs: its Prometheus metrics and its
 * one line per request. Any adapter may record here; this folder imports no other adapter.
 */
export {
  collectProcessMetrics,
  httpRequestDuration,
  httpRequests,
  metricsAuthorized,
  metricsRegistry,
  type PoolUsage,
  type QueueDepth,
  reportPoolUsage,
  reportQueueDepths,
  workerBatches,
  workerClaims,
  workerWakeUps
} from "./metrics.js"
export { CurrentRequestId, logRequestLine, RequestLine, RequestLines } from "./request-line.js"
