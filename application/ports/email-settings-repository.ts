import type { EmailSettings, OrganizationId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

export class EmailSettingsRepository extends Context.Tag("roster/EmailSettingsRepository")<EmailSettingsRepository, {
  /** The organization's settings; `None` while it never changed them. */
  readonly find: (organizationId: OrganizationId) => Effect.Effect<Option.Option<EmailSettings>>
  /** Stores the settings, replacing any earlier ones. */
  readonly save: (settings: EmailSettings) => Effect.Effect<void>
}>() {}
