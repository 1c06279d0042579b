import * as SqlClient from "@effect/sql/SqlClient"
import { WebhookEndpointRepository } from "@roster/application"
import { OrganizationId, WebhookEndpoint } from "@roster/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { selectList } from "./columns.js"
import { decodeCount, decodeFirst, decodeRows } from "./rows.js"

/** The columns a {@link WebhookEndpoint} is read from. */
export const webhookEndpointColumns = [
  "id", "organization_id", "url", "events", "description", "status", "disabled_reason", "signing_secret",
  "previous_signing_secret", "previous_signing_secret_expires_at", "failing_since", "created_at", "updated_at"
] as const

const decodeEndpoint = decodeFirst(WebhookEndpoint)
const decodeEndpoints = decodeRows(WebhookEndpoint)
const decodeOwner = decodeFirst(Schema.Struct({ organizationId: OrganizationId }))
const decodeFailingSince = decodeFirst(Schema.Struct({ failingSince: Schema.DateFromSelf }))

/**
 * Endpoints, with their deliveries and attempts below them by cascade. The event kinds are a
 * text[] column, sent as one array parameter.
 */
export const PostgresWebhookEndpointRepositoryLive = Layer.effect(
  WebhookEndpointRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = selectList(sql, webhookEndpointColumns)

    return WebhookEndpointRepository.of({
      // Endpoint creates of one organization queue on a lock of their own (nothing else waits on
      // it), so the count and the insert see every endpoint committed before; the condition
      // mirrors `withinLimit` of domain/limits.ts.
      insert: (endpoint, max) =>
        sql.withTransaction(Effect.gen(function*() {
          if (max !== null) {
            yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`webhook_endpoints:${endpoint.organizationId}`}, 0))`
          }
          const rows = yield* sql`
            INSERT INTO webhook_endpoints (
              id, organization_id, url, events, description, status, disabled_reason, signing_secret,
              previous_signing_secret, previous_signing_secret_expires_at, failing_since, created_at, updated_at
            ) SELECT
              ${endpoint.id}, ${endpoint.organizationId}, ${endpoint.url}, ${endpoint.events}::text[],
              ${endpoint.description}, ${endpoint.status}, ${endpoint.disabledReason}, ${endpoint.signingSecret},
              ${endpoint.previousSigningSecret}, ${endpoint.previousSigningSecretExpiresAt}, ${endpoint.failingSince},
              ${endpoint.createdAt}, ${endpoint.updatedAt}
            WHERE ${
            max === null
              ? sql`true`
              : sql`(SELECT count(*) FROM webhook_endpoints WHERE organization_id = ${endpoint.organizationId}) + 1 <= ${max}`
          }
            RETURNING id`
          return rows.length > 0
        })).pipe(Effect.orDie),

      update: (endpoint) =>
        sql`
          UPDATE webhook_endpoints SET
            url = ${endpoint.url}, events = ${endpoint.events}::text[], description = ${endpoint.description},
            status = ${endpoint.status}, disabled_reason = ${endpoint.disabledReason},
            signing_secret = ${endpoint.signingSecret}, previous_signing_secret = ${endpoint.previousSigningSecret},
            previous_signing_secret_expires_at = ${endpoint.previousSigningSecretExpiresAt},
            failing_since = ${endpoint.failingSince}, created_at = ${endpoint.createdAt}, updated_at = ${endpoint.updatedAt}
          WHERE organization_id = ${endpoint.organizationId} AND id = ${endpoint.id}`.pipe(Effect.asVoid, Effect.orDie),

      findById: (organizationId, id) =>
        sql`SELECT ${columns} FROM webhook_endpoints WHERE organization_id = ${organizationId} AND id = ${id}`.pipe(
          Effect.flatMap(decodeEndpoint),
          Effect.orDie
        ),

      listByOrganization: (organizationId) =>
        sql`
          SELECT ${columns} FROM webhook_endpoints
          WHERE organization_id = ${organizationId}
          ORDER BY created_at, id`.pipe(Effect.flatMap(decodeEndpoints), Effect.orDie),

      countByOrganization: (organizationId) =>
        sql`SELECT count(*)::integer AS count FROM webhook_endpoints WHERE organization_id = ${organizationId}`.pipe(
          Effect.flatMap(decodeCount),
          Effect.orDie
        ),

      // Deliveries and their attempts go by cascade.
      delete: (organizationId, id) =>
        sql`DELETE FROM webhook_endpoints WHERE organization_id = ${organizationId} AND id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      organizationOf: (id) =>
        sql`SELECT organization_id FROM webhook_endpoints WHERE id = ${id}`.pipe(
          Effect.flatMap(decodeOwner),
          Effect.map(Option.map((row) => row.organizationId)),
          Effect.orDie
        ),

      activeOf: (organizationIds) =>
        organizationIds.length === 0 ? Effect.succeed([]) : sql`
          SELECT ${columns} FROM webhook_endpoints
          WHERE organization_id = ANY(${organizationIds}::uuid[]) AND status = 'active'
          ORDER BY organization_id, created_at, id`.pipe(Effect.flatMap(decodeEndpoints), Effect.orDie),

      markAnswered: (id) =>
        sql`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${id} AND failing_since IS NOT NULL`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      // One statement: of two failures at once, the first to lock the row sets the start.
      markFailed: (id, at) =>
        sql`
          UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ${at})
          WHERE id = ${id}
          RETURNING failing_since`.pipe(
          Effect.flatMap(decodeFailingSince),
          Effect.map(Option.map((row) => row.failingSince)),
          Effect.orDie
        ),

      disable: (id, reason, at) =>
        sql`
          UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ${reason}, updated_at = ${at}
          WHERE id = ${id} AND status = 'active'`.pipe(Effect.asVoid, Effect.orDie)
    })
  })
)
