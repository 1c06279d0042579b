import { describe, expect, it } from "@effect/vitest"
import { Billing, BillingAccountRepository, BillingSettings, OrganizationRepository, Organizations } from "@roster/application"
import { BillingAccount, type OrganizationId, Slug } from "@roster/domain"
import { Effect, Layer, Logger, Option, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { MemoryPersistenceLive, UnconfiguredPaymentGatewayLive } from "../../adapters/in-process/index.js"
import { CryptoLive } from "../../adapters/node/index.js"
import { BillingJob } from "../../apps/worker/billing-job.js"

/**
 * The worker's job that ends plans whose paid period is over (no provider event comes then), as
 * the worker runs it, over the use cases in memory.
 */

const useCases = Layer.mergeAll(Billing.Default, Organizations.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(
    MemoryPersistenceLive,
    CryptoLive,
    UnconfiguredPaymentGatewayLive,
    Layer.succeed(BillingSettings, { prices: { pro: "price_pro", enterprise: null }, returnUrl: "https://roster.example" })
  ))
)

/** A pro organization whose canceled subscription was paid until `periodEnd`. */
const canceledUntil = (periodEnd: Date) =>
  Effect.gen(function*() {
    const organization = yield* (yield* Organizations).create({ name: "Acme", slug: Slug.make(`acme-${randomUUID()}`), tier: "pro" })
    yield* (yield* BillingAccountRepository).save(
      new BillingAccount({
        organizationId: organization.id,
        customerId: "cus_1",
        subscriptionId: `sub_${randomUUID()}`,
        priceId: "price_pro",
        status: "canceled",
        currentPeriodEnd: periodEnd,
        cancelAtPeriodEnd: true,
        lastChangeAt: new Date(periodEnd.getTime() - 86_400_000),
        settledAt: null,
        updatedAt: new Date()
      })
    )
    return organization.id
  })

const tierOf = (id: OrganizationId) =>
  Effect.flatMap(OrganizationRepository, (organizations) => organizations.findById(id)).pipe(
    Effect.map((found) => Option.getOrThrow(found).tier)
  )

describe("the worker's billing job", () => {
  it.live("moves a plan whose paid period ended to free, and leaves one still paid for alone", () =>
    Effect.gen(function*() {
      const ended = yield* canceledUntil(new Date(Date.now() - 60_000))
      const paid = yield* canceledUntil(new Date(Date.now() + 86_400_000))
      yield* Layer.buildWithScope(BillingJob, yield* Effect.scope)
      yield* tierOf(ended).pipe(
        Effect.repeat({ until: (tier) => tier === "free", schedule: Schedule.spaced("20 millis") }),
        Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the ended plan stayed pro") })
      )
      expect(yield* tierOf(paid)).toBe("pro")
      const settled = Option.getOrThrow(yield* (yield* BillingAccountRepository).find(ended))
      expect(settled.settledAt).not.toBeNull()
    }).pipe(
      Effect.provide(useCases),
      Effect.scoped,
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.none))
    ), 20_000)
})
