import type { ApiKey, ApiKeyId, Organization, OrganizationId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

export interface ApiKeyWithOrganization {
  readonly apiKey: ApiKey
  readonly organization: Organization
}

export class ApiKeyRepository extends Context.Tag("roster/ApiKeyRepository")<ApiKeyRepository, {
  readonly insert: (apiKey: ApiKey) => Effect.Effect<void>
  readonly findById: (organizationId: OrganizationId, id: ApiKeyId) => Effect.Effect<Option.Option<ApiKey>>
  /** The key with this hash and its organization, revoked or not. */
  readonly findByHash: (keyHash: string) => Effect.Effect<Option.Option<ApiKeyWithOrganization>>
  readonly listByOrganization: (organizationId: OrganizationId) => Effect.Effect<ReadonlyArray<ApiKey>>
  readonly markUsed: (id: ApiKeyId, at: Date) => Effect.Effect<void>
  /** Stores the key's name, scopes, secret hash, hint and revocation as given. */
  readonly update: (apiKey: ApiKey) => Effect.Effect<void>
  /** Whether a key was deleted. */
  readonly delete: (organizationId: OrganizationId, id: ApiKeyId) => Effect.Effect<boolean>
  /** The organization a key id belongs to, whichever it is. */
  readonly organizationOf: (id: ApiKeyId) => Effect.Effect<Option.Option<OrganizationId>>
}>() {}
