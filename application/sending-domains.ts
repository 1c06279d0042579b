import {
  domainOfAddress,
  EmailSettings,
  InvalidInput,
  isWithinDomain,
  mailboxAddress,
  nextCheckDelayMs,
  NoSendingDomain,
  normalizeDomain,
  PlanFeatureUnavailable,
  SendingDomain,
  type SendingDomainStatus,
  SendingDomainExists,
  SendingDomainTaken,
  reason,
  sendingDomainReason,
  TOP_TIER
} from "@roster/domain"
import { Duration, Effect, Option, Schedule } from "effect"
import { DomainVerifier, type ProviderDomain } from "./ports/domain-verifier.js"
import { EmailSettingsRepository } from "./ports/email-settings-repository.js"
import { OutgoingMailConfig } from "./ports/outgoing-mail-config.js"
import { SendingDomainRepository } from "./ports/sending-domain-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { now } from "./support/clock.js"
import { Limits } from "./support/limits.js"
import { authorize, type Principal } from "./support/principal.js"
import { operations } from "./support/operation.js"

export interface AddSendingDomain {
  readonly domain: string
}

/** How long a worker holds a domain it checks: another worker checks it after this at the earliest. */
const CHECK_LEASE = Duration.minutes(5)

/** The first check of a new domain by the worker, if its owner does not check first. */
const FIRST_CHECK = Duration.minutes(1)

/** Hosts the service itself sends from or is reached at: never a tenant's sending domain. */
const ownDomainsOf = (publicBaseUrl: string, defaultFrom: string): ReadonlyArray<string> => {
  const hosts = [domainOfAddress(mailboxAddress(defaultFrom))]
  if (URL.canParse(publicBaseUrl)) hosts.push(normalizeDomain(new URL(publicBaseUrl).hostname))
  return hosts.filter((host) => host !== "")
}

/**
 * An organization's custom sending domain (owner only, scope `*`, top plan only): registered with
 * the email provider, which answers the DNS records to add; checked with the provider when its
 * owner asks and by the worker while it is pending; removed at the provider and here.
 *
 * Nothing is left half done: a domain is stored only once the provider has it, and one the
 * provider has but that could not be stored is removed there again.
 */
