import { type IdempotencyClaim, IdempotencyStore, type StoredResponse } from "@roster/application"
import { Clock, Effect, Layer } from "effect"
import { ExpiringEntries, type ExpiringEntriesOptions } from "./expiring-entries.js"

type Held =
  | { readonly state: "running"; readonly fingerprint: string }
  | { readonly state: "completed"; readonly fingerprint: string; readonly response: StoredResponse }

export type IdempotencyEntriesOptions = ExpiringEntriesOptions

/** Idempotency records kept in this process, each until it expires; see {@link ExpiringEntries}. */
export class IdempotencyEntries {
  private readonly entries: ExpiringEntries<Held>

  constructor(options: IdempotencyEntriesOptions = {}) {
    this.entries = new ExpiringEntries(options)
  }

  /** How many keys are kept now (expired entries not yet swept included). */
  get size(): number {
    return this.entries.size
  }

  claim(key: string, fingerprint: string, lockMs: number, nowMs: number): IdempotencyClaim {
    const held = this.entries.get(key, nowMs)
    if (held !== undefined) {
      return held.state === "running"
        ? { _tag: "Running", fingerprint: held.fingerprint }
        : { _tag: "Completed", fingerprint: held.fingerprint, response: held.response }
    }
    this.entries.set(key, { state: "running", fingerprint }, nowMs + Math.max(1, lockMs), nowMs)
    return { _tag: "Claimed" }
  }

  complete(key: string, fingerprint: string, response: StoredResponse, retainMs: number, nowMs: number): void {
    this.entries.set(key, { state: "completed", fingerprint, response }, nowMs + Math.max(1, retainMs), nowMs)
  }

  release(key: string): void {
    this.entries.delete(key)
  }
}

/** An idempotency store over the given entries, on Effect's Clock (the TestClock in tests). */
export const makeInProcessIdempotencyStore = (entries: IdempotencyEntries): Layer.Layer<IdempotencyStore> =>
  Layer.succeed(
    IdempotencyStore,
    IdempotencyStore.of({
      claim: (key, fingerprint, lockMs) =>
        Effect.map(Clock.currentTimeMillis, (nowMs) => entries.claim(key, fingerprint, lockMs, nowMs)),
      complete: (key, fingerprint, response, retainMs) =>
        Effect.map(Clock.currentTimeMillis, (nowMs) => entries.complete(key, fingerprint, response, retainMs, nowMs)),
      release: (key) => Effect.sync(() => entries.release(key))
    })
  )

/**
 * Idempotency records kept in this process: for a single process without Redis. Each build of the
 * layer starts empty.
 */
export const InProcessIdempotencyStoreLive: Layer.Layer<IdempotencyStore> = Layer.unwrapEffect(
  Effect.sync(() => makeInProcessIdempotencyStore(new IdempotencyEntries()))
)
