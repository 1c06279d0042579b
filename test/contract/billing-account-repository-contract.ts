import { expect, layer } from "@effect/vitest"
import { BillingAccountRepository, OrganizationRepository, UnitOfWork } from "@roster/application"
import { applySubscription, BillingAccount, emptyBillingAccount, OrganizationId } from "@roster/domain"
import { Deferred, Effect, Exit, Fiber, Option } from "effect"
import { randomUUID } from "node:crypto"
import { anEraOfItsOwn, deletingAfterwards, givenOrganization, instant, type PersistenceLayer } from "./fixtures.js"

const withSubscription = (account: BillingAccount, status: "active" | "canceled" | "unpaid", periodEnd: Date) =>
  applySubscription(account, {
    id: `sub_${randomUUID()}`,
    customerId: account.customerId ?? `cus_${randomUUID()}`,
    status,
    priceId: "price_pro",
    currentPeriodEnd: periodEnd,
    cancelAtPeriodEnd: false
  }, instant(5), instant(6))

export const billingAccountRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("BillingAccountRepository", (it) => {
    it.effect("holding makes an empty account once; saving stores every field, found by organization and by customer", () =>
      Effect.gen(function*() {
        const accounts = yield* BillingAccountRepository
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          expect(yield* accounts.find(organization.id)).toEqual(Option.none())
          const empty = emptyBillingAccount(organization.id, instant(1))
          const held = yield* unitOfWork.transaction(accounts.hold(empty))
          expect(held).toEqual(Option.some(empty))
          // A second hold finds the first account, not the one it offers.
          expect(yield* unitOfWork.transaction(accounts.hold(emptyBillingAccount(organization.id, instant(2)))))
            .toEqual(Option.some(empty))
          const customerId = `cus_${randomUUID()}`
          const saved = withSubscription(new BillingAccount({ ...empty, customerId }), "active", instant(3600))
          yield* accounts.save(saved)
          expect(yield* accounts.find(organization.id)).toEqual(Option.some(saved))
          expect(yield* accounts.findByCustomer(customerId)).toEqual(Option.some(saved))
          expect(yield* accounts.findByCustomer(`cus_${randomUUID()}`)).toEqual(Option.none())
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("nothing is held or saved for an organization that does not exist, and an account goes with its organization", () =>
      Effect.gen(function*() {
        const accounts = yield* BillingAccountRepository
        const unitOfWork = yield* UnitOfWork
        const nobody = OrganizationId.make(randomUUID())
        expect(yield* unitOfWork.transaction(accounts.hold(emptyBillingAccount(nobody, instant(1))))).toEqual(Option.none())
        yield* accounts.save(emptyBillingAccount(nobody, instant(1)))
        expect(yield* accounts.find(nobody)).toEqual(Option.none())

        const organization = yield* givenOrganization()
        const customerId = `cus_${randomUUID()}`
        yield* accounts.save(new BillingAccount({ ...emptyBillingAccount(organization.id, instant(1)), customerId }))
        expect(yield* (yield* OrganizationRepository).delete(organization.id)).toBe(true)
        expect(yield* accounts.find(organization.id)).toEqual(Option.none())
        expect(yield* accounts.findByCustomer(customerId)).toEqual(Option.none())
      }))

    it.effect("a held account waits for its holder's transaction: concurrent holders take turns", () =>
      Effect.gen(function*() {
        const accounts = yield* BillingAccountRepository
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const holding = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const first = yield* Effect.fork(unitOfWork.transaction(Effect.gen(function*() {
            const held = Option.getOrThrow(yield* accounts.hold(emptyBillingAccount(organization.id, instant(1))))
            yield* Deferred.succeed(holding, undefined)
            yield* Deferred.await(release)
            yield* accounts.save(new BillingAccount({ ...held, customerId: "cus_first" }))
          })))
          yield* Deferred.await(holding)
          const second = yield* Effect.fork(unitOfWork.transaction(accounts.hold(emptyBillingAccount(organization.id, instant(2)))))
          // Real time (the test's clock stands still) for the second holder to reach the account.
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(first)
          const seen = yield* Fiber.join(second)
          // The second holder saw what the first saved.
          expect(Option.map(seen, (a) => a.customerId)).toEqual(Option.some("cus_first"))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("an event id is taken once; a rollback forgets it", () =>
      Effect.gen(function*() {
        const accounts = yield* BillingAccountRepository
        const unitOfWork = yield* UnitOfWork
        const id = `evt_${randomUUID()}`
        expect(yield* accounts.recordEvent(id, instant(1))).toBe(true)
        expect(yield* accounts.recordEvent(id, instant(2))).toBe(false)
        const rolledBack = `evt_${randomUUID()}`
        const exit = yield* Effect.exit(unitOfWork.transaction(Effect.zipRight(
          accounts.recordEvent(rolledBack, instant(1)),
          Effect.fail("the change failed")
        )))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(yield* accounts.recordEvent(rolledBack, instant(3))).toBe(true)
      }))

    it.effect("lists the paid organizations whose subscription ended and whose period has passed", () =>
      Effect.gen(function*() {
        const accounts = yield* BillingAccountRepository
        const era = anEraOfItsOwn()
        const canceledPro = yield* givenOrganization({ tier: "pro" })
        const unpaidLater = yield* givenOrganization({ tier: "pro" })
        const activePro = yield* givenOrganization({ tier: "pro" })
        const canceledFree = yield* givenOrganization({ tier: "free" })
        yield* Effect.gen(function*() {
          const save = (id: OrganizationId, status: "active" | "canceled" | "unpaid", periodEnd: Date) =>
            accounts.save(withSubscription(emptyBillingAccount(id, instant(0)), status, periodEnd))
          yield* save(canceledPro.id, "canceled", era(10))
          yield* save(unpaidLater.id, "unpaid", era(100))
          yield* save(activePro.id, "active", era(5))
          yield* save(canceledFree.id, "canceled", era(5))
          const ours = new Set<string>([canceledPro.id, unpaidLater.id, activePro.id, canceledFree.id])
          const listed = (now: Date) => Effect.map(accounts.listEnded(now, 10_000), (ids) => ids.filter((id) => ours.has(id)))
          expect(yield* listed(era(9))).toEqual([])
          expect(yield* listed(era(10))).toEqual([canceledPro.id])
          expect(yield* listed(era(100))).toEqual([canceledPro.id, unpaidLater.id])
          // A settled end is listed no more.
          const settled = Option.getOrThrow(yield* accounts.find(canceledPro.id))
          yield* accounts.save(new BillingAccount({ ...settled, settledAt: era(101) }))
          expect(yield* listed(era(200))).toEqual([unpaidLater.id])
        }).pipe(deletingAfterwards([canceledPro.id, unpaidLater.id, activePro.id, canceledFree.id]))
      }))
  })
