import type { OrganizationOverview } from "@roster/application"
import type { ApiKey, Organization } from "@roster/domain"

/** What the CLI prints, as JSON with snake_case fields like the API's. */

const instant = (at: Date | null) => (at === null ? null : at.toISOString())

export const organizationJson = (organization: Organization, requestsPerMinute: number | null) => ({
  id: organization.id,
  name: organization.name,
  slug: organization.slug,
  tier: organization.tier,
  is_platform_admin: organization.isPlatformAdmin,
  suspended: organization.isSuspended,
  suspended_at: instant(organization.suspendedAt),
  rate_limit_per_minute: requestsPerMinute,
  custom_rate_limit: organization.customRateLimit,
  subscriber_count: organization.subscriberCount,
  created_at: organization.createdAt.toISOString(),
  updated_at: organization.updatedAt.toISOString()
})

export const organizationOverviewJson = ({ memberCount, organization, requestsPerMinute }: OrganizationOverview) => ({
  ...organizationJson(organization, requestsPerMinute),
  member_count: memberCount
})

/** A key's record: never its secret nor its hash. */
export const apiKeyRecordJson = (apiKey: ApiKey, organization: Organization) => ({
  id: apiKey.id,
  organization: { id: organization.id, slug: organization.slug },
  name: apiKey.name,
  prefix: apiKey.prefix,
  last_four: apiKey.lastFour,
  environment: apiKey.environment,
  scopes: apiKey.scopes,
  created_at: apiKey.createdAt.toISOString(),
  last_used_at: instant(apiKey.lastUsedAt),
  revoked_at: instant(apiKey.revokedAt)
})

/** A key as made or rotated, with the full key, which is shown this once. */
export const apiKeyJson = (apiKey: ApiKey, key: string, organization: Organization) => ({
  ...apiKeyRecordJson(apiKey, organization),
  key
})
