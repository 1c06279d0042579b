import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { lagSeconds, WorkerHealth } from "@roster/application"
import { Effect } from "effect"
import { collectProcessMetrics, metricsAuthorized, metricsRegistry, reportQueueDepths } from "../../observability/index.js"
import { HttpSettings } from "./http-settings.js"

export const METRICS_PATH = "/metrics"

const unauthorized = HttpServerResponse.text("metrics need Authorization: Bearer <METRICS_TOKEN>\n", {
  status: 401,
  headers: { "www-authenticate": "Bearer realm=\"metrics\"" }
})

/**
 * `GET /metrics`, in Prometheus' text format, for whoever holds METRICS_TOKEN (as a bearer token);
 * not served at all without one. Requests by route and status with their latencies, the database
 * pool's use, the background work waiting in the database (read at each scrape), the worker's
 * batches when it runs in this process, and the process's own figures.
 */
export const MetricsLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const { metricsToken } = yield* HttpSettings
    if (metricsToken === null || metricsToken === undefined) return
    const workers = yield* WorkerHealth
    collectProcessMetrics()
    const scrape = Effect.gen(function*() {
      const report = yield* workers.check(60)
      const { backlog, checkedAt } = report
      const kinds = [
        ["events", backlog.events],
        ["webhook_deliveries", backlog.webhookDeliveries],
        ["emails", backlog.emails],
        ["campaign_emails", backlog.campaignEmails],
        ["scheduled_campaigns", backlog.scheduledCampaigns],
        ["trigger_firings", backlog.triggerFirings],
        ["sequence_steps", backlog.sequenceSteps],
        ["imports", backlog.imports]
      ] as const
      reportQueueDepths(kinds.map(([work, b]) => ({
        work,
        waiting: b.waiting,
        due: b.due,
        lagSeconds: lagSeconds(b, checkedAt) ?? 0
      })))
      const text = yield* Effect.promise(() => metricsRegistry.metrics())
      return HttpServerResponse.text(text, { contentType: metricsRegistry.contentType })
    })
    yield* router.get(
      METRICS_PATH,
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        metricsAuthorized(request.headers["authorization"], metricsToken) ? scrape : Effect.succeed(unauthorized))
    )
  })
)
