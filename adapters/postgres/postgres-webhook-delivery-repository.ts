import * as SqlClient from "@effect/sql/SqlClient"
import { type DeliveryPage, type LeasedDelivery, WebhookDeliveryRepository } from "@roster/application"
import {
  DomainEvent,
  WebhookAttempt,
  WebhookDelivery,
  type WebhookDeliveryHistory,
  WebhookEndpoint
} from "@roster/domain"
import { Array, Effect, Layer, Option, Schema } from "effect"
import { selectList } from "./columns.js"
import { webhookEndpointColumns } from "./postgres-webhook-endpoint-repository.js"
import { decodeFirst, decodeRow, decodeRows, type Row } from "./rows.js"
import { makeStatementBatcher } from "./statement-batcher.js"
import { makeWorkQueue } from "./work-queue.js"

const deliveryColumns = [
  "id", "organization_id", "endpoint_id", "event_id", "event_type", "status", "attempt_count", "next_attempt_at",
  "created_at", "updated_at", "test", "test_body"
] as const

const attemptColumns = [
  "number", "attempted_at", "status", "response_status", "response_excerpt", "duration_ms", "error", "next_attempt_at"
] as const

const eventColumns = ["id", "organization_id", "type", "occurred_at", "data"] as const

const DELIVERY = "delivery."
const ENDPOINT = "endpoint."
const EVENT = "event."

const decodeDelivery = decodeFirst(WebhookDelivery)
const decodeDeliveries = decodeRows(WebhookDelivery)
const decodeLeased = (row: Row): Effect.Effect<LeasedDelivery> =>
  Effect.all({
    delivery: decodeRow(WebhookDelivery, DELIVERY)(row),
    endpoint: decodeRow(WebhookEndpoint, ENDPOINT)(row),
    event: decodeRow(DomainEvent, EVENT)(row)
  })
const decodeAttemptRow = (row: Row) =>
  Effect.all({
    deliveryId: decodeRow(Schema.Struct({ deliveryId: Schema.String }))(row),
    attempt: decodeRow(WebhookAttempt)(row)
  })
const decodeStats = decodeRow(Schema.Struct({
  attempts: Schema.Number,
  succeeded: Schema.Number,
  failed: Schema.Number,
  p50Ms: Schema.NullOr(Schema.Number),
  p95Ms: Schema.NullOr(Schema.Number),
  lastSuccessAt: Schema.NullOr(Schema.DateFromSelf),
  lastFailureAt: Schema.NullOr(Schema.DateFromSelf),
  pending: Schema.Number
}))

/** A statement takes at most 65,535 parameters; ten per delivery. */
const DELIVERIES_PER_INSERT = 5_000

/** Attempts recorded in one statement at most. */
const ATTEMPTS_PER_STATEMENT = 500

/**
 * Deliveries and their attempts. Workers lease due deliveries with one statement each, skipping
 * rows another worker is leasing, and record an attempt only while their lease holds.
 */
