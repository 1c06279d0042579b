import type { Organization, OrganizationId, OrganizationSlugTaken } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

export class OrganizationRepository extends Context.Tag("roster/OrganizationRepository")<OrganizationRepository, {
  readonly insert: (organization: Organization) => Effect.Effect<void, OrganizationSlugTaken>
  readonly findById: (id: OrganizationId) => Effect.Effect<Option.Option<Organization>>
  readonly findBySlug: (slug: string) => Effect.Effect<Option.Option<Organization>>
  /**
   * Adds `count` to the organization's subscriber count if the result stays within `max`
   * (`null`: no maximum), atomically and holding the organization until the transaction ends.
   * Whether the slots were reserved.
   */
  readonly reserveSubscriberSlots: (id: OrganizationId, count: number, max: number | null) => Effect.Effect<boolean>
  readonly releaseSubscriberSlots: (id: OrganizationId, count: number) => Effect.Effect<void>
}>() {}
