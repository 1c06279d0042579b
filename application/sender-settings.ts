import {
  domainOfAddress,
  emailAddressReason,
  EmailSettings,
  InvalidInput,
  reason,
  senderAddressInUse,
  type SendingDomain,
  TOP_TIER
} from "@roster/domain"
import { Effect, Option } from "effect"
import { EmailSettingsRepository } from "./ports/email-settings-repository.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { SendingDomainRepository } from "./ports/sending-domain-repository.js"
import { now } from "./support/clock.js"
import { Limits } from "./support/limits.js"
import { authorize, type Principal } from "./support/principal.js"
import { currentSettings, makeSenderOf } from "./support/sender.js"
import { operations } from "./support/operation.js"

/** The organization's sender settings and what comes of them. */
export interface SenderSettingsView {
  readonly fromName: string | null
  readonly fromAddress: string | null
  /** The From header every email of the organization carries. */
  readonly effectiveFrom: string
  /** Whether the From header carries the organization's own address on its verified custom domain. */
  readonly isCustomDomain: boolean
  /** The organization's custom sending domain, whatever its status, if it has one. */
  readonly customDomain: SendingDomain | null
  /** Whether the plan allows a custom sending domain. */
  readonly canAddCustomDomain: boolean
}

export interface SenderSettingsChanges {
  /** `null` goes back to the organization's name. */
  readonly fromName?: string | null | undefined
  /** `null` goes back to the service's address. */
  readonly fromAddress?: string | null | undefined
}

/**
 * How the organization's email is sent (owner only, scope `*`): the display name of every From
 * header, on every plan; and on the top plan, once its custom domain is verified, an address of
 * its own on that domain. The service's default address may always be named.
 */
export class SenderSettings extends Effect.Service<SenderSettings>()("roster/SenderSettings", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const settings = yield* EmailSettingsRepository
    const organizations = yield* OrganizationRepository
    const domains = yield* SendingDomainRepository
    const sender = yield* makeSenderOf
    const limits = yield* Limits

    const viewOf = (principal: Principal, stored: Option.Option<EmailSettings>, domain: Option.Option<SendingDomain>) =>
      Effect.map(organizations.findById(principal.organization.id), (organization): SenderSettingsView => {
        const current = currentSettings(stored)
        const { tier } = principal.organization
        const customDomain = Option.getOrNull(domain)
        const effectiveFrom = sender.fromWith(
          tier,
          stored,
          Option.match(organization, { onNone: () => "", onSome: (o) => o.name }),
          customDomain
        )
        const inUse = senderAddressInUse(current.fromAddress, {
          customSendingDomain: limits.customSendingDomain(tier),
          domain: customDomain,
          defaultAddress: sender.defaultAddress
        })
        return {
          fromName: current.fromName,
          fromAddress: current.fromAddress,
          effectiveFrom,
          isCustomDomain: inUse !== null && customDomain !== null && domainOfAddress(inUse) === customDomain.name,
          customDomain,
          canAddCustomDomain: limits.customSendingDomain(tier)
        }
      })

    const get = operation("SenderSettings.get")(function*(principal: Principal) {
      yield* authorize(principal, "*")
      const organizationId = principal.organization.id
      const [stored, domain] = yield* Effect.all([settings.find(organizationId), domains.find(organizationId)], {
        concurrency: 2
      })
      return yield* viewOf(principal, stored, domain)
    })

    /** Why the organization may not send from `address` now, if it may not. */
    const addressProblem = (principal: Principal, address: string, domain: Option.Option<SendingDomain>) => {
      const problem = emailAddressReason(address)
      if (problem !== undefined) return reason("senderAddress", { inner: problem })
      if (address.toLowerCase() === sender.defaultAddress.toLowerCase()) return undefined
      if (!limits.customSendingDomain(principal.organization.tier)) {
        return reason("senderNeedsPlan", { tier: TOP_TIER, defaultAddress: sender.defaultAddress })
      }
      if (Option.isNone(domain)) {
        return reason("senderNeedsDomain")
      }
      if (domainOfAddress(address) !== domain.value.name) {
        return reason("senderOffDomain", { domain: domain.value.name })
      }
      if (domain.value.status !== "verified") {
        return reason("senderDomainUnverified", { domain: domain.value.name, status: domain.value.status })
      }
      return undefined
    }

    const update = operation("SenderSettings.update")(function*(principal: Principal, changes: SenderSettingsChanges) {
      yield* authorize(principal, "*")
      const organizationId = principal.organization.id
      const [current, domain] = yield* Effect.all([settings.find(organizationId), domains.find(organizationId)], {
        concurrency: 2
      })
      const fromAddress = changes.fromAddress === undefined
        ? currentSettings(current).fromAddress
        : changes.fromAddress === null
        ? null
        : changes.fromAddress.trim()
      if (changes.fromAddress !== undefined && fromAddress !== null) {
        const problem = addressProblem(principal, fromAddress, domain)
        if (problem !== undefined) return yield* new InvalidInput({ field: "from_address", reason: problem })
      }
      const next = new EmailSettings({
        organizationId,
        fromName: changes.fromName === undefined ? currentSettings(current).fromName : changes.fromName,
        fromAddress,
        updatedAt: yield* now
      })
      yield* settings.save(next)
      return yield* viewOf(principal, Option.some(next), domain)
    })

    return { get, update } as const
  })
}) {}
