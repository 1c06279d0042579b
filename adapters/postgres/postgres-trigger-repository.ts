import * as SqlClient from "@effect/sql/SqlClient"
import { TriggerRepository } from "@roster/application"
import { EmailTrigger, type FiringStatus, SubscriberId, TriggerEvent, TriggerId } from "@roster/domain"
import { Effect, Layer } from "effect"
import { decodeFirst, decodeRow, decodeRows, jsonb } from "./rows.js"
import { makeWorkQueue } from "./work-queue.js"

const columns = (table: string, prefix = "") =>
  [
    "id",
    "organization_id",
    "name",
    "event",
    "tag_id",
    "template_id",
    "segment_id",
    "kind",
    "delay_seconds",
    "status",
    "data",
    "created_at",
    "updated_at"
  ]
    .map((column) => `${table}.${column} AS ${prefix}${column}`).join(", ")

const decodeTrigger = decodeFirst(EmailTrigger)
const decodeTriggers = decodeRows(EmailTrigger)
const decodeClaimedTrigger = decodeRow(EmailTrigger, "t_")

/** What of an event a trigger listens for: its subscriber and, for tags, the tag. */
const aboutOf = (data: Readonly<Record<string, unknown>>) => {
  const id = (value: unknown) =>
    typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string"
      ? (value as { id: string }).id
      : null
  return { subscriberId: id(data.subscriber), tagId: id(data.tag) }
}

