import { Context, type Effect } from "effect"

/** A response as it went out, kept to be replayed. */
export interface StoredResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** What a key holds when a request tries to claim it. */
export type IdempotencyClaim =
  | { readonly _tag: "Claimed" }
  | { readonly _tag: "Running"; readonly fingerprint: string }
  | { readonly _tag: "Completed"; readonly fingerprint: string; readonly response: StoredResponse }

/**
 * Idempotency records. `claim` is atomic: of concurrent claims of one key exactly one gets
 * `Claimed`. A store that cannot answer lets requests through (`Claimed`) and keeps nothing.
 */
export class IdempotencyStore extends Context.Tag("roster/IdempotencyStore")<IdempotencyStore, {
  /** Marks the key as running with this fingerprint for at most `lockMs`, unless it holds something. */
  readonly claim: (key: string, fingerprint: string, lockMs: number) => Effect.Effect<IdempotencyClaim>
  /** Keeps the response for `retainMs`, in place of the running mark. */
  readonly complete: (key: string, fingerprint: string, response: StoredResponse, retainMs: number) => Effect.Effect<void>
  /** Forgets a running key, so that the same request may be tried again. */
  readonly release: (key: string) => Effect.Effect<void>
}>() {}
