import type * as SqlClient from "@effect/sql/SqlClient"
import type { Limit, OrganizationId } from "@roster/domain"
import { Effect } from "effect"
import { transactional } from "./transactions.js"

/**
 * An organization's subscriber count in `SHARDS` rows (organization_subscriber_slots), so that
 * concurrent creates each lock one of several rows instead of all queueing on one.
 *
 * Under a limit, each row may count up to its allowance, and the allowances add up to the limit:
 * a reservation that fits the allowance of a row no one else holds is one statement and never
 * exceeds the limit, whatever runs beside it. When no row has room (or the limit changed since
 * the allowances were made), the organization's rows are locked, counted, and the room that is
 * left shared out again. A rebalance holds every row, so the creates beside it find no free row
 * and queue for a rebalance of their own: each first tries the rows again once it has the
 * organization's row, and rebalances only if there is still no room (otherwise such a queue would
 * feed itself under load). That path runs near the limit, or once in a while; two of them queue on
 * the organization's row, never on the creates of the fast path. (A reservation that waits there
 * may hold a row a rebalance waits for; PostgreSQL breaks such a deadlock and the transaction
 * runs again, see `transactional`.)
 *
 * Without a limit there is no allowance to share, so the count is spread over many more rows
 * (`UNLIMITED_SHARDS`): a create counts on one of two rows picked at random, which another create
 * holds only rarely, instead of looking over every row of the organization for one that is free.
 */
export const SHARDS = 16
export const UNLIMITED_SHARDS = 128

/** How many rows an organization's count is spread over under `max`. */
export const shardsFor = (max: Limit): number => max === null ? UNLIMITED_SHARDS : SHARDS

const anyShard = () => Math.floor(Math.random() * SHARDS)

/** `free` shared over the shards, the remainder on the first ones. */
const shares = (free: number): ReadonlyArray<number> =>
  Array.from({ length: SHARDS }, (_, shard) => Math.floor(free / SHARDS) + (shard < free % SHARDS ? 1 : 0))

