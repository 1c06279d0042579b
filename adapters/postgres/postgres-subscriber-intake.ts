import * as SqlClient from "@effect/sql/SqlClient"
import { Outbox, OrganizationRepository, SubscriberIntake, SubscriberRepository } from "@roster/application"
import { EmailAlreadyExists, emailKey, instantText } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { jsonb } from "./rows.js"
import { SHARDS, UNLIMITED_SHARDS } from "./subscriber-slots.js"
import { PgStatements } from "./pg-client.js"
import { inTransaction, transactional } from "./transactions.js"

class NoRoom {
  readonly _tag = "NoRoom"
}

/**
 * The slot row a create counts on, one that no one else holds. Under a limit ($2), any of the
 * organization's rows with room, the nearest to $4 of $3 first; without one, $3 or $4, whichever
 * is free (there are many rows, see subscriber-slots.ts, so one of two is nearly always free).
 */
const limitedSlot = `
    SELECT shard FROM organization_subscriber_slots
    WHERE organization_id = $1 AND quota IS NOT DISTINCT FROM $2::integer
      AND (allowance IS NULL OR used + 1 <= allowance)
    ORDER BY (shard + $3 - $4) % $3
    LIMIT 1
    FOR UPDATE SKIP LOCKED`
const unlimitedSlot = `
    SELECT shard FROM organization_subscriber_slots
    WHERE organization_id = $1 AND shard IN ($3::smallint, $4::smallint) AND quota IS NULL AND $2::integer IS NULL
    ORDER BY shard = $4::smallint
    LIMIT 1
    FOR UPDATE SKIP LOCKED`

/**
 * Counts on a slot row with room that no one else holds (`slot`), and only then inserts the
 * subscriber and its events (`events`: how they are given, from $14 on); a taken email inserts
 * nothing and counts nothing.
 */
const admitText = (slot: string, events: string) => `
  WITH slot AS (${slot}
  ), inserted AS (
    INSERT INTO subscribers
      (id, organization_id, email, email_key, status, metadata, first_name, last_name, created_at, updated_at)
    SELECT $5, $1, $6, $7, $8, $9::jsonb, $10, $11, $12::timestamptz, $13::timestamptz
    FROM slot
    ON CONFLICT ON CONSTRAINT subscribers_email_unique DO NOTHING
    RETURNING id
  ), counted AS (
    UPDATE organization_subscriber_slots AS slots SET used = slots.used + 1
    FROM slot, inserted
    WHERE slots.organization_id = $1 AND slots.shard = slot.shard
  ), recorded AS (
    INSERT INTO outbox_events (id, organization_id, type, occurred_at, data)
    ${events}
  )
  SELECT EXISTS (SELECT 1 FROM slot) AS room, EXISTS (SELECT 1 FROM inserted) AS inserted`

/** One event, as plain parameters: what nearly every create records. */
const oneEvent = `SELECT $14::uuid, $15::uuid, $16, $17::timestamptz, $18::jsonb FROM inserted`

/** Any number of events, as arrays, inserted in their order. */
const manyEvents = `SELECT e.id, e.organization_id, e.type, e.occurred_at, e.data
    FROM unnest($14::uuid[], $15::uuid[], $16::text[], $17::timestamptz[], $18::jsonb[])
      WITH ORDINALITY AS e(id, organization_id, type, occurred_at, data, n), inserted
    ORDER BY e.n`

/** The statement for a create under a limit or not, with one event or several, and its name. */
const admitStatements = {
  limited: {
    one: ["roster_subscriber_intake_one", admitText(limitedSlot, oneEvent)],
    many: ["roster_subscriber_intake", admitText(limitedSlot, manyEvents)]
  },
  unlimited: {
    one: ["roster_subscriber_intake_unlimited_one", admitText(unlimitedSlot, oneEvent)],
    many: ["roster_subscriber_intake_unlimited", admitText(unlimitedSlot, manyEvents)]
  }
} as const

/** Two different shards of `shards`, at random. */
const twoShards = (shards: number): readonly [number, number] => {
  const first = Math.floor(Math.random() * shards)
  return [first, (first + 1 + Math.floor(Math.random() * (shards - 1))) % shards]
}

/**
 * A new subscriber in one statement: a slot row with room that no one else holds is counted on,
 * and only then are the subscriber and its events inserted; a taken email inserts nothing and
 * counts nothing. When no slot row has room at once, or inside a transaction, the same is done
 * step by step in a transaction, where the organization's room is shared out again.
 */
export const PostgresSubscriberIntakeLive = Layer.effect(
  SubscriberIntake,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const subscribers = yield* SubscriberRepository
    const organizations = yield* OrganizationRepository
    const outbox = yield* Outbox

    const stepByStep: SubscriberIntake["Type"]["admit"] = (subscriber, events, max) =>
      transactional(sql)(Effect.gen(function*() {
        yield* subscribers.insert(subscriber)
        yield* outbox.record(events)
        if (!(yield* organizations.reserveSubscriberSlots(subscriber.organizationId, 1, max))) yield* Effect.fail(new NoRoom())
      })).pipe(Effect.as(true), Effect.catchTag("NoRoom", () => Effect.succeed(false)))

    const statements = yield* Effect.serviceOption(PgStatements)

    const inOneStatement: SubscriberIntake["Type"]["admit"] = (subscriber, events, max) => {
      const one = events.length === 1 ? events[0]! : undefined
      // Times go as ISO 8601 text, which the driver passes on as it is.
      const [first, second] = max === null ? twoShards(UNLIMITED_SHARDS) : [SHARDS, Math.floor(Math.random() * SHARDS)]
      const values = [
        subscriber.organizationId, max, first, second,
        subscriber.id, subscriber.email, emailKey(subscriber.email), subscriber.status, jsonb(subscriber.metadata),
        subscriber.firstName, subscriber.lastName, instantText(subscriber.createdAt), instantText(subscriber.updatedAt),
        ...(one === undefined
          ? [
            events.map((e) => e.id), events.map((e) => e.organizationId), events.map((e) => e.type),
            events.map((e) => e.occurredAt), events.map((e) => jsonb(e.data))
          ]
          : [one.id, one.organizationId, one.type, instantText(one.occurredAt), jsonb(one.data)])
      ]
      const [name, text] = admitStatements[max === null ? "unlimited" : "limited"][one === undefined ? "many" : "one"]
      return (Option.isSome(statements) ? statements.value.run(name, text, values) : sql.unsafe(text, values)).pipe(
          Effect.orDie,
          Effect.flatMap((rows) => {
            const outcome = rows[0] as { readonly room: boolean; readonly inserted: boolean } | undefined
            if (outcome?.room !== true) return stepByStep(subscriber, events, max)
            return outcome.inserted ? Effect.succeed(true) : Effect.fail(new EmailAlreadyExists({ email: subscriber.email }))
          })
        )
    }

    return SubscriberIntake.of({
      admit: (subscriber, events, max) =>
        Effect.flatMap(inTransaction, (joined) =>
          joined ? stepByStep(subscriber, events, max) : inOneStatement(subscriber, events, max))
    })
  })
)
