import type { DnsRecord } from "@roster/domain"
import { Context, type Effect, Schema } from "effect"

/**
 * Where a domain stands at the email provider: checking not asked for yet (`not_started`), its
 * DNS records being looked for (`pending`), found (`verified`), or given up on (`failed`).
 */
export type ProviderDomainStatus = "not_started" | "pending" | "verified" | "failed"

/** A domain as the email provider knows it. */
export interface ProviderDomain {
  readonly id: string
  readonly name: string
  readonly status: ProviderDomainStatus
  readonly records: ReadonlyArray<DnsRecord>
}

/** The provider refused the domain itself (its name is not one it accepts, say); `reason` is its words. */
export class DomainRefused extends Schema.TaggedError<DomainRefused>()("DomainRefused", {
  reason: Schema.String
}) {
  override get message() {
    return `the email provider refused the domain: ${this.reason}`
  }
}

/**
 * The provider could not be used just now: unreachable, failing, limiting the rate of calls, or
 * refusing the service's own credentials. Nothing was changed.
 */
export class DomainProviderUnavailable extends Schema.TaggedError<DomainProviderUnavailable>()(
  "DomainProviderUnavailable",
  {
    reason: Schema.String,
    /** How long the provider asked to wait, if it said. */
    retryAfterMs: Schema.NullOr(Schema.Number)
  }
) {
  override get message() {
    return `the email provider cannot be reached at the moment (${this.reason}); nothing was changed, try again shortly`
  }
}

/** The provider knows no domain of this id (it was removed there). */
export class DomainNotAtProvider extends Schema.TaggedError<DomainNotAtProvider>()("DomainNotAtProvider", {
  id: Schema.String
}) {}

/** The email provider's domains: registering a sending domain, and verifying it through its DNS records. */
export class DomainVerifier extends Context.Tag("roster/DomainVerifier")<DomainVerifier, {
  /** Registers the domain; the DNS records its owner must add come back with it. */
  readonly register: (name: string) => Effect.Effect<ProviderDomain, DomainRefused | DomainProviderUnavailable>
  /** Where the domain stands, with each record's own status. */
  readonly status: (id: string) => Effect.Effect<ProviderDomain, DomainNotAtProvider | DomainProviderUnavailable>
  /** Asks the provider to look for the DNS records (again); it answers at once and looks meanwhile. */
  readonly verify: (id: string) => Effect.Effect<void, DomainNotAtProvider | DomainProviderUnavailable>
  /** Removes the domain; one the provider does not know is removed already. */
  readonly remove: (id: string) => Effect.Effect<void, DomainProviderUnavailable>
}>() {}
