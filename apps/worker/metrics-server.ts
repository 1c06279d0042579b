import { Effect, Layer, Option } from "effect"
import { createServer } from "node:http"
import { collectProcessMetrics, metricsAuthorized, metricsRegistry } from "../../adapters/observability/index.js"
import type { RosterConfig } from "../shared/config.js"

/**
 * With WORKER_METRICS_PORT set, a worker answers `GET /metrics` on that port (its batches and
 * claimed items by job, its database pool, the process's own figures), asking for METRICS_TOKEN
 * as a bearer token when one is set. Nothing else is served there.
 */
export const workerMetricsLayer = (config: RosterConfig) =>
  Option.match(config.workerMetricsPort, {
    onNone: () => Layer.empty,
    onSome: (port) =>
      Layer.scopedDiscard(Effect.acquireRelease(
        Effect.async<ReturnType<typeof createServer>, Error>((resume) => {
          collectProcessMetrics()
          const server = createServer((request, response) => {
            if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
              response.writeHead(404, { "content-type": "text/plain" }).end("not found\n")
              return
            }
            if (Option.isSome(config.metricsToken) && !metricsAuthorized(request.headers.authorization, config.metricsToken.value)) {
              response.writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer realm=\"metrics\"" })
                .end("metrics need Authorization: Bearer <METRICS_TOKEN>\n")
              return
            }
            metricsRegistry.metrics().then(
              (text) => response.writeHead(200, { "content-type": metricsRegistry.contentType }).end(text),
              () => response.writeHead(500).end()
            )
          })
          server.once("error", (error) => resume(Effect.fail(new Error(`WORKER_METRICS_PORT: ${error.message}`))))
          server.listen(port, config.host, () => resume(Effect.succeed(server)))
        }),
        (server) =>
          Effect.async<void>((resume) => {
            server.close(() => resume(Effect.void))
            // A scraper keeps its connection open; the worker does not wait for it to stop.
            server.closeAllConnections()
          })
      ))
  })
