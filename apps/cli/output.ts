import type { ApiKey, Organization } from "@roster/domain"

export const organizationJson = (organization: Organization) => ({
  id: organization.id,
  name: organization.name,
  slug: organization.slug,
  tier: organization.tier,
  is_platform_admin: organization.isPlatformAdmin,
  rate_limit_per_minute: organization.requestsPerMinute,
  created_at: organization.createdAt.toISOString()
})

export const apiKeyJson = (apiKey: ApiKey, key: string, organization: Organization) => ({
  id: apiKey.id,
  organization: { id: organization.id, slug: organization.slug },
  name: apiKey.name,
  key,
  environment: apiKey.environment,
  scopes: apiKey.scopes,
  created_at: apiKey.createdAt.toISOString()
})
