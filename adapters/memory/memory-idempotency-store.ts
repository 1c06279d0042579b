import { type IdempotencyClaim, IdempotencyStore, type StoredResponse } from "@roster/application"
import { Clock, Effect, Layer } from "effect"

type Held =
  | { readonly state: "running"; readonly fingerprint: string }
  | { readonly state: "completed"; readonly fingerprint: string; readonly response: StoredResponse }

interface Entry {
  readonly held: Held
  readonly expiresAtMs: number
}

export interface IdempotencyEntriesOptions {
  /** How often, at most, entries that have expired are swept away. */
  readonly sweepIntervalMs?: number
  /**
   * How many keys are kept at most. Past it, the oldest entries are dropped early: a repeat of
   * those requests runs again, as it would without a key, rather than being refused.
   */
  readonly maxKeys?: number
}

/**
 * Idempotency records kept in this process, each until it expires. Expired entries are swept away
 * as time passes and the number of keys is capped, so the map cannot grow without bound.
 */
export class IdempotencyEntries {
  private readonly entries = new Map<string, Entry>()
  private readonly sweepIntervalMs: number
  private readonly maxKeys: number
  private nextSweepAtMs = 0

  constructor(options: IdempotencyEntriesOptions = {}) {
    this.sweepIntervalMs = Math.max(1, options.sweepIntervalMs ?? 60_000)
    this.maxKeys = Math.max(1, options.maxKeys ?? 100_000)
  }

  /** How many keys are kept now (expired entries not yet swept included). */
  get size(): number {
    return this.entries.size
  }

  claim(key: string, fingerprint: string, lockMs: number, nowMs: number): IdempotencyClaim {
    this.sweep(nowMs)
    const entry = this.entries.get(key)
    if (entry !== undefined && entry.expiresAtMs > nowMs) {
      const { held } = entry
      return held.state === "running"
        ? { _tag: "Running", fingerprint: held.fingerprint }
        : { _tag: "Completed", fingerprint: held.fingerprint, response: held.response }
    }
    this.put(key, { state: "running", fingerprint }, nowMs + Math.max(1, lockMs))
    return { _tag: "Claimed" }
  }

  complete(key: string, fingerprint: string, response: StoredResponse, retainMs: number, nowMs: number): void {
    this.sweep(nowMs)
    this.put(key, { state: "completed", fingerprint, response }, nowMs + Math.max(1, retainMs))
  }

  release(key: string): void {
    this.entries.delete(key)
  }

  private put(key: string, held: Held, expiresAtMs: number): void {
    // Re-inserting keeps the map in order of writing, oldest first, for eviction.
    this.entries.delete(key)
    this.entries.set(key, { held, expiresAtMs })
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxKeys) return
      this.entries.delete(oldest)
    }
  }

  private sweep(nowMs: number): void {
    if (nowMs < this.nextSweepAtMs) return
    this.nextSweepAtMs = nowMs + this.sweepIntervalMs
    for (const [key, entry] of this.entries) {
      if (entry.expiresAtMs <= nowMs) this.entries.delete(key)
    }
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
