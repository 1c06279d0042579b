import {
  type EmailSettings,
  effectiveFrom,
  mailboxAddress,
  type OrganizationId,
  type PlanTier,
  type SendingDomain,
  senderAddressInUse
} from "@roster/domain"
import { Effect, Option } from "effect"
import { OutgoingMailConfig } from "../ports/outgoing-mail-config.js"
import { SendingDomainRepository } from "../ports/sending-domain-repository.js"
import { Limits } from "./limits.js"

/** What an organization set about its sender, or nothing yet. */
export const currentSettings = (stored: Option.Option<EmailSettings>) =>
  Option.getOrElse(stored, () => ({ fromName: null, fromAddress: null }) as const)

/**
 * The From header of an organization's email, as every send makes it (single sends, triggers,
 * campaigns): its display name, and its own address while its custom domain is verified (and its
 * plan allows one), else the service's default address. The domain is looked up only for an
 * organization that set an address of its own.
 */
export const makeSenderOf = Effect.gen(function*() {
  const domains = yield* SendingDomainRepository
  const mail = yield* OutgoingMailConfig
  const limits = yield* Limits
  const defaultAddress = mailboxAddress(mail.defaultFrom)

  /** The From header, given the organization's domain (as far as it matters). */
  const fromWith = (
    tier: PlanTier,
    stored: Option.Option<EmailSettings>,
    organizationName: string,
    domain: SendingDomain | null
  ): string => {
    const settings = currentSettings(stored)
    const fromAddress = senderAddressInUse(settings.fromAddress, {
      customSendingDomain: limits.customSendingDomain(tier),
      domain,
      defaultAddress
    })
    return effectiveFrom({ fromName: settings.fromName, fromAddress }, organizationName, mail.defaultFrom)
  }

  const senderOf = (
    organization: { readonly id: OrganizationId; readonly tier: PlanTier },
    stored: Option.Option<EmailSettings>,
    organizationName: string
  ): Effect.Effect<string> => {
    const address = currentSettings(stored).fromAddress
    const domainMatters = address !== null && address.toLowerCase() !== defaultAddress.toLowerCase() &&
      limits.customSendingDomain(organization.tier)
    return domainMatters
      ? Effect.map(
        domains.find(organization.id),
        (domain) => fromWith(organization.tier, stored, organizationName, Option.getOrNull(domain))
      )
      : Effect.succeed(fromWith(organization.tier, stored, organizationName, null))
  }

  return { senderOf, fromWith, defaultAddress } as const
})
