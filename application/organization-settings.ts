import { DEFAULT_TIME_ZONE, InvalidInput, isTimeZone, reason } from "@roster/domain"
import { Effect, Option } from "effect"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { operations } from "./support/operation.js"
import { authorize, type Principal } from "./support/principal.js"

/** The organization's own settings, beside its email settings. */
export interface OrganizationSettingsView {
  /** The IANA time zone the organization works in: what a sequence made without a zone of its own waits in. */
  readonly timeZone: string
}

/** What an update sets; a field left out stays. */
export interface OrganizationSettingsChanges {
  readonly timeZone?: string | undefined
}

/** Reading and changing the organization's own settings: the owner's (scope `*`). */
export class OrganizationSettings extends Effect.Service<OrganizationSettings>()("roster/OrganizationSettings", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const organizations = yield* OrganizationRepository

    const current = (principal: Principal) =>
      Effect.map(
        organizations.timeZoneOf(principal.organization.id),
        (zone): OrganizationSettingsView => ({ timeZone: Option.getOrElse(zone, () => DEFAULT_TIME_ZONE) })
      )

    const get = operation("OrganizationSettings.get")(function*(principal: Principal) {
      yield* authorize(principal, "*")
      return yield* current(principal)
    })

    const update = operation("OrganizationSettings.update")(function*(principal: Principal, changes: OrganizationSettingsChanges) {
      yield* authorize(principal, "*")
      if (changes.timeZone !== undefined) {
        if (!isTimeZone(changes.timeZone)) return yield* new InvalidInput({ field: "time_zone", reason: reason("unknownTimeZone") })
        yield* organizations.setTimeZone(principal.organization.id, changes.timeZone)
      }
      return yield* current(principal)
    })

    return { get, update } as const
  })
}) {}
