import * as SqlClient from "@effect/sql/SqlClient"
import { ApiKeyRepository, type ApiKeyWithOrganization } from "@roster/application"
import { ApiKey, Organization, OrganizationId } from "@roster/domain"
import { Array, Effect, Layer, Option, Schema } from "effect"
import { apiKeyColumns, organizationSelectList, selectList } from "./columns.js"
import { decodeFirst, decodeRow, decodeRows, jsonb, type Row } from "./rows.js"

const ORGANIZATION = "organization."

const decodeApiKey = decodeRow(ApiKey)
const decodeFirstApiKey = decodeFirst(ApiKey)
const decodeApiKeys = decodeRows(ApiKey)
const decodeOrganization = decodeRow(Organization, ORGANIZATION)
const decodeOwner = decodeFirst(Schema.Struct({ organizationId: OrganizationId }))

const decodeWithOrganization = (row: Row): Effect.Effect<ApiKeyWithOrganization> =>
  Effect.all({ apiKey: decodeApiKey(row), organization: decodeOrganization(row) })

export const PostgresApiKeyRepositoryLive = Layer.effect(
  ApiKeyRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = selectList(sql, apiKeyColumns)

    return ApiKeyRepository.of({
      insert: (apiKey) =>
        sql`
          INSERT INTO api_keys
            (id, organization_id, name, environment, key_hash, prefix, last_four, scopes, created_at, last_used_at, revoked_at)
          VALUES (
            ${apiKey.id}, ${apiKey.organizationId}, ${apiKey.name}, ${apiKey.environment}, ${apiKey.keyHash},
            ${apiKey.prefix}, ${apiKey.lastFour}, ${jsonb(apiKey.scopes)}, ${apiKey.createdAt}, ${apiKey.lastUsedAt},
            ${apiKey.revokedAt}
          )`.pipe(Effect.asVoid, Effect.orDie),

      findById: (organizationId, id) =>
        sql`SELECT ${columns} FROM api_keys WHERE organization_id = ${organizationId} AND id = ${id}`.pipe(
          Effect.flatMap(decodeFirstApiKey),
          Effect.orDie
        ),

      findByHash: (keyHash) =>
        sql`
          SELECT ${selectList(sql, apiKeyColumns, { from: "k" })},
                 ${organizationSelectList(sql, { from: "o", prefix: ORGANIZATION })}
          FROM api_keys k JOIN organizations o ON o.id = k.organization_id
          WHERE k.key_hash = ${keyHash}`.pipe(
          Effect.flatMap((rows) => Effect.transposeMapOption(Array.head(rows), decodeWithOrganization)),
          Effect.orDie
        ),

      listByOrganization: (organizationId) =>
        sql`SELECT ${columns} FROM api_keys WHERE organization_id = ${organizationId} ORDER BY created_at, id`.pipe(
          Effect.flatMap(decodeApiKeys),
          Effect.orDie
        ),

      markUsed: (id, at) =>
        sql`UPDATE api_keys SET last_used_at = ${at} WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      // The organization, environment and creation of a key never change.
      update: (apiKey) =>
        sql`
          UPDATE api_keys SET
            name = ${apiKey.name}, scopes = ${jsonb(apiKey.scopes)}, key_hash = ${apiKey.keyHash},
            prefix = ${apiKey.prefix}, last_four = ${apiKey.lastFour}, last_used_at = ${apiKey.lastUsedAt},
            revoked_at = ${apiKey.revokedAt}
          WHERE organization_id = ${apiKey.organizationId} AND id = ${apiKey.id}`.pipe(Effect.asVoid, Effect.orDie),

      delete: (organizationId, id) =>
        sql`DELETE FROM api_keys WHERE organization_id = ${organizationId} AND id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      organizationOf: (id) =>
        sql`SELECT organization_id FROM api_keys WHERE id = ${id}`.pipe(
          Effect.flatMap(decodeOwner),
          Effect.map(Option.map((row) => row.organizationId)),
          Effect.orDie
        )
    })
  })
)
