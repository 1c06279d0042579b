import { Clock, Effect } from "effect"
import type { Principal } from "./principal.js"

/**
 * How long a credential's principal is answered from memory. A change made in this process (a key
 * revoked, rotated or rescoped, an organization suspended or moved) clears the cache at once; a
 * change made in another process takes effect here within this time.
 */
export const PRINCIPAL_CACHE_TTL_MS = 1_000

/** Entries kept at most; past it the cache starts again empty rather than grow. */
const MAX_ENTRIES = 10_000

interface Entry {
  readonly principal: Principal
  readonly expiresAt: number
}

/** The principals of credentials presented lately, by the credential's hash, for a second. */
export class PrincipalCache extends Effect.Service<PrincipalCache>()("roster/PrincipalCache", {
  sync: () => {
    const entries = new Map<string, Entry>()
    return {
      /** The principal of the credential with this hash, if it was established within the last second. */
      get: (hash: string): Effect.Effect<Principal | undefined> =>
        Effect.map(Clock.currentTimeMillis, (nowMs) => {
          const entry = entries.get(hash)
          if (entry === undefined) return undefined
          if (entry.expiresAt > nowMs) return entry.principal
          entries.delete(hash)
          return undefined
        }),
      set: (hash: string, principal: Principal): Effect.Effect<void> =>
        Effect.map(Clock.currentTimeMillis, (nowMs) => {
          if (entries.size >= MAX_ENTRIES) entries.clear()
          entries.set(hash, { principal, expiresAt: nowMs + PRINCIPAL_CACHE_TTL_MS })
        }),
      /** Forgets every principal, after a change to credentials or organizations. */
      invalidate: Effect.sync(() => entries.clear())
    } as const
  }
}) {}
