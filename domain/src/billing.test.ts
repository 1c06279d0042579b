import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import {
  applySubscription,
  BillingAccount,
  BillingStatus,
  emptyBillingAccount,
  hasEnded,
  isDueToSettle,
  isNewerChange,
  type SubscriptionSnapshot,
  tierOfAccount
} from "./billing.js"
import { PlanLimitExceeded } from "./errors.js"
import { OrganizationId } from "./ids.js"
import { tierLifting } from "./plan.js"

const organizationId = OrganizationId.make("0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10")
const at = (minute: number) => new Date(Date.UTC(2026, 4, 1, 0, minute))

const snapshot = (fields: Partial<SubscriptionSnapshot> = {}): SubscriptionSnapshot => ({
  id: "sub_1",
  customerId: "cus_1",
  status: "active",
  priceId: "price_pro",
  currentPeriodEnd: at(60),
  cancelAtPeriodEnd: false,
  ...fields
})

const holding = (fields: Partial<SubscriptionSnapshot>, changedAt: Date) =>
  applySubscription(emptyBillingAccount(organizationId, at(0)), snapshot(fields), changedAt, changedAt)

describe("billing accounts", () => {
  it("an account without a subscription takes any, and applying one keeps its customer and the latest change", () => {
    const empty = emptyBillingAccount(organizationId, at(0))
    expect(isNewerChange(empty, snapshot(), at(1))).toBe(true)
    const applied = applySubscription(empty, snapshot(), at(5), at(6))
    expect(applied).toMatchObject({ customerId: "cus_1", subscriptionId: "sub_1", status: "active", lastChangeAt: at(5), updatedAt: at(6) })
    expect(applySubscription(applied, snapshot({ status: "past_due" }), at(3), at(7)).lastChangeAt).toEqual(at(5))
  })

  it("a change of the subscription held older than the last one applied is passed over; one as old or newer is taken", () => {
    const account = holding({ status: "past_due" }, at(10))
    expect(isNewerChange(account, snapshot({ status: "active" }), at(9))).toBe(false)
    expect(isNewerChange(account, snapshot({ status: "active" }), at(10))).toBe(true)
    expect(isNewerChange(account, snapshot({ status: "unpaid" }), at(11))).toBe(true)
  })

  it("a canceled or expired subscription never comes back, whatever the time of the change", () => {
    for (const ended of ["canceled", "incomplete_expired"] as const) {
      const account = holding({ status: ended }, at(10))
      expect(isNewerChange(account, snapshot({ status: "active" }), at(20))).toBe(false)
      expect(isNewerChange(account, snapshot({ status: ended }), at(20))).toBe(true)
    }
  })

  it("another subscription replaces the one held when that one ended, or when it is paid and no older", () => {
    const active = holding({ status: "active" }, at(10))
    expect(isNewerChange(active, snapshot({ id: "sub_2", status: "active" }), at(11))).toBe(true)
    expect(isNewerChange(active, snapshot({ id: "sub_2", status: "canceled" }), at(11))).toBe(false)
    expect(isNewerChange(active, snapshot({ id: "sub_2", status: "active" }), at(9))).toBe(false)
    const canceled = holding({ status: "canceled" }, at(10))
    expect(isNewerChange(canceled, snapshot({ id: "sub_2", status: "incomplete" }), at(11))).toBe(true)
    expect(isNewerChange(canceled, snapshot({ id: "sub_2", status: "active" }), at(9))).toBe(true)
    expect(isNewerChange(canceled, snapshot({ id: "sub_2", status: "incomplete" }), at(9))).toBe(false)
  })

  it("paid statuses give the price's tier; ending ones give it until the period ends, then free", () => {
    for (const status of ["trialing", "active", "past_due"] as const) {
      expect(tierOfAccount(holding({ status }, at(0)), "pro", at(90))).toBe("pro")
    }
    for (const status of ["canceled", "unpaid", "incomplete_expired", "paused"] as const) {
      const account = holding({ status, currentPeriodEnd: at(60) }, at(0))
      expect(tierOfAccount(account, "enterprise", at(59))).toBe("enterprise")
      expect(hasEnded(account, at(59))).toBe(false)
      expect(tierOfAccount(account, "enterprise", at(60))).toBe("free")
      expect(hasEnded(account, at(60))).toBe(true)
    }
  })

  it("an end falls back to free whatever the price, once: a settled end leaves the plan alone until the next change", () => {
    const ended = holding({ status: "canceled", priceId: "price_gone", currentPeriodEnd: at(60) }, at(0))
    expect(tierOfAccount(ended, null, at(61))).toBe("free")
    expect(isDueToSettle(ended, at(61))).toBe(true)
    const settled = new BillingAccount({ ...ended, settledAt: at(61) })
    expect(isDueToSettle(settled, at(90))).toBe(false)
    expect(tierOfAccount(settled, "pro", at(90))).toBeUndefined()
    const renewed = applySubscription(settled, snapshot({ id: "sub_2", status: "active" }), at(70), at(70))
    expect(renewed.settledAt).toBeNull()
    expect(tierOfAccount(renewed, "pro", at(90))).toBe("pro")
  })

  it("no subscription, a first payment under way or a price of no plan leave the plan as it is", () => {
    expect(tierOfAccount(emptyBillingAccount(organizationId, at(0)), "pro", at(1))).toBeUndefined()
    expect(tierOfAccount(holding({ status: "incomplete" }, at(0)), "pro", at(1))).toBeUndefined()
    expect(tierOfAccount(holding({ status: "active" }, at(0)), null, at(1))).toBeUndefined()
  })

  it("no change older than the newest applied ever moves a held subscription, in any order of delivery", () => {
    const statuses = BillingStatus.literals.filter((s) => s !== "none")
    fc.assert(fc.property(
      fc.array(fc.record({ status: fc.constantFrom(...statuses), minute: fc.integer({ min: 0, max: 50 }) }), { minLength: 1, maxLength: 12 }),
      (changes) => {
        let account: BillingAccount = emptyBillingAccount(organizationId, at(0))
        for (const change of changes) {
          const s = snapshot({ status: change.status })
          const newest = account.lastChangeAt
          const taken = isNewerChange(account, s, at(change.minute))
          if (newest !== null && at(change.minute) < newest) expect(taken).toBe(false)
          if (taken) account = applySubscription(account, s, at(change.minute), at(change.minute))
        }
      }
    ))
  })
})

describe("what lifts a limit", () => {
  it("names the next plan that allows more, and none above the top", () => {
    expect(tierLifting("subscribers", "free")).toBe("pro")
    expect(tierLifting("emails_per_month", "pro")).toBe("enterprise")
    expect(tierLifting("subscribers", "enterprise")).toBeUndefined()
  })

  it("the limit's error names the limit, what the plan allows and the plan that lifts it", () => {
    const error = new PlanLimitExceeded({ limit: "subscribers", tier: "free", max: 1000 })
    expect(error.upgradeTo).toBe("pro")
    expect(error.message).toBe(
      "the free plan allows 1000 subscribers; the pro plan allows 100000 subscribers: upgrade to pro to add more"
    )
    expect(new PlanLimitExceeded({ limit: "emails_per_month", tier: "pro", max: 1_000_000 }).message)
      .toContain("the enterprise plan allows unlimited emails per month: upgrade to enterprise")
  })
})