export const PostgresWebhookDeliveryRepositoryLive = Layer.effect(
  WebhookDeliveryRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = selectList(sql, deliveryColumns)
    const deliveryQueue = makeWorkQueue(sql, {
      table: "webhook_deliveries",
      alias: "d",
      key: ["id"],
      due: "next_attempt_at",
      token: "lease_token",
      lock: "NO KEY UPDATE"
    })

    // Sends finish many at a time: their attempts are recorded together, one statement for all
    // that finished while the previous statement ran.
    const recordAttempt = yield* makeStatementBatcher({
      maxBatch: ATTEMPTS_PER_STATEMENT,
      run: (inputs: ReadonlyArray<Parameters<WebhookDeliveryRepository["Type"]["recordAttempt"]>[0]>) =>
        sql<{ readonly delivery_id: string }>`
          WITH input AS (
            SELECT * FROM unnest(
              ${inputs.map((i) => i.deliveryId)}::uuid[], ${inputs.map((i) => i.leaseToken)}::uuid[],
              ${inputs.map((i) => i.status)}::text[], ${inputs.map((i) => i.nextAttemptAt)}::timestamptz[],
              ${inputs.map((i) => i.attempt.number)}::integer[], ${inputs.map((i) => i.attempt.attemptedAt)}::timestamptz[],
              ${inputs.map((i) => i.attempt.status)}::text[], ${inputs.map((i) => i.attempt.responseStatus)}::integer[],
              ${inputs.map((i) => i.attempt.durationMs)}::integer[], ${inputs.map((i) => i.attempt.error)}::text[],
              ${inputs.map((i) => i.attempt.nextAttemptAt)}::timestamptz[], ${inputs.map((i) => i.attempt.responseExcerpt)}::text[]
            ) AS i(delivery_id, lease_token, status, next_attempt_at, number, attempted_at, attempt_status,
                   response_status, duration_ms, error, attempt_next_attempt_at, response_excerpt)
          ), leased AS (
            UPDATE webhook_deliveries AS d SET
              status = i.status, attempt_count = i.number, next_attempt_at = i.next_attempt_at,
              lease_token = NULL, updated_at = i.attempted_at
            FROM input i
            WHERE d.id = i.delivery_id AND d.lease_token = i.lease_token
            RETURNING d.id, d.endpoint_id, d.organization_id
          ), recorded AS (
            INSERT INTO webhook_attempts (
              delivery_id, number, endpoint_id, organization_id, attempted_at, status, response_status,
              duration_ms, error, next_attempt_at, response_excerpt
            )
            SELECT l.id, i.number, l.endpoint_id, l.organization_id, i.attempted_at, i.attempt_status,
              i.response_status, i.duration_ms, i.error, i.attempt_next_attempt_at, i.response_excerpt
            FROM leased l JOIN input i ON i.delivery_id = l.id
            RETURNING delivery_id
          )
          SELECT delivery_id FROM recorded`.pipe(
          Effect.map((rows) => {
            const recorded = new Set(rows.map((row) => row.delivery_id))
            return inputs.map((input) => recorded.has(input.deliveryId))
          }),
          Effect.orDie
        )
    })

    const insert = (deliveries: ReadonlyArray<WebhookDelivery>) =>
      sql`
        INSERT INTO webhook_deliveries ${
        sql.insert(deliveries.map((delivery) => ({
          id: delivery.id,
          organization_id: delivery.organizationId,
          endpoint_id: delivery.endpointId,
          event_id: delivery.eventId,
          event_type: delivery.eventType,
          status: delivery.status,
          attempt_count: delivery.attemptCount,
          next_attempt_at: delivery.nextAttemptAt,
          created_at: delivery.createdAt,
          updated_at: delivery.updatedAt,
          test: delivery.test,
          test_body: delivery.testBody
        })))
      }
        ON CONFLICT (endpoint_id, event_id) DO NOTHING`

    /** The deliveries with their attempts, oldest first; one statement for all the attempts. */
    const withAttempts = (deliveries: ReadonlyArray<WebhookDelivery>) =>
      Effect.gen(function*() {
        if (deliveries.length === 0) return []
        const rows = yield* sql`
          SELECT delivery_id, ${selectList(sql, attemptColumns)} FROM webhook_attempts
          WHERE delivery_id = ANY(${deliveries.map((delivery) => delivery.id)}::uuid[])
          ORDER BY delivery_id, number`
        const attempts = Array.groupBy(
          yield* Effect.forEach(rows, decodeAttemptRow),
          (row) => row.deliveryId.deliveryId
        )
        return deliveries.map((delivery): WebhookDeliveryHistory => ({
          delivery,
          attempts: (attempts[delivery.id] ?? []).map((row) => row.attempt)
        }))
      })

    const history = (delivery: Option.Option<WebhookDelivery>) =>
      Effect.transposeMapOption(delivery, (found) => Effect.map(withAttempts([found]), (histories) => histories[0]!))

    return WebhookDeliveryRepository.of({
      insertMany: (deliveries) =>
        Effect.forEach(Array.chunksOf(deliveries, DELIVERIES_PER_INSERT), insert, { discard: true }).pipe(Effect.orDie),

      // One statement. The pick is MATERIALIZED, one evaluation for the lease and the answer, and
      // locks FOR NO KEY UPDATE, which lets attempts keep referencing the row. The answer is each
      // delivery as it was before the lease: `nextAttemptAt` is when it came due, not `leasedUntil`.
      claimDue: ({ leaseToken, leasedUntil, limit, now, skipEndpoints = [] }) =>
        deliveryQueue.claim({
          pick: {
            columns: selectList(sql, deliveryColumns, { from: "d" }),
            join: sql`JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.status = 'active'`,
            where: sql`d.status = 'pending' AND d.next_attempt_at <= ${now}
              ${skipEndpoints.length === 0 ? sql`` : sql`AND d.endpoint_id <> ALL(${skipEndpoints}::uuid[])`}`,
            orderBy: sql`d.next_attempt_at, d.id`,
            limit,
            materialized: true
          },
          lease: { token: leaseToken, until: leasedUntil, set: sql`updated_at = ${now}` },
          returning: sql`d.id`,
          answer: {
            select: sql`${selectList(sql, deliveryColumns, { from: "due", prefix: DELIVERY })},
              ${selectList(sql, webhookEndpointColumns, { from: "e", prefix: ENDPOINT })},
              ${selectList(sql, eventColumns, { from: "ev", prefix: EVENT })}`,
            from: sql`due
              JOIN leased ON leased.id = due.id
              JOIN webhook_endpoints e ON e.id = due.endpoint_id
              JOIN outbox_events ev ON ev.id = due.event_id
              ORDER BY due.next_attempt_at, due.id`
          }
        }).pipe(
          Effect.flatMap((rows) => Effect.forEach(rows, decodeLeased)),
          Effect.orDie
        ),

      // One statement: the delivery changes only under the caller's lease, and the attempt is
      // inserted only if it did.
      recordAttempt,

      // One statement: the test delivery is made or brought up to date, and its attempt added; an
      // endpoint deleted meanwhile gets neither.
      recordTest: ({ attempt, delivery }) =>
        sql`
          WITH upserted AS (
            INSERT INTO webhook_deliveries (
              id, organization_id, endpoint_id, event_id, event_type, status, attempt_count, next_attempt_at,
              created_at, updated_at, test, test_body
            )
            SELECT ${delivery.id}, e.organization_id, e.id, ${delivery.eventId},
              ${delivery.eventType}, ${delivery.status}, ${delivery.attemptCount}, NULL::timestamptz,
              ${delivery.createdAt}, ${delivery.updatedAt}, true, ${delivery.testBody}
            FROM webhook_endpoints e
            WHERE e.id = ${delivery.endpointId} AND e.organization_id = ${delivery.organizationId}
            ON CONFLICT (id) DO UPDATE SET
              status = EXCLUDED.status, attempt_count = EXCLUDED.attempt_count, updated_at = EXCLUDED.updated_at
            WHERE webhook_deliveries.test
            RETURNING id, endpoint_id, organization_id
          )
          INSERT INTO webhook_attempts (
            delivery_id, number, endpoint_id, organization_id, attempted_at, status, response_status,
            duration_ms, error, next_attempt_at, response_excerpt
          )
          SELECT id, ${attempt.number}, endpoint_id, organization_id, ${attempt.attemptedAt}, ${attempt.status},
            ${attempt.responseStatus}, ${attempt.durationMs}, ${attempt.error}, NULL, ${attempt.responseExcerpt}
          FROM upserted`.pipe(Effect.asVoid, Effect.orDie),

      // Held deliveries have no next attempt: they sit past every due one in the claimer's index.
      // Leased ones are being sent; their attempt decides what becomes of them.
      holdPending: (endpointId, at) =>
        sql`
          UPDATE webhook_deliveries SET next_attempt_at = NULL, updated_at = ${at}
          WHERE endpoint_id = ${endpointId} AND status = 'pending' AND next_attempt_at IS NOT NULL
            AND lease_token IS NULL`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      resumeHeld: (endpointId, now) =>
        sql`
          UPDATE webhook_deliveries SET next_attempt_at = ${now}, updated_at = ${now}
          WHERE endpoint_id = ${endpointId} AND status = 'pending' AND next_attempt_at IS NULL`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      renewLease: ({ deliveryId, leaseToken, leasedUntil }) =>
        deliveryQueue.renew({ token: leaseToken, keys: [deliveryId], until: leasedUntil, returning: sql`id` }).pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      release: (leaseToken, ids, now) =>
        ids.length === 0
          ? Effect.void
          : deliveryQueue.release({ token: leaseToken, keys: ids, at: now, set: sql`updated_at = ${now}` }).pipe(
            Effect.asVoid,
            Effect.orDie
          ),

      findById: (organizationId, endpointId, id) =>
        sql`
          SELECT ${columns} FROM webhook_deliveries
          WHERE organization_id = ${organizationId} AND endpoint_id = ${endpointId} AND id = ${id}`.pipe(
          Effect.flatMap(decodeDelivery),
          Effect.flatMap(history),
          Effect.orDie
        ),

      // Ids are UUIDv7, so id order is the order deliveries were made in. One more row than asked
      // tells whether there is more.
      listByEndpoint: ({ after, endpointId, limit, organizationId, status }) =>
        sql`
          SELECT ${columns} FROM webhook_deliveries
          WHERE ${
          sql.and([
            sql`organization_id = ${organizationId}`,
            sql`endpoint_id = ${endpointId}`,
            ...Option.toArray(Option.map(after, (id) => sql`id < ${id}`)),
            ...Option.toArray(Option.map(status, (value) => sql`status = ${value}`))
          ])
        }
          ORDER BY id DESC
          LIMIT ${limit + 1}`.pipe(
          Effect.flatMap(decodeDeliveries),
          Effect.flatMap((rows) =>
            Effect.map(withAttempts(rows.slice(0, limit)), (items): DeliveryPage => ({ items, hasMore: rows.length > limit }))
          ),
          Effect.orDie
        ),

      // Clearing the lease means an attempt under way when the delivery was retried is not recorded.
      retryNow: (organizationId, endpointId, id, now) =>
        sql`
          UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${now}, lease_token = NULL, updated_at = ${now}
          WHERE organization_id = ${organizationId} AND endpoint_id = ${endpointId} AND id = ${id}
          RETURNING ${columns}`.pipe(Effect.flatMap(decodeDelivery), Effect.flatMap(history), Effect.orDie),

      // Attempts go with their delivery (ON DELETE CASCADE).
      pruneFinished: (before, limit) =>
        sql<{ readonly id: string }>`
          DELETE FROM webhook_deliveries WHERE id IN (
            SELECT id FROM webhook_deliveries
            WHERE status <> 'pending' AND updated_at < ${before}
            ORDER BY updated_at
            LIMIT ${limit}
          )
          RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie),

      // Percentiles as percentile_cont computes them (linear interpolation), rounded half up to
      // whole milliseconds with floor(x + 0.5), which the in-memory adapter repeats exactly.
      stats: ({ endpointId, organizationId, since }) => {
        const ofEndpoint = Option.toArray(Option.map(endpointId, (id) => sql`endpoint_id = ${id}`))
        // Pending deliveries are counted through the partial index on their endpoint.
        const pendingOf = Option.match(endpointId, {
          onNone: () => sql`endpoint_id IN (SELECT id FROM webhook_endpoints WHERE organization_id = ${organizationId})`,
          onSome: (id) => sql`endpoint_id = ${id}`
        })
        return sql`
          SELECT
            count(*)::integer AS attempts,
            count(*) FILTER (WHERE status = 'succeeded')::integer AS succeeded,
            count(*) FILTER (WHERE status = 'failed')::integer AS failed,
            floor(percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) + 0.5::float8)::integer AS p50_ms,
            floor(percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) + 0.5::float8)::integer AS p95_ms,
            max(attempted_at) FILTER (WHERE status = 'succeeded') AS last_success_at,
            max(attempted_at) FILTER (WHERE status = 'failed') AS last_failure_at,
            (
              SELECT count(*)::integer FROM webhook_deliveries
              WHERE organization_id = ${organizationId} AND ${pendingOf} AND status = 'pending'
            ) AS pending
          FROM webhook_attempts
          WHERE ${sql.and([sql`organization_id = ${organizationId}`, ...ofEndpoint, sql`attempted_at >= ${since}`])}`.pipe(
          Effect.flatMap((rows) => decodeStats(rows[0] ?? {})),
          Effect.orDie
        )
      }
    })
  })
)
