import type { OrganizationId, SendingDomain, SendingDomainExists, SendingDomainTaken } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

/** Custom sending domains: at most one per organization, and each domain with one organization. */
export class SendingDomainRepository extends Context.Tag("roster/SendingDomainRepository")<SendingDomainRepository, {
  /** The organization's domain, if it has one. */
  readonly find: (organizationId: OrganizationId) => Effect.Effect<Option.Option<SendingDomain>>
  /** The organization that added `name` (lower case), if one did. */
  readonly ownerOf: (name: string) => Effect.Effect<Option.Option<OrganizationId>>
  /**
   * Stores a new domain. Another organization's claim on the name is a `SendingDomainTaken`, a
   * domain the organization has already a `SendingDomainExists`.
   */
  readonly insert: (domain: SendingDomain) => Effect.Effect<void, SendingDomainTaken | SendingDomainExists>
  /**
   * Stores what a check found (status, records, check times) on the domain of the same
   * organization and provider id; `false` when it was deleted (or replaced) meanwhile.
   */
  readonly update: (domain: SendingDomain) => Effect.Effect<boolean>
  /** Deletes the organization's domain; what was deleted, if anything. */
  readonly delete: (organizationId: OrganizationId) => Effect.Effect<Option.Option<SendingDomain>>
  /**
   * Up to `limit` pending domains whose next check is due at `at`, oldest due first, each held
   * until `leaseUntil` (its next check moves there) so that no other worker checks it meanwhile.
   */
  readonly claimDueChecks: (limit: number, at: Date, leaseUntil: Date) => Effect.Effect<ReadonlyArray<SendingDomain>>
}>() {}
