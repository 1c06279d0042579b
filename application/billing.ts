import {
  applySubscription,
  BillingAccount,
  type BillingStatus,
  emptyBillingAccount,
  hasEnded,
  InvalidInput,
  isDueToSettle,
  isNewerChange,
  Organization,
  OrganizationId,
  PAID_STATUSES,
  type PlanTier,
  reason,
  type SubscriptionSnapshot,
  tierOfAccount,
  TOP_TIER,
  usageMonth
} from "@roster/domain"
import { Effect, Option, Schema } from "effect"
import { BillingAccountRepository } from "./ports/billing-account-repository.js"
import { EmailUsage } from "./ports/email-usage.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { BillingNotConfigured, BillingSettings, PaymentGateway } from "./ports/payment-gateway.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { now } from "./support/clock.js"
import { authorize, type Principal } from "./support/principal.js"
import { PrincipalCache } from "./support/principal-cache.js"
import { Limits } from "./support/limits.js"
import { operations } from "./support/operation.js"

/** Billing asked for on a deployment without plans (PLAN_LIMITS=off): there is nothing to pay for. */
export class BillingDisabled extends Schema.TaggedError<BillingDisabled>()("BillingDisabled", {}) {
  override get message() {
    return "billing is off on this service: it runs without plans (PLAN_LIMITS=off), so no organization has a " +
      "subscriber, email or rate limit of a plan to pay for"
  }
}

/** A checkout asked for while the organization already pays for a plan: plans change in the customer portal. */
export class SubscriptionAlreadyActive extends Schema.TaggedError<SubscriptionAlreadyActive>()("SubscriptionAlreadyActive", {
  tier: Schema.String,
  status: Schema.String
}) {
  override get message() {
    return `the organization already has a ${this.status} subscription (${this.tier}); change or cancel it in the ` +
      "customer portal (POST /billing/customer-portal)"
  }
}

/** The organization's plan, its limits and what it uses of them (SPEC.md §2, billing subscription). */
export interface BillingView {
  readonly tier: PlanTier
  /** The provider's subscription status; `active` for an organization without a subscription (its plan is granted). */
  readonly status: Exclude<BillingStatus, "none">
  readonly currentPeriodEnd: Date | null
  readonly cancelAtPeriodEnd: boolean
  readonly maxSubscribers: number | null
  readonly maxEmailsPerMonth: number | null
  readonly emailsSentThisMonth: number
  readonly subscriberCount: number
}

export interface CheckoutRequest {
  readonly priceId: string
  readonly successUrl?: string | undefined
  readonly cancelUrl?: string | undefined
}

/** What the payment provider reported, read from its event by the adapter that speaks its format. */
export type PaymentEventReport =
  | {
    readonly kind: "subscription"
    readonly id: string
    readonly createdAt: Date
    readonly subscription: SubscriptionSnapshot
    /** The organization the subscription names in its metadata, if it does. */
    readonly organizationId: string | null
  }
  | {
    readonly kind: "checkout_completed"
    readonly id: string
    readonly createdAt: Date
    readonly customerId: string | null
    readonly subscriptionId: string | null
    /** The checkout's `client_reference_id`: the organization that asked for it. */
    readonly organizationId: string | null
  }
  | { readonly kind: "other"; readonly id: string; readonly type: string }

/**
 * What became of an event: `applied`; `duplicate` (taken before); `stale` (older than what the
 * account holds); `unknown_customer` (of no organization here); `ignored` (a kind not tracked).
 */
export type PaymentEventOutcome = "applied" | "duplicate" | "stale" | "unknown_customer" | "ignored"

const CUSTOMER_KEY_PREFIX = "roster-customer-"

/**
 * Billing (owner only, scope `*`): the plan and its use, hosted checkout and portal pages of the
 * payment provider, and the provider's word on subscriptions, by event or by asking it. The
 * provider's subscription moves the organization's plan: paid statuses give the price's tier, a
 * canceled or unpaid subscription falls back to `free` when the period paid for ends.
 */