/** Email triggers and their firings; firings are recorded for a batch of events in one statement. */
export const PostgresTriggerRepositoryLive = Layer.effect(
  TriggerRepository,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const all = sql.literal(columns("email_triggers"))
    const claimed = sql.literal(columns("t", "t_"))
    // A firing is leased by pushing its due time on; settling it is what takes it off the queue.
    const firingQueue = makeWorkQueue(sql, { table: "trigger_firings", alias: "f", key: ["id"], due: "due_at" })
    return TriggerRepository.of({
      insert: (trigger) =>
        sql`
          INSERT INTO email_triggers (id, organization_id, name, event, tag_id, template_id, segment_id, kind, delay_seconds,
                                      status, data, created_at, updated_at)
          VALUES (${trigger.id}, ${trigger.organizationId}, ${trigger.name}, ${trigger.event}, ${trigger.tagId},
                  ${trigger.templateId}, ${trigger.segmentId}, ${trigger.kind}, ${trigger.delaySeconds}, ${trigger.status},
                  ${jsonb(trigger.data)}::jsonb, ${trigger.createdAt}, ${trigger.updatedAt})`.pipe(Effect.asVoid, Effect.orDie),

      update: (trigger) =>
        sql`
          UPDATE email_triggers SET name = ${trigger.name}, event = ${trigger.event}, tag_id = ${trigger.tagId},
                 template_id = ${trigger.templateId}, segment_id = ${trigger.segmentId}, kind = ${trigger.kind},
                 delay_seconds = ${trigger.delaySeconds},
                 status = ${trigger.status}, data = ${jsonb(trigger.data)}::jsonb, updated_at = ${trigger.updatedAt}
          WHERE id = ${trigger.id} AND organization_id = ${trigger.organizationId}`.pipe(Effect.asVoid, Effect.orDie),

      delete: (organizationId, id) =>
        sql`DELETE FROM email_triggers WHERE id = ${id} AND organization_id = ${organizationId} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      findById: (organizationId, id) =>
        sql`SELECT ${all} FROM email_triggers WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(
          Effect.flatMap(decodeTrigger),
          Effect.orDie
        ),

      list: ({ after, limit, offset, organizationId }) =>
        sql`
          SELECT ${all} FROM email_triggers
          WHERE organization_id = ${organizationId}
            ${after === undefined ? sql`` : sql`AND (created_at, id) > (${new Date(after.value)}, ${after.id})`}
          ORDER BY created_at, id
          LIMIT ${limit} ${offset === undefined ? sql`` : sql`OFFSET ${offset}`}`.pipe(Effect.flatMap(decodeTriggers), Effect.orDie),

      count: (organizationId) =>
        sql`SELECT count(*)::integer AS count FROM email_triggers WHERE organization_id = ${organizationId}`.pipe(
          Effect.map((rows) => Number(rows[0]?.count ?? 0)),
          Effect.orDie
        ),

      usingSegment: (organizationId, segmentId) =>
        sql`
          SELECT id FROM email_triggers WHERE organization_id = ${organizationId} AND segment_id = ${segmentId}
          ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map((row) => TriggerId.make(String(row.id)))),
          Effect.orDie
        ),

      recordFirings: (events, at) => {
        const heard = events
          .filter((event) => (TriggerEvent.literals as ReadonlyArray<string>).includes(event.type))
          .map((event) => ({ event, ...aboutOf(event.data) }))
          .filter((e) => e.subscriberId !== null)
        if (heard.length === 0) return Effect.succeed(0)
        return sql`
          INSERT INTO trigger_firings (id, trigger_id, organization_id, subscriber_id, event_id, status, due_at, created_at,
                                       updated_at)
          SELECT gen_random_uuid(), t.id, t.organization_id, e.subscriber_id, e.event_id, 'pending',
                 e.occurred_at + make_interval(secs => t.delay_seconds), ${at}, ${at}
          FROM unnest(
            ${heard.map((e) => e.event.id)}::uuid[], ${heard.map((e) => e.event.organizationId)}::uuid[],
            ${heard.map((e) => e.event.type)}::text[], ${heard.map((e) => e.subscriberId)}::uuid[],
            ${heard.map((e) => e.tagId)}::uuid[], ${heard.map((e) => e.event.occurredAt)}::timestamptz[]
          ) AS e(event_id, organization_id, type, subscriber_id, tag_id, occurred_at)
          JOIN email_triggers t ON t.organization_id = e.organization_id AND t.status = 'active' AND t.event = e.type
            AND (t.event <> 'tag.subscribed' OR t.tag_id IS NULL OR t.tag_id = e.tag_id)
          WHERE EXISTS (SELECT 1 FROM subscribers s WHERE s.id = e.subscriber_id)
          ON CONFLICT (trigger_id, subscriber_id) DO NOTHING
          RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie)
      },

      claimDue: (now, limit, leaseMs) =>
        firingQueue.claim({
          pick: {
            join: sql`JOIN email_triggers t ON t.id = f.trigger_id`,
            where: sql`f.status = 'pending' AND f.due_at <= ${now} AND t.status = 'active'`,
            orderBy: sql`f.due_at, f.id`,
            limit
          },
          lease: { until: new Date(now.getTime() + leaseMs), set: sql`updated_at = ${now}` },
          returning: sql`f.id, f.subscriber_id, f.trigger_id`,
          answer: {
            select: sql`leased.id AS firing_id, leased.subscriber_id AS firing_subscriber_id, ${claimed}`,
            from: sql`leased JOIN email_triggers t ON t.id = leased.trigger_id`
          }
        }).pipe(
          Effect.flatMap((rows) =>
            Effect.forEach(rows, (row) =>
              Effect.map(decodeClaimedTrigger(row), (trigger) => ({
                id: String(row.firing_id),
                subscriberId: SubscriberId.make(String(row.firing_subscriber_id)),
                trigger
              })))
          ),
          Effect.orDie
        ),

      settle: (id, outcome, at) =>
        sql`
          UPDATE trigger_firings SET status = ${outcome.status}, message_id = ${outcome.messageId}, detail = ${outcome.detail},
                 updated_at = ${at}
          WHERE id = ${id} AND status = 'pending'`.pipe(Effect.asVoid, Effect.orDie),

      firingCounts: (ids) =>
        ids.length === 0 ? Effect.succeed(new Map()) : sql`
          SELECT trigger_id, status, count(*)::integer AS count FROM trigger_firings
          WHERE trigger_id = ANY(${ids}::uuid[]) GROUP BY trigger_id, status`.pipe(
          Effect.map((rows) => {
            const counts = new Map<TriggerId, Partial<Record<FiringStatus, number>>>()
            for (const row of rows) {
              const id = TriggerId.make(String(row.trigger_id))
              counts.set(id, { ...counts.get(id), [String(row.status)]: Number(row.count) })
            }
            return counts as ReadonlyMap<TriggerId, Partial<Record<FiringStatus, number>>>
          }),
          Effect.orDie
        )
    })
  })
)
