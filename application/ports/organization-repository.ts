import type { Limit, Organization, OrganizationId, OrganizationSlugTaken } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"
import type { OldestFirstQuery } from "./subscriber-repository.js"

export class OrganizationRepository extends Context.Tag("roster/OrganizationRepository")<OrganizationRepository, {
  readonly insert: (organization: Organization) => Effect.Effect<void, OrganizationSlugTaken>
  readonly findById: (id: OrganizationId) => Effect.Effect<Option.Option<Organization>>
  readonly findBySlug: (slug: string) => Effect.Effect<Option.Option<Organization>>
  /** Stores name, tier, platform-admin flag, suspension and updatedAt; the subscriber count is kept. */
  readonly update: (organization: Organization) => Effect.Effect<void>
  /**
   * Deletes the organization with everything it owns: subscribers and their tags, tags, API keys,
   * memberships and its recorded events. Whether it existed.
   */
  readonly delete: (id: OrganizationId) => Effect.Effect<boolean>
  /** Oldest first, after `after` (keyset pages) or past the first `offset` rows (numbered pages). */
  readonly list: (query: OldestFirstQuery) => Effect.Effect<
    ReadonlyArray<Organization>
  >
  readonly count: Effect.Effect<number>
  /**
   * Adds `count` to the organization's subscriber count if the result stays `withinLimit` of `max`,
   * atomically, and whether it did; concurrent reservations never pass the limit together, and
   * a rollback takes the reservation back. Concurrent reservations of one organization do not
   * wait for each other, except near the limit. At most one reservation per transaction.
   */
  readonly reserveSubscriberSlots: (id: OrganizationId, count: number, max: Limit) => Effect.Effect<boolean>
  readonly releaseSubscriberSlots: (id: OrganizationId, count: number) => Effect.Effect<void>
  /** The organization's own time zone (an IANA name; `UTC` until set); None without the organization. */
  readonly timeZoneOf: (id: OrganizationId) => Effect.Effect<Option.Option<string>>
  /** Sets the organization's time zone; whether the organization exists. */
  readonly setTimeZone: (id: OrganizationId, zone: string) => Effect.Effect<boolean>
}>() {}
