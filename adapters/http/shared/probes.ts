import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Readiness } from "@roster/application"
import { Effect, Schema } from "effect"
import { serviceVersion } from "./service-version.js"

/** Liveness and readiness probes: the same in every wire form, without credentials. */

export const Health = Schema.Struct({
  status: Schema.Literal("healthy"),
  version: Schema.String.annotations({ description: "version of the running service" })
}).annotations({ identifier: "Health" })

const CheckResult = Schema.Literal("ok", "error")

const Checks = Schema.Struct({
  database: CheckResult,
  cache: CheckResult
}).annotations({ identifier: "ReadinessChecks", description: "`ok` when the dependency answered within 2 seconds" })

export const Ready = Schema.Struct({
  status: Schema.Literal("ready"),
  checks: Checks
}).annotations({ identifier: "Ready", description: "every dependency answers" })

export const NotReady = Schema.Struct({
  status: Schema.Literal("unavailable"),
  checks: Checks
}).annotations({ identifier: "NotReady", description: "a dependency does not answer; the failing check reads `error`" })

export const ProbesGroup = HttpApiGroup.make("probes")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Health)
      .annotate(OpenApi.Summary, "Liveness")
      .annotate(OpenApi.Description, "Answers 200 while the process runs. Checks no dependency.")
  )
  .add(
    HttpApiEndpoint.get("ready", "/ready")
      .addSuccess(Ready)
      .addSuccess(NotReady, { status: 503 })
      .annotate(OpenApi.Summary, "Readiness")
      .annotate(
        OpenApi.Description,
        "Checks the database and the cache store. 200 when both answer; 503 with the failing check marked `error` otherwise."
      )
  )
  .annotate(OpenApi.Title, "Probes")
  .annotate(OpenApi.Description, "Health and readiness for load balancers and orchestrators; no credentials needed.")

export const healthReport: Effect.Effect<typeof Health.Type> = Effect.succeed({ status: "healthy", version: serviceVersion })

export const readinessReport: Effect.Effect<typeof Ready.Type | typeof NotReady.Type, never, Readiness> = Effect.gen(
  function*() {
    const { checks, ready } = yield* (yield* Readiness).check
    return ready ? { status: "ready" as const, checks } : { status: "unavailable" as const, checks }
  }
)
