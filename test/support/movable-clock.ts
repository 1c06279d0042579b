import { Clock, Duration, Effect } from "effect"

/**
 * The real clock moved forward by a chosen amount: the server's use cases read the time through
 * it (links expire, sessions end, rate windows pass), while waiting still takes real time.
 */
export class MovableClock implements Clock.Clock {
  readonly [Clock.ClockTypeId]: Clock.ClockTypeId = Clock.ClockTypeId
  private offsetMs = 0
  private readonly real = Clock.make()
  readonly currentTimeMillis = Effect.sync(() => this.unsafeCurrentTimeMillis())
  readonly currentTimeNanos = Effect.sync(() => this.unsafeCurrentTimeNanos())
  advance(by: Duration.DurationInput): void {
    this.offsetMs += Duration.toMillis(by)
  }
  unsafeCurrentTimeMillis(): number {
    return this.real.unsafeCurrentTimeMillis() + this.offsetMs
  }
  unsafeCurrentTimeNanos(): bigint {
    return this.real.unsafeCurrentTimeNanos() + BigInt(this.offsetMs) * 1_000_000n
  }
  sleep(duration: Duration.Duration): Effect.Effect<void> {
    return this.real.sleep(duration)
  }
}
