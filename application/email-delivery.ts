import {
  type CampaignId,
  emailLimitReason,
  MAX_BATCH_SIZE,
  type Message,
  nextAttemptAt,
  usageMonth
} from "@roster/domain"
import { Clock, Effect, Option, Ref } from "effect"
import { CampaignSending } from "./campaign-sending.js"
import { CampaignRepository } from "./ports/campaign-repository.js"
import { EmailUsage } from "./ports/email-usage.js"
import { Ids } from "./ports/ids.js"
import { Mailer, type MailerError, type OutgoingEmail } from "./ports/mailer.js"
import { type LeasedCampaignBatch, OutgoingMail, type RecipientOutcome } from "./ports/outgoing-mail.js"
import { type AdaptiveRate, RateLimiter } from "./ports/rate-limiter.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { now } from "./support/clock.js"
import { Limits } from "./support/limits.js"
import { operations } from "./support/operation.js"

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
/** Held while the provider asked every sender to wait (a 429's or a quota's `Retry-After`). */
const PROVIDER_HOLD_KEY = "email-provider:held"
/** The provider's pace, in calls a second, the same for every worker. */
const PROVIDER_PACE_KEY = "email-provider:pace"
/** The least the pace falls to: a call every ten seconds (or the configured rate, if lower). */
const MIN_PROVIDER_PACE = 0.1

/**
 * The provider's pace: the configured rate until the provider answers 429 (too many calls), then
 * halved on each, down to a call every ten seconds; 429s within half a second of a halving are
 * the same crowd of calls and halve it once. Each call the provider takes adds a twentieth of the
 * rate back, up to the rate; ten minutes without a word and it is the rate again.
 */
const paceFor = (rate: number): AdaptiveRate => ({
  max: rate,
  min: Math.min(rate, MIN_PROVIDER_PACE),
  step: rate / 20,
  settleMs: 500,
  forgetMs: 10 * 60_000
})

/** A pace as people read it: `2 calls a second`, `1 call a second`, `0.5 calls a second`. */
const callsASecond = (pace: number) => {
  const calls = Number(pace.toFixed(2))
  return `${calls} ${calls === 1 ? "call" : "calls"} a second`
}
/**
 * How often a worker looks for campaign batches whose lease ran out or whose retry came due: each
 * look reads every lease taken since the table was last vacuumed, and a lease lasts far longer.
 */
