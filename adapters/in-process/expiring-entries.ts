export interface ExpiringEntriesOptions {
  /** How often, at most, entries that have expired are swept away. */
  readonly sweepIntervalMs?: number
  /**
   * How many keys are kept at most. Past it, the oldest entries are dropped early, which for the
   * stores built on this lets a request through rather than refusing it.
   */
  readonly maxKeys?: number
}

/**
 * Values kept in this process, each until it expires. Expired entries are swept away as time
 * passes and the number of keys is capped (the oldest written go first), so the map cannot grow
 * without bound. Times are passed in, so that Effect's Clock (the TestClock in tests) drives it.
 */
export class ExpiringEntries<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly expiresAtMs: number }>()
  private readonly sweepIntervalMs: number
  private readonly maxKeys: number
  private nextSweepAtMs = 0

  constructor(options: ExpiringEntriesOptions = {}) {
    this.sweepIntervalMs = Math.max(1, options.sweepIntervalMs ?? 60_000)
    this.maxKeys = Math.max(1, options.maxKeys ?? 100_000)
  }

  /** How many keys are kept now (expired entries not yet swept included). */
  get size(): number {
    return this.entries.size
  }

  /** The value under `key`, while it has not expired. */
  get(key: string, nowMs: number): V | undefined {
    this.sweep(nowMs)
    const entry = this.entries.get(key)
    return entry !== undefined && entry.expiresAtMs > nowMs ? entry.value : undefined
  }

  set(key: string, value: V, expiresAtMs: number, nowMs: number): void {
    this.sweep(nowMs)
    // Re-inserting keeps the map in order of writing, oldest first, for eviction.
    this.entries.delete(key)
    this.entries.set(key, { value, expiresAtMs })
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxKeys) return
      this.entries.delete(oldest)
    }
  }

  delete(key: string): void {
    this.entries.delete(key)
  }

  private sweep(nowMs: number): void {
    if (nowMs < this.nextSweepAtMs) return
    this.nextSweepAtMs = nowMs + this.sweepIntervalMs
    for (const [key, entry] of this.entries) {
      if (entry.expiresAtMs <= nowMs) this.entries.delete(key)
    }
  }
}
