import { EmailSettings, effectiveFrom, InvalidInput, planLimits } from "@roster/domain"
import { Effect, Option } from "effect"
import { EmailSettingsRepository } from "./ports/email-settings-repository.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { OutgoingMailConfig } from "./ports/outgoing-mail-config.js"
import { now } from "./support/clock.js"
import { authorize, type Principal } from "./support/principal.js"

/** The organization's sender settings and what comes of them. */
export interface SenderSettingsView {
  readonly fromName: string | null
  readonly fromAddress: string | null
  /** The From header every email of the organization carries. */
  readonly effectiveFrom: string
  /** Whether the plan allows a custom sending domain. */
  readonly canAddCustomDomain: boolean
}

export interface SenderSettingsChanges {
  /** `null` goes back to the organization's name. */
  readonly fromName?: string | null | undefined
  readonly fromAddress?: string | null | undefined
}

/**
 * How the organization's email is sent (owner only, scope `*`): the display name of every From
 * header, on every plan. A sending address of its own needs a verified custom domain, which the
 * service does not offer yet: setting one is refused, naming why.
 */
export class SenderSettings extends Effect.Service<SenderSettings>()("roster/SenderSettings", {
  effect: Effect.gen(function*() {
    const settings = yield* EmailSettingsRepository
    const organizations = yield* OrganizationRepository
    const mail = yield* OutgoingMailConfig

    const viewOf = (principal: Principal, stored: Option.Option<EmailSettings>) =>
      Effect.map(organizations.findById(principal.organization.id), (organization): SenderSettingsView => {
        const current = Option.getOrElse(stored, () => ({ fromName: null, fromAddress: null }))
        return {
          fromName: current.fromName,
          fromAddress: current.fromAddress,
          effectiveFrom: effectiveFrom(
            current,
            Option.match(organization, { onNone: () => "", onSome: (o) => o.name }),
            mail.defaultFrom
          ),
          canAddCustomDomain: planLimits[principal.organization.tier].customSendingDomain
        }
      })

    const get = Effect.fnUntraced(function*(principal: Principal) {
      yield* authorize(principal, "*")
      return yield* viewOf(principal, yield* settings.find(principal.organization.id))
    })

    const update = Effect.fnUntraced(function*(principal: Principal, changes: SenderSettingsChanges) {
      yield* authorize(principal, "*")
      if (changes.fromAddress !== undefined && changes.fromAddress !== null) {
        return yield* new InvalidInput({
          field: "from_address",
          problem: "a sending address of your own needs a verified custom domain; until then email comes from the " +
            "service's address, with your from_name"
        })
      }
      const organizationId = principal.organization.id
      const current = yield* settings.find(organizationId)
      const next = new EmailSettings({
        organizationId,
        fromName: changes.fromName === undefined
          ? Option.match(current, { onNone: () => null, onSome: (s) => s.fromName })
          : changes.fromName,
        fromAddress: null,
        updatedAt: yield* now
      })
      yield* settings.save(next)
      return yield* viewOf(principal, Option.some(next))
    })

    return { get, update } as const
  })
}) {}