export const makeSubscriberSlots = (sql: SqlClient.SqlClient) => {
  /**
   * Counts on a row with room that no one else holds, `shard` if it can: one statement that never
   * waits for another reservation.
   */
  const fastReserve = (id: OrganizationId, shard: number, count: number, max: Limit) =>
    sql`
      WITH slot AS (
        SELECT shard FROM organization_subscriber_slots
        WHERE organization_id = ${id} AND quota IS NOT DISTINCT FROM ${max}::integer
          AND (allowance IS NULL OR used + ${count} <= allowance)
        ORDER BY (shard + ${shardsFor(max)} - ${shard}) % ${shardsFor(max)}
        LIMIT 1
        FOR UPDATE SKIP LOCKED
      )
      UPDATE organization_subscriber_slots AS slots SET used = slots.used + ${count}
      FROM slot WHERE slots.organization_id = ${id} AND slots.shard = slot.shard
      RETURNING slots.shard`.pipe(Effect.map((rows) => rows.length > 0))

  /**
   * Reserves `count` on `shard` after the other reservations (or as much of it as there is room
   * for when `partial`): how many it reserved. Under a limit, a count already at it says none
   * without a lock.
   */
  const rebalance = (id: OrganizationId, shard: number, wanted: number, max: Limit, partial: boolean) =>
    Effect.flatMap(
      max === null ? Effect.succeed(true) : hasRoom(id, partial ? 1 : wanted, max),
      (room) => room ? lockedRebalance(id, shard, wanted, max, partial) : Effect.succeed(0)
    )

  /**
   * Whether the committed count leaves room for `count` under `max`, read without a lock. A
   * reservation not yet committed is not in it, so it never says no where a rebalance would say
   * yes but for a release that has not committed yet (the answer comes before that release). At
   * the limit, every create takes this way: without it, each would queue on the organization's
   * row for a rebalance that finds no room, and hold a connection while it waits.
   */
  const hasRoom = (id: OrganizationId, count: number, max: number) =>
    sql<{ readonly used: number }>`
      SELECT coalesce(sum(used), 0)::integer AS used FROM organization_subscriber_slots WHERE organization_id = ${id}`
      .pipe(Effect.map(([row]) => (row?.used ?? 0) + count <= max))

  /**
   * Counts every row under lock and shares the room left out again, reserving `count` on `shard`,
   * or as much of it as there is room for when `partial`: how many it reserved.
   */
  const lockedRebalance = (id: OrganizationId, shard: number, wanted: number, max: Limit, partial: boolean) =>
    transactional(sql)(Effect.gen(function*() {
      // Rebalancing organizations queue here; creates on the fast path never take this lock.
      const organization = yield* sql`SELECT id FROM organizations WHERE id = ${id} FOR NO KEY UPDATE`
      if (organization.length === 0) return 0
      // Every row may have been held by the rebalance this one waited for: try them again first.
      if (yield* fastReserve(id, shard, wanted, max)) return wanted
      const rows = yield* sql<{ readonly shard: number; readonly used: number }>`
        SELECT shard, used FROM organization_subscriber_slots WHERE organization_id = ${id} ORDER BY shard FOR UPDATE`
      const shards = shardsFor(max)
      const used = Array.from({ length: shards }, () => 0)
      let total = 0
      for (const row of rows) {
        total += row.used
        if (row.shard < shards) used[row.shard]! += row.used
        else used[0]! += row.used // a shard beyond the current count folds into the first
      }
      if (total < 0) { // more was released than reserved: start again from none
        used[0]! -= total
        total = 0
      }
      const count = max === null || total + wanted <= max ? wanted : partial ? Math.max(0, max - total) : 0
      if (count === 0) return 0
      used[shard]! += count
      const room = max === null ? null : shares(max - total - count)
      yield* sql`DELETE FROM organization_subscriber_slots WHERE organization_id = ${id} AND shard >= ${shards}`
      yield* sql`
        INSERT INTO organization_subscriber_slots (organization_id, shard, used, allowance, quota)
        SELECT ${id}, s.shard, s.used, s.allowance, ${max}::integer
        FROM unnest(${used.map((_, i) => i)}::smallint[], ${used}::integer[], ${
        room === null ? used.map(() => null) : used.map((u, i) => u + room[i]!)
      }::integer[]) AS s(shard, used, allowance)
        ON CONFLICT (organization_id, shard) DO UPDATE
          SET used = excluded.used, allowance = excluded.allowance, quota = excluded.quota`
      return count
    }))

  return {
    /**
     * Adds `count` to the organization's subscriber count if the result stays within `max`;
     * whether it did. Inside a transaction the row it counted on stays locked until the end, so
     * a rollback takes the reservation back. At most one reservation per transaction: a second
     * one may wait on a rebalance that waits on the first.
     */
    reserve: (id: OrganizationId, count: number, max: Limit): Effect.Effect<boolean> => {
      const shard = anyShard()
      return fastReserve(id, shard, count, max).pipe(
        Effect.flatMap((reserved) => reserved ? Effect.succeed(true) : Effect.map(rebalance(id, shard, count, max, false), (n) => n > 0)),
        Effect.orDie
      )
    },

    /**
     * Adds as much of `count` to the organization's subscriber count as stays within `max`: how
     * much it added. As `reserve`, once per transaction.
     */
    reserveUpTo: (id: OrganizationId, count: number, max: Limit): Effect.Effect<number> => {
      if (count === 0) return Effect.succeed(0)
      const shard = anyShard()
      return fastReserve(id, shard, count, max).pipe(
        Effect.flatMap((reserved) => reserved ? Effect.succeed(count) : rebalance(id, shard, count, max, true)),
        Effect.orDie
      )
    },

    /**
     * Takes `count` off the organization's subscriber count, never below zero, on any one row: a
     * row's count may go below zero (only the sum is a count), and lowering one never breaks its
     * allowance. A new row gets an allowance no reservation fits, so that the next one shares out.
     */
    release: (id: OrganizationId, count: number): Effect.Effect<void> =>
      sql`
        WITH taken AS (
          SELECT least(${count}, greatest(coalesce(sum(used), 0), 0))::integer AS n
          FROM organization_subscriber_slots WHERE organization_id = ${id}
        )
        INSERT INTO organization_subscriber_slots AS slots (organization_id, shard, used, allowance, quota)
        SELECT ${id}, ${anyShard()}, -n, -n, -1 FROM taken WHERE n > 0
        ON CONFLICT (organization_id, shard) DO UPDATE SET used = slots.used + excluded.used`.pipe(Effect.asVoid, Effect.orDie),

    /** Starts an organization's count at `count` (an organization that brings its subscribers along). */
    start: (id: OrganizationId, count: number): Effect.Effect<void> =>
      count === 0 ? Effect.void : sql`
        INSERT INTO organization_subscriber_slots (organization_id, shard, used, allowance, quota)
        VALUES (${id}, 0, ${count}, ${count}, -1)`.pipe(Effect.asVoid, Effect.orDie)
  }
}