export class Billing extends Effect.Service<Billing>()("roster/Billing", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const accounts = yield* BillingAccountRepository
    const organizations = yield* OrganizationRepository
    const usage = yield* EmailUsage
    const gateway = yield* PaymentGateway
    const settings = yield* BillingSettings
    const unitOfWork = yield* UnitOfWork
    const principals = yield* PrincipalCache
    const limits = yield* Limits

    const tierOfPrice = (priceId: string | null): PlanTier | null =>
      priceId === null
        ? null
        : priceId === settings.prices.enterprise
        ? "enterprise"
        : priceId === settings.prices.pro
        ? "pro"
        : null

    /** Every billing action of an owner needs plans; the provider's actions need a provider too. */
    const requirePlans = limits.plans ? Effect.void : Effect.fail(new BillingDisabled())
    const requireProvider = gateway.configured ? Effect.void : Effect.fail(new BillingNotConfigured())
    const requireConfigured = Effect.zipRight(requirePlans, requireProvider)

    const organizationOf = (id: OrganizationId) =>
      Effect.flatMap(organizations.findById(id), Option.match({
        onNone: () => Effect.dieMessage(`organization ${id} is gone`),
        onSome: Effect.succeed
      }))

    /** Moves the organization to the plan its account gives at `at`, if that is another; whether it moved. */
    const moveTier = (account: BillingAccount, at: Date) =>
      Effect.gen(function*() {
        const tier = tierOfAccount(account, tierOfPrice(account.priceId), at)
        if (tier === undefined) return false
        const found = yield* organizations.findById(account.organizationId)
        if (Option.isNone(found) || found.value.tier === tier) return false
        const current = found.value
        yield* organizations.update(
          new Organization({
            ...current,
            tier,
            // A custom rate limit belongs to the top tier; a move below it drops it.
            customRateLimit: tier === TOP_TIER ? current.customRateLimit : null,
            updatedAt: at
          })
        )
        return true
      })

    /** Principals are forgotten once a change of plan is committed, so that none is cached from before it. */
    const forgettingPrincipals = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.tap(effect, () => principals.invalidate)

    /**
     * Applies a subscription to the organization's account, unless it is older than what the
     * account holds (`force`: it is the provider's word now, as a sync reads it).
     */
    const applyTo = (organizationId: OrganizationId, snapshot: SubscriptionSnapshot, changedAt: Date, force: boolean) =>
      Effect.gen(function*() {
        const at = yield* now
        const held = yield* accounts.hold(emptyBillingAccount(organizationId, at))
        if (Option.isNone(held)) return "unknown_customer" as const
        const account = held.value
        if (account.customerId !== null && account.customerId !== snapshot.customerId) return "unknown_customer" as const
        if (!force && !isNewerChange(account, snapshot, changedAt)) return "stale" as const
        const applied = applySubscription(account, snapshot, changedAt, at)
        yield* moveTier(applied, at)
        // An end that moved the plan now is settled: the account leaves the plan alone from then on.
        yield* accounts.save(hasEnded(applied, at) ? new BillingAccount({ ...applied, settledAt: at }) : applied)
        return "applied" as const
      })

    /** The organization a provider's customer belongs to: ours by its id, else the one the event names. */
    const organizationFor = (customerId: string | null, named: string | null) =>
      Effect.gen(function*() {
        if (customerId !== null) {
          const account = yield* accounts.findByCustomer(customerId)
          if (Option.isSome(account)) return Option.some(account.value.organizationId)
        }
        if (named === null || !Schema.is(OrganizationId)(named)) return Option.none<OrganizationId>()
        const organization = yield* organizations.findById(named)
        return Option.map(organization, (o) => o.id)
      })

    /** A change recorded once per event id, in the transaction that applies it. */
    const receiveSubscription = (
      eventId: string,
      createdAt: Date,
      snapshot: SubscriptionSnapshot,
      named: string | null
    ) =>
      forgettingPrincipals(unitOfWork.transaction(Effect.gen(function*() {
        if (!(yield* accounts.recordEvent(eventId, yield* now))) return "duplicate" as const
        const organizationId = yield* organizationFor(snapshot.customerId, named)
        if (Option.isNone(organizationId)) return "unknown_customer" as const
        return yield* applyTo(organizationId.value, snapshot, createdAt, false)
      })))

    /** An event of the provider, verified by the adapter that read it. The same event twice changes nothing twice. */
    const receiveEvent = operation("Billing.receiveEvent")((report: PaymentEventReport) =>
      Effect.gen(function*() {
        switch (report.kind) {
          case "other":
            return "ignored" as PaymentEventOutcome
          case "subscription":
            return yield* receiveSubscription(report.id, report.createdAt, report.subscription, report.organizationId)
          case "checkout_completed": {
            // A checkout names its subscription only: the provider is asked for it (a failure
            // answers the event as not taken, and the provider sends it again).
            if (report.subscriptionId === null) return "ignored" as PaymentEventOutcome
            yield* requireProvider
            const subscription = yield* gateway.retrieveSubscription(report.subscriptionId)
            return yield* receiveSubscription(report.id, report.createdAt, subscription, report.organizationId)
          }
        }
      }))

    /** Falls back to `free` once a subscription that ended has run out its period, once; whether the plan moved. */
    const settle = (organizationId: OrganizationId) =>
      unitOfWork.transaction(Effect.gen(function*() {
        const at = yield* now
        const held = yield* accounts.hold(emptyBillingAccount(organizationId, at))
        if (Option.isNone(held) || !isDueToSettle(held.value, at)) return false
        const moved = yield* moveTier(held.value, at)
        yield* accounts.save(new BillingAccount({ ...held.value, settledAt: at, updatedAt: at }))
        return moved
      }))

    /** Settles up to `limit` organizations whose subscription ended; how many it looked at. */
    const settleEnded = operation("Billing.settleEnded")((limit: number) =>
      Effect.gen(function*() {
        const ended = yield* accounts.listEnded(yield* now, limit)
        let moved = 0
        for (const id of ended) if (yield* settle(id)) moved++
        if (moved > 0) yield* principals.invalidate
        return ended.length
      }))

    const viewOf = (organizationId: OrganizationId) =>
      Effect.gen(function*() {
        const at = yield* now
        const account = yield* accounts.find(organizationId)
        if (Option.isSome(account) && isDueToSettle(account.value, at)) {
          if (yield* settle(organizationId)) yield* principals.invalidate
        }
        const [organization, sent] = yield* Effect.all([
          organizationOf(organizationId),
          usage.sentIn(organizationId, usageMonth(at))
        ], { concurrency: 2 })
        const tier = organization.tier
        const stored = Option.getOrUndefined(account)
        return {
          tier: organization.tier,
          status: stored === undefined || stored.status === "none" ? "active" : stored.status,
          currentPeriodEnd: stored?.currentPeriodEnd ?? null,
          cancelAtPeriodEnd: stored?.cancelAtPeriodEnd ?? false,
          maxSubscribers: limits.subscribers(tier),
          maxEmailsPerMonth: limits.emailsPerMonth(tier),
          emailsSentThisMonth: sent,
          subscriberCount: organization.subscriberCount
        } satisfies BillingView
      })

    const subscription = operation("Billing.subscription")(function*(principal: Principal) {
      yield* authorize(principal, "*")
      yield* requirePlans
      return yield* viewOf(principal.organization.id)
    })

    /**
     * The organization's customer at the provider, made once: the account is held while it is
     * made, so concurrent requests wait and find it, and the provider's idempotency key makes the
     * same customer again should the service stop before it kept the id.
     */
    const customerOf = (organizationId: OrganizationId) =>
      unitOfWork.transaction(Effect.gen(function*() {
        const at = yield* now
        const held = yield* accounts.hold(emptyBillingAccount(organizationId, at))
        if (Option.isNone(held)) return yield* Effect.dieMessage(`organization ${organizationId} is gone`)
        if (held.value.customerId !== null) return held.value.customerId
        const organization = yield* organizationOf(organizationId)
        const customerId = yield* gateway.createCustomer({
          organizationId,
          name: organization.name,
          idempotencyKey: `${CUSTOMER_KEY_PREFIX}${organizationId}`
        })
        yield* accounts.save(new BillingAccount({ ...held.value, customerId, updatedAt: at }))
        return customerId
      }))

    const configuredPrices = () =>
      [["pro", settings.prices.pro], ["enterprise", settings.prices.enterprise]]
        .filter(([, id]) => id !== null)
        .map(([tier, id]) => `${id} (${tier})`)

    /**
     * The plans a checkout may be opened for, each with its configured price, cheapest first;
     * refused where billing is off or the provider is not configured.
     */
    const checkoutPlans = operation("Billing.checkoutPlans")(function*(principal: Principal) {
      yield* authorize(principal, "*")
      yield* requireConfigured
      const plans: Array<{ readonly tier: PlanTier; readonly priceId: string }> = []
      if (settings.prices.pro !== null) plans.push({ tier: "pro", priceId: settings.prices.pro })
      if (settings.prices.enterprise !== null) plans.push({ tier: "enterprise", priceId: settings.prices.enterprise })
      return plans
    })

    /** A hosted checkout page for one of the configured prices; its URL. */
    const createCheckoutSession = operation("Billing.createCheckoutSession")(function*(principal: Principal, request: CheckoutRequest) {
      yield* authorize(principal, "*")
      yield* requireConfigured
      if (tierOfPrice(request.priceId) === null) {
        const known = configuredPrices()
        return yield* new InvalidInput({
          field: "price_id",
          reason: known.length === 0 ? reason("noPriceConfigured") : reason("unknownPrice", { prices: known.join(", ") })
        })
      }
      const organizationId = principal.organization.id
      const account = yield* accounts.find(organizationId)
      if (Option.isSome(account) && account.value.subscriptionId !== null && PAID_STATUSES.has(account.value.status)) {
        return yield* new SubscriptionAlreadyActive({
          tier: tierOfPrice(account.value.priceId) ?? principal.organization.tier,
          status: account.value.status
        })
      }
      const customerId = yield* customerOf(organizationId)
      const checkoutUrl = yield* gateway.createCheckoutSession({
        organizationId,
        customerId,
        priceId: request.priceId,
        successUrl: request.successUrl ?? settings.returnUrl,
        cancelUrl: request.cancelUrl ?? settings.returnUrl
      })
      return { checkoutUrl }
    })

    /** A hosted page where the owner manages the subscription and payment methods; its URL. */
    const customerPortal = operation("Billing.customerPortal")(function*(principal: Principal, returnUrl?: string) {
      yield* authorize(principal, "*")
      yield* requireConfigured
      const customerId = yield* customerOf(principal.organization.id)
      return { portalUrl: yield* gateway.createPortalSession(customerId, returnUrl ?? settings.returnUrl) }
    })

    /**
     * Reads the organization's subscription from the provider and applies it as the provider's
     * word now: a paid one if there is one, else the newest.
     */
    const syncSubscription = operation("Billing.syncSubscription")(function*(principal: Principal) {
      yield* authorize(principal, "*")
      yield* requireConfigured
      const organizationId = principal.organization.id
      const account = yield* accounts.find(organizationId)
      const customerId = Option.isSome(account) ? account.value.customerId : null
      if (customerId !== null) {
        const listed = yield* gateway.listSubscriptions(customerId)
        const current = listed.find((s) => PAID_STATUSES.has(s.status)) ?? listed[0]
        if (current !== undefined) {
          const at = yield* now
          yield* forgettingPrincipals(unitOfWork.transaction(applyTo(organizationId, current, at, true)))
        }
      }
      return yield* viewOf(organizationId)
    })

    return { subscription, checkoutPlans, createCheckoutSession, customerPortal, syncSubscription, receiveEvent, settleEnded } as const
  }),
  dependencies: [PrincipalCache.Default]
}) {}