const OVERDUE_LOOK_MS = 1_000

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
    const queue = yield* OutgoingMail
    const campaigns = yield* CampaignRepository
    const unitOfWork = yield* UnitOfWork
    const sending = yield* CampaignSending
    const usage = yield* EmailUsage
    const limits = yield* Limits
    const mailer = yield* Mailer
    const limiter = yield* RateLimiter
    const ids = yield* Ids
    /** The campaign this worker served last: the next lease serves the one after it, so campaigns take turns. */
    const lastServed = yield* Ref.make<CampaignId | undefined>(undefined)
    /** Where this worker's last batch of each campaign ended: its next one starts there. */
    const positions = yield* Ref.make<ReadonlyMap<CampaignId, string>>(new Map())
    /** When this worker last looked for overdue campaign batches. */
    const overdueLookedAt = yield* Ref.make(0)
    /** Whether the last lease came back full: then more is likely due, and the cheap look is skipped. */
    const busy = yield* Ref.make(false)
    const operation = yield* operations

    /**
     * Waits for a turn within the provider's pace, however many workers ask, and for as long as the
     * provider asked any of them to wait; the pace it was taken at. Below one call a second, a turn
     * is one call in a longer window.
     */
    const providerTurn = (pace: AdaptiveRate): Effect.Effect<number> =>
      Effect.gen(function*() {
        while (true) {
          const held = yield* limiter.heldFor(PROVIDER_HOLD_KEY)
          if (held > 0) {
            yield* Effect.sleep(held)
            continue
          }
          const now = yield* limiter.rateOf(PROVIDER_PACE_KEY, pace)
          const calls = Math.max(1, Math.floor(now))
          const verdict = yield* limiter.consume(PROVIDER_RATE_KEY, calls, Math.round(RATE_WINDOW_MS * calls / now))
          if (verdict.allowed) return now
          const at = yield* Clock.currentTimeMillis
          yield* Effect.sleep(Math.max(1, verdict.resetAt.getTime() - at))
        }
      })

    /**
     * Hands a batch over at the pace its turn was taken at: a 429 halves the pace every worker
     * keeps to, and a call taken below the configured rate grows it back a step.
     */
    const handOver = (batch: ReadonlyArray<OutgoingEmail>, key: string, pace: AdaptiveRate, takenAt: number) =>
      (batch.length === 1
        ? Effect.map(mailer.send(batch[0]!), (accepted) => [accepted])
        : mailer.sendBatch(batch, { idempotencyKey: key })).pipe(
          Effect.tapError((error) =>
            error.rateLimited
              ? Effect.flatMap(limiter.slowDown(PROVIDER_PACE_KEY, pace), (slower) =>
                slower < takenAt
                  ? Effect.logInfo(`the email provider answered 429: sending slows to ${callsASecond(slower)}`)
                  : Effect.void)
              : Effect.void
          ),
          Effect.tapBoth({
            onSuccess: () => Effect.logInfo("emails handed to the provider", { batch: key, emails: batch.length }),
            onFailure: (error) =>
              Effect.logWarning("the email provider did not take a batch", {
                batch: key,
                emails: batch.length,
                reason: error.reason,
                retryable: error.retryable,
                rate_limited: error.rateLimited
              })
          }),
          Effect.tap(() =>
            takenAt >= pace.max ? Effect.void : Effect.flatMap(limiter.speedUp(PROVIDER_PACE_KEY, pace), (faster) =>
              faster >= pace.max
                ? Effect.logInfo(`the email provider takes calls again: sending is back to ${callsASecond(faster)}`)
                : Effect.logDebug(`sending speeds up to ${callsASecond(faster)}`))
          )
        )

    /** The batch's messages fail with `error`. */
    const failBatch = (key: string, ids: ReadonlyArray<Message["id"]>, error: string, at: Date) =>
      queue.settle(key, ids.map((id): RecipientOutcome => ({ id, status: "failed", detail: error })), at)

    /** A failed call: the batch waits for its next attempt, breaks up, or fails when it has had them all. */
    const settleFailure = (key: string, ids: ReadonlyArray<Message["id"]>, attempts: number, error: MailerError) =>
      Effect.gen(function*() {
        const at = yield* now
        // The provider said when to come back: every worker waits that long, not only this batch.
        if (error.retryable && error.retryAfterMs !== null) yield* limiter.hold(PROVIDER_HOLD_KEY, error.retryAfterMs)
        if (error.rateLimited) {
          // Calls came too fast, which says nothing of the emails: the batch goes again once the
          // provider's wait is over, at the slower pace, and is never given up for it.
          const retryAt = new Date(at.getTime() + Math.max(RATE_WINDOW_MS, error.retryAfterMs ?? 0))
          return yield* queue.postpone(key, retryAt, error.reason, at)
        }
        if (!error.retryable) {
          if (ids.length > 1) return yield* queue.unbatch(key, at)
          return yield* failBatch(key, ids, error.reason, at)
        }
        const retryAt = nextAttemptAt(attempts, at, error.retryAfterMs ?? null)
        return yield* retryAt === null
          ? failBatch(key, ids, `gave up after ${attempts} attempts: ${error.reason}`, at)
          : queue.postpone(key, retryAt, error.reason, at)
      })

    /**
     * A campaign batch: each email rendered for its recipient as they are now (one who unsubscribed
     * meanwhile gets nothing), counted against the plan's monthly limit (which, once reached, stops
     * the campaign as `failed`), then handed over as a single send's batch is. The campaign ends
     * here when the batch was `last` (shorter than a lease takes).
     */
    const deliverCampaign = (leased: LeasedCampaignBatch, last: boolean, pace: AdaptiveRate, paceNow: number) =>
      Effect.gen(function*() {
        const { key, tier } = leased
        const { campaign } = leased.campaign
        const { emails, settled } = yield* sending.prepare(leased)
        const at = yield* now
        if (emails.length === 0) {
          yield* queue.settle(key, settled, at)
          return last ? yield* sending.finish(campaign.id) : undefined
        }
        const month = usageMonth(at)
        const max = limits.emailsPerMonth(tier)
        if (!(yield* usage.reserve(campaign.organizationId, month, emails.length, max))) {
          const reason = emailLimitReason(max ?? 0)
          const unsent = emails.map(({ id }): RecipientOutcome => ({ id, status: "failed", detail: reason, subject: "" }))
          yield* queue.settle(key, [...settled, ...unsent], at)
          // The campaign stops, and what of it was not handed over fails with it, both or neither.
          return yield* unitOfWork.transaction(
            Effect.tap(campaigns.transition(campaign.id, "fail", { at, failureReason: reason }), (stopped) =>
              Option.isSome(stopped) ? queue.failQueued(campaign.id, reason, at) : Effect.void)
          )
        }
        yield* handOver(emails.map((e) => e.email), key, pace, paceNow).pipe(
          Effect.matchEffect({
            onFailure: (error) =>
              Effect.all([
                queue.settle(key, settled, at),
                // Not handed over: counted again when it is.
                usage.release(campaign.organizationId, month, emails.length),
                settleFailure(key, emails.map((e) => e.id), Math.max(...leased.recipients.map((r) => r.message.attemptCount)), error)
              ], { discard: true }),
            onSuccess: (accepted) =>
              Effect.flatMap(now, (sentAt) =>
                queue.settle(key, [
                  ...settled,
                  ...emails.map(({ email, id }, i): RecipientOutcome => ({
                    id,
                    status: "sent",
                    providerId: accepted[i]!.providerId,
                    subject: email.subject
                  }))
                ], sentAt))
          })
        )
        // A full batch is seldom the campaign's last: the campaign job ends one that was.
        if (last) yield* sending.finish(campaign.id)
      })

    /**
     * The next campaign batch: now and then one whose lease ran out or whose retry came due, else
     * the next campaign's from where this worker's last batch of it ended, or, when nothing is due
     * after those positions, from the start of each campaign.
     */
    const leaseCampaignBatch = (lease: { limit: number; leaseMs: number; now: Date; newKey: string }) =>
      Effect.gen(function*() {
        const lookedAt = yield* Ref.get(overdueLookedAt)
        const overdue = lease.now.getTime() - lookedAt >= OVERDUE_LOOK_MS
        if (overdue) yield* Ref.set(overdueLookedAt, lease.now.getTime())
        const after = yield* Ref.get(lastServed)
        const known = yield* Ref.get(positions)
        let leased = yield* queue.leaseCampaign({ ...lease, after, overdue, positions: known })
        if (Option.isNone(leased) && known.size > 0) {
          yield* Ref.set(positions, new Map())
          leased = yield* queue.leaseCampaign({ ...lease, after, overdue: false })
        }
        if (Option.isSome(leased)) {
          const { campaign: { campaign }, position } = leased.value
          yield* Ref.set(lastServed, campaign.id)
          yield* Ref.update(positions, (current) => {
            const before = current.get(campaign.id)
            return before !== undefined && before > position ? current : new Map(current).set(campaign.id, position)
          })
        }
        return leased
      })

    /**
     * Leases the next due batch and hands it over; how many emails it took (0: nothing was due).
     * Single sends go first; campaign batches go to the sending campaigns in turn.
     */
    const deliverNext = operation("EmailDelivery.deliverNext")((settings: DeliverySettings) =>
      Effect.gen(function*() {
        // The turn comes before the lease, so that the batch takes everything that came meanwhile.
        const at = yield* now
        if (!(yield* Ref.get(busy)) && !(yield* queue.anyDue(at))) return 0
        const pace = paceFor(settings.providerRate)
        const paceNow = yield* providerTurn(pace)
        const lease = {
          limit: Math.min(settings.batchSize, MAX_BATCH_SIZE),
          leaseMs: settings.leaseMs,
          now: yield* now,
          newKey: yield* ids.next
        }
        const leased = yield* queue.lease(lease)
        if (Option.isNone(leased)) {
          const campaignBatch = yield* leaseCampaignBatch(lease)
          if (Option.isNone(campaignBatch)) return yield* Ref.set(busy, false).pipe(Effect.as(0))
          const batch = campaignBatch.value
          const full = batch.recipients.length === lease.limit
          yield* Ref.set(busy, full)
          yield* deliverCampaign(batch, !full, pace, paceNow)
          return batch.recipients.length
        }
        const { key, messages: batch } = leased.value
        yield* Ref.set(busy, batch.length === lease.limit)
        yield* handOver(batch.map(outgoing), key, pace, paceNow).pipe(
          Effect.matchEffect({
            onFailure: (error) =>
              settleFailure(key, batch.map((m) => m.id), Math.max(...batch.map((m) => m.attemptCount)), error),
            onSuccess: (accepted) =>
              Effect.flatMap(now, (at) =>
                queue.settle(
                  key,
                  batch.map((m, i): RecipientOutcome => ({ id: m.id, status: "sent", providerId: accepted[i]!.providerId })),
                  at
                ))
          })
        )
        return batch.length
      }))

    return { deliverNext } as const
  }),
  dependencies: [CampaignSending.Default]
}) {}
