import type { Membership, Organization, OrganizationId, Role, User, UserId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

export class MembershipRepository extends Context.Tag("roster/MembershipRepository")<MembershipRepository, {
  /** Adds the membership, or changes the role of an existing one. */
  readonly upsert: (membership: Membership) => Effect.Effect<void>
  readonly find: (organizationId: OrganizationId, userId: UserId) => Effect.Effect<Option.Option<Membership>>
  /** The user's organizations, oldest membership first. */
  readonly listForUser: (
    userId: UserId
  ) => Effect.Effect<ReadonlyArray<{ readonly membership: Membership; readonly organization: Organization }>>
  /** The organization's members, oldest first. */
  readonly listForOrganization: (
    organizationId: OrganizationId
  ) => Effect.Effect<ReadonlyArray<{ readonly membership: Membership; readonly user: User }>>
  /** Whether a membership was removed. */
  readonly remove: (organizationId: OrganizationId, userId: UserId) => Effect.Effect<boolean>
  /**
   * The user ids of the organization's owners, their memberships held until the caller's
   * transaction ends: a concurrent holder waits, then sees what this one changed, so that two
   * changes made at once never leave an organization without an owner. Inside a transaction only.
   */
  readonly holdOwners: (organizationId: OrganizationId) => Effect.Effect<ReadonlyArray<UserId>>
  readonly countWithRole: (organizationId: OrganizationId, role: Role) => Effect.Effect<number>
  /** How many members each of these organizations has; organizations without members are absent. */
  readonly countMembers: (organizationIds: ReadonlyArray<OrganizationId>) => Effect.Effect<ReadonlyMap<OrganizationId, number>>
  /** The memberships of each of these users with their organizations, oldest first; users without any are absent. */
  readonly listForUsers: (
    userIds: ReadonlyArray<UserId>
  ) => Effect.Effect<
    ReadonlyMap<UserId, ReadonlyArray<{ readonly membership: Membership; readonly organization: Organization }>>
  >
}>() {}
