import { Effect } from "effect"
import { CacheHealth, DatabaseHealth } from "./ports/health.js"

export type CheckResult = "ok" | "error"

export interface ReadinessReport {
  readonly ready: boolean
  readonly checks: { readonly database: CheckResult; readonly cache: CheckResult }
}

const CHECK_TIMEOUT = "2 seconds"

/** Whether the service can answer requests: the database and the cache store both answer. */
export class Readiness extends Effect.Service<Readiness>()("roster/Readiness", {
  effect: Effect.gen(function*() {
    const database = yield* DatabaseHealth
    const cache = yield* CacheHealth
    const probe = (check: Effect.Effect<void, string>) =>
      check.pipe(
        Effect.timeoutFail({ duration: CHECK_TIMEOUT, onTimeout: () => "timed out" }),
        Effect.as<CheckResult>("ok"),
        Effect.catchAllCause(() => Effect.succeed<CheckResult>("error"))
      )
    const check = Effect.gen(function*() {
      const [db, cacheResult] = yield* Effect.all([probe(database.check), probe(cache.check)], { concurrency: 2 })
      return { ready: db === "ok" && cacheResult === "ok", checks: { database: db, cache: cacheResult } } satisfies ReadinessReport
    })
    return { check } as const
  })
}) {}
