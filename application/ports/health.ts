import { Context, type Effect } from "effect"

/** A dependency the service needs to answer requests: the database, the cache store. */
export interface HealthCheck {
  readonly name: string
  /** Succeeds when the dependency answers; fails with a short reason. */
  readonly check: Effect.Effect<void, string>
}

export class DatabaseHealth extends Context.Tag("roster/DatabaseHealth")<DatabaseHealth, HealthCheck>() {}
export class CacheHealth extends Context.Tag("roster/CacheHealth")<CacheHealth, HealthCheck>() {}
