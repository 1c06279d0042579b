import { customRateLimitReason, InvalidInput, Organization, type PlanTier, TOP_TIER } from "@roster/domain"
import { Effect } from "effect"

export interface OrganizationChanges {
  readonly name?: string | undefined
  readonly tier?: PlanTier | undefined
  readonly isPlatformAdmin?: boolean | undefined
  readonly suspended?: boolean | undefined
  /** Requests per minute instead of the plan's (top tier only), `0` for none, `null` back to the plan's. */
  readonly customRateLimit?: number | null | undefined
}

/**
 * The organization with the changes made at `at`: a move below the top tier drops a custom limit
 * that was set, and setting one needs the top tier.
 */
export const changeOrganization = (
  current: Organization,
  changes: OrganizationChanges,
  at: Date
): Effect.Effect<Organization, InvalidInput> => {
  const suspendedAt = changes.suspended === undefined
    ? current.suspendedAt
    : changes.suspended
    ? current.suspendedAt ?? at
    : null
  const tier = changes.tier ?? current.tier
  const customRateLimit = changes.customRateLimit !== undefined
    ? changes.customRateLimit
    : tier === TOP_TIER
    ? current.customRateLimit
    : null
  const problem = customRateLimitReason(tier, customRateLimit)
  if (problem !== undefined) return Effect.fail(new InvalidInput({ field: "custom_rate_limit", reason: problem }))
  return Effect.succeed(
    new Organization({
      ...current,
      name: changes.name ?? current.name,
      tier,
      customRateLimit,
      isPlatformAdmin: changes.isPlatformAdmin ?? current.isPlatformAdmin,
      suspendedAt,
      updatedAt: at
    })
  )
}
