import { MAX_BATCH_SIZE, type Message, nextAttemptAt } from "@roster/domain"
import { Clock, Effect, Option } from "effect"
import { Ids } from "./ports/ids.js"
import { Mailer, type MailerError, type OutgoingEmail } from "./ports/mailer.js"
import { MessageRepository } from "./ports/message-repository.js"
import { RateLimiter } from "./ports/rate-limiter.js"
import { now } from "./support/clock.js"

export interface DeliverySettings {
  /** Emails per provider call at most (the provider's batch limit, 100 for Resend). */
  readonly batchSize: number
  /** How long a worker holds a batch before another may take it over; longer than a call can take. */
  readonly leaseMs: number
  /** Calls to the provider per second, shared by every worker. */
  readonly providerRate: number
}

/** The rate window every worker counts its provider calls in. */
const PROVIDER_RATE_KEY = "email-provider:calls"
const RATE_WINDOW_MS = 1_000

const outgoing = (message: Message): OutgoingEmail => ({
  to: message.to,
  from: message.from,
  subject: message.subject,
  html: message.html ?? undefined,
  text: message.text ?? undefined,
  headers: message.headers,
  idempotencyKey: message.id
})

/**
 * Hands queued email to the provider: a batch at a time, as the provider's rate allows. A batch of
 * one goes under its message's id as the idempotency key, a larger one under the batch's key, so a
 * batch sent again (a killed worker's, or after a timeout) is taken once. A failure that may pass
 * postpones the batch, whole, with backoff and at least the provider's `Retry-After`; one that will
 * not breaks a batch up (one bad email must not hold the others) or fails a single message.
 */
export class EmailDelivery extends Effect.Service<EmailDelivery>()("roster/EmailDelivery", {
  effect: Effect.gen(function*() {
    const messages = yield* MessageRepository
    const mailer = yield* Mailer
    const limiter = yield* RateLimiter
    const ids = yield* Ids

    /** Waits for a turn within the provider's rate, however many workers ask. */
    const providerTurn = (rate: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        while (true) {
          const verdict = yield* limiter.consume(PROVIDER_RATE_KEY, rate, RATE_WINDOW_MS)
          if (verdict.allowed) return
          const at = yield* Clock.currentTimeMillis
          yield* Effect.sleep(Math.max(1, verdict.resetAt.getTime() - at))
        }
      })

    const handOver = (batch: ReadonlyArray<Message>, key: string) =>
      batch.length === 1
        ? Effect.map(mailer.send(outgoing(batch[0]!)), (accepted) => [accepted])
        : mailer.sendBatch(batch.map(outgoing), { idempotencyKey: key })

    const settleFailure = (key: string, batch: ReadonlyArray<Message>, error: MailerError) =>
      Effect.gen(function*() {
        const at = yield* now
        if (!error.retryable) {
          if (batch.length > 1) return yield* messages.unbatch(key, at)
          return yield* messages.markFailed(key, error.reason, at)
        }
        const attempts = Math.max(...batch.map((m) => m.attemptCount))
        const retryAt = nextAttemptAt(attempts, at, error.retryAfterMs ?? null)
        return yield* retryAt === null
          ? messages.markFailed(key, `gave up after ${attempts} attempts: ${error.reason}`, at)
          : messages.postpone(key, retryAt, error.reason, at)
      })

    /** Leases the next due batch and hands it over; how many messages it took (0: nothing was due). */
    const deliverNext = (settings: DeliverySettings) =>
      Effect.gen(function*() {
        // The turn comes before the lease, so that the batch takes everything that came meanwhile.
        if (!(yield* messages.anyDue(yield* now))) return 0
        yield* providerTurn(settings.providerRate)
        const leased = yield* messages.leaseDue({
          limit: Math.min(settings.batchSize, MAX_BATCH_SIZE),
          leaseMs: settings.leaseMs,
          now: yield* now,
          newKey: yield* ids.next
        })
        if (Option.isNone(leased)) return 0
        const { key, messages: batch } = leased.value
        yield* handOver(batch, key).pipe(
          Effect.matchEffect({
            onFailure: (error) => settleFailure(key, batch, error),
            onSuccess: (accepted) =>
              Effect.flatMap(now, (at) =>
                messages.markSent(key, batch.map((m, i) => ({ id: m.id, providerId: accepted[i]!.providerId })), at))
          })
        )
        return batch.length
      }).pipe(Effect.withSpan("EmailDelivery.deliverNext"))

    return { deliverNext } as const
  })
}) {}