export class SendingDomains extends Effect.Service<SendingDomains>()("roster/SendingDomains", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const domains = yield* SendingDomainRepository
    const verifier = yield* DomainVerifier
    const settings = yield* EmailSettingsRepository
    const unitOfWork = yield* UnitOfWork
    const mail = yield* OutgoingMailConfig
    const limits = yield* Limits
    const ownDomains = ownDomainsOf(mail.publicBaseUrl, mail.defaultFrom)

    /** The name asked for, checked: a host name, and none of the service's own. */
    const nameOf = (input: AddSendingDomain) => {
      const name = normalizeDomain(input.domain)
      const problem = sendingDomainReason(name)
      if (problem !== undefined) return Effect.fail(new InvalidInput({ field: "domain", reason: problem }))
      const own = ownDomains.find((host) => isWithinDomain(name, host))
      return own === undefined
        ? Effect.succeed(name)
        : Effect.fail(new InvalidInput({ field: "domain", reason: reason("domainOfService", { domain: own }) }))
    }

    /** A domain the provider has but that is not stored is removed there, tried a few times. */
    const forget = (providerId: string) =>
      verifier.remove(providerId).pipe(
        Effect.retry(Schedule.exponential(Duration.millis(200)).pipe(Schedule.intersect(Schedule.recurs(3)))),
        Effect.catchAll((error) =>
          Effect.logError(`the domain ${providerId} could not be removed at the email provider; remove it there`, error.reason)
        )
      )

    const add = operation("SendingDomains.add")(function*(principal: Principal, input: AddSendingDomain) {
      yield* authorize(principal, "*")
      const { id: organizationId, tier } = principal.organization
      if (!limits.customSendingDomain(tier)) {
        return yield* new PlanFeatureUnavailable({ feature: "a custom sending domain", tier, requiredTier: TOP_TIER })
      }
      const name = yield* nameOf(input)
      const existing = yield* domains.find(organizationId)
      if (Option.isSome(existing)) return yield* new SendingDomainExists({ domain: existing.value.name })
      const claimedBy = (found: Option.Option<string>) => Option.isSome(found) && found.value !== organizationId
      if (claimedBy(yield* domains.ownerOf(name))) return yield* new SendingDomainTaken({ domain: name })

      const domain = yield* Effect.uninterruptible(Effect.gen(function*() {
        const registered = yield* verifier.register(name).pipe(
          Effect.catchTag("DomainRefused", (refused) =>
            // Another organization may have claimed it while the provider was asked.
            Effect.flatMap(domains.ownerOf(name), (owner): Effect.Effect<never, SendingDomainTaken | InvalidInput> =>
              claimedBy(owner)
                ? Effect.fail(new SendingDomainTaken({ domain: name }))
                : Effect.fail(new InvalidInput({ field: "domain", reason: reason("domainProviderRefused", { reason: refused.reason }) }))))
        )
        const at = yield* now
        const stored = new SendingDomain({
          organizationId,
          name,
          providerId: registered.id,
          status: "pending",
          records: registered.records,
          createdAt: at,
          updatedAt: at,
          checkedAt: null,
          verifiedAt: null,
          nextCheckAt: new Date(at.getTime() + Duration.toMillis(FIRST_CHECK))
        })
        yield* domains.insert(stored).pipe(Effect.onError(() => forget(registered.id)))
        return stored
      }))
      // The provider looks for the records from now on; should it not be told, the first check tells it.
      yield* verifier.verify(domain.providerId).pipe(
        Effect.catchAll((error) => Effect.logWarning("the email provider was not asked to verify a new domain yet", error))
      )
      return domain
    })

    /**
     * Asks the provider where the domain stands and stores it. A provider that has not started
     * looking is asked to; with `restart`, so is one that gave up (the owner fixed the records).
     */
    const refresh = (domain: SendingDomain, options: { readonly restart: boolean }) =>
      Effect.gen(function*() {
        const at = yield* now
        const known: Option.Option<ProviderDomain> = yield* verifier.status(domain.providerId).pipe(
          Effect.map(Option.some),
          Effect.catchTag("DomainNotAtProvider", () => Effect.succeedNone)
        )
        let status: SendingDomainStatus
        const found = Option.getOrNull(known)
        if (found === null) {
          status = "failed"
        } else if (found.status === "not_started" || (options.restart && found.status === "failed")) {
          const asked = yield* verifier.verify(domain.providerId).pipe(
            Effect.as(true),
            Effect.catchTag("DomainNotAtProvider", () => Effect.succeed(false))
          )
          status = asked ? "pending" : "failed"
        } else {
          status = found.status === "verified" ? "verified" : found.status === "failed" ? "failed" : "pending"
        }
        const checked = new SendingDomain({
          ...domain,
          status,
          records: found === null || found.records.length === 0 ? domain.records : found.records,
          updatedAt: at,
          checkedAt: at,
          verifiedAt: status === "verified" ? domain.verifiedAt ?? at : null,
          nextCheckAt: status === "pending" ? new Date(at.getTime() + nextCheckDelayMs(domain.createdAt, at)) : null
        })
        const stored = yield* domains.update(checked)
        return stored ? Option.some(checked) : Option.none()
      })

    /** The domain as the provider sees it now; a domain given up on is looked for again. */
    const check = operation("SendingDomains.check")(function*(principal: Principal) {
      yield* authorize(principal, "*")
      const domain = yield* domains.find(principal.organization.id)
      if (Option.isNone(domain)) return yield* new NoSendingDomain()
      const checked = yield* refresh(domain.value, { restart: true })
      if (Option.isNone(checked)) return yield* new NoSendingDomain()
      return checked.value
    })

    /**
     * Removes the domain at the provider, then here; a sending address on it goes back to the
     * default. While the provider cannot be reached nothing changes.
     */
    const remove = operation("SendingDomains.remove")(function*(principal: Principal) {
      yield* authorize(principal, "*")
      const organizationId = principal.organization.id
      const domain = yield* domains.find(organizationId)
      if (Option.isNone(domain)) return yield* new NoSendingDomain()
      yield* verifier.remove(domain.value.providerId)
      yield* unitOfWork.transaction(Effect.gen(function*() {
        const deleted = yield* domains.delete(organizationId)
        const current = yield* settings.find(organizationId)
        if (Option.isNone(deleted) || Option.isNone(current) || current.value.fromAddress === null) return
        if (domainOfAddress(current.value.fromAddress) !== deleted.value.name) return
        yield* settings.save(new EmailSettings({ ...current.value, fromAddress: null, updatedAt: yield* now }))
      }))
    })

    /**
     * The worker's side: up to `limit` pending domains whose check is due are checked with the
     * provider, one after another; how many were. A domain the provider could not be asked about
     * is asked again once its lease runs out.
     */
    const recheckDue = operation("SendingDomains.recheckDue")((limit: number): Effect.Effect<number> =>
      Effect.gen(function*() {
        const at = yield* now
        const due = yield* domains.claimDueChecks(limit, at, new Date(at.getTime() + Duration.toMillis(CHECK_LEASE)))
        yield* Effect.forEach(due, (domain) =>
          refresh(domain, { restart: false }).pipe(
            Effect.catchTag("DomainProviderUnavailable", (error) =>
              Effect.logWarning(`the email provider could not be asked about the domain ${domain.name}; it is asked again later`, error.reason))
          ), { discard: true })
        return due.length
      }))

    return { add, check, remove, recheckDue } as const
  })
}) {}

