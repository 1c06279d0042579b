import * as SqlClient from "@effect/sql/SqlClient"
import {
  type ExportedSubscriber,
  exportByKeyset,
  type SubscriberFilter,
  type SubscriberPageSort,
  SubscriberRepository,
  type SubscriberSearch,
  type SubscriberSort
} from "@roster/application"
import { EmailAlreadyExists, emailKey, OrganizationId, Subscriber, SubscriberId, SubscriberStatus } from "@roster/domain"
import { Effect, Layer, Option, Schema, Stream } from "effect"
import pg from "pg"
import { selectList, subscriberColumns } from "./columns.js"
import { instant, keyset } from "./keyset.js"
import { orderByKeys } from "./numbered-pages.js"
import { decodeCount, decodeFirst, decodeRows, jsonb, type Row } from "./rows.js"
import { preferenceAccessOfRow, subscriberOfRow, tagSubscriptionsJson, tagSubscriptionsOfJson } from "./trusted-rows.js"
import { detachAllTagsOf } from "./tag-counts.js"
import { PgStatements } from "./pg-client.js"
import { inTransaction, transactional } from "./transactions.js"
import { makeWorkQueue } from "./work-queue.js"

const sortColumns: Record<SubscriberSort, string> = {
  created_at: "created_at",
  updated_at: "updated_at",
  email: "email_key"
}

/**
 * The least text in code-point order ("C" collation) above every text that starts with `prefix`:
 * its last code point one higher (past the surrogates, which text never holds), dropping code
 * points that are already the highest; undefined when there is none (an empty prefix).
 */
export const prefixBound = (prefix: string): string | undefined => {
  const points = Array.from(prefix, (c) => c.codePointAt(0)!)
  while (points.length > 0) {
    const last = points.pop()!
    if (last < 0x10ffff) return String.fromCodePoint(...points, last === 0xd7ff ? 0xe000 : last + 1)
  }
  return undefined
}

/** `status` compares as its name in code-point order, whatever the database's collation. */
const pageSortColumns: Record<SubscriberPageSort, string> = { ...sortColumns, status: `status COLLATE "C"` }

const decodeSubscriber = (rows: ReadonlyArray<Row>) =>
  Effect.succeed(rows.length === 0 ? Option.none<Subscriber>() : Option.some(subscriberOfRow(rows[0]!)))
const decodeSubscribers = (rows: ReadonlyArray<Row>) => Effect.succeed(rows.map(subscriberOfRow))
const decodeOwner = decodeFirst(Schema.Struct({ organizationId: OrganizationId }))
const decodeErasures = decodeRows(Schema.Struct({ organizationId: OrganizationId, id: SubscriberId }))
const decodeHolders = decodeErasures
const decodeStatusCounts = decodeRows(Schema.Struct({ status: SubscriberStatus, count: Schema.Number }))
const decodeDayCounts = decodeRows(Schema.Struct({ day: Schema.String, count: Schema.Number }))
const decodeVersionRow = decodeFirst(Schema.Struct({ version: Schema.Number }))
const decodeVersion = (rows: ReadonlyArray<unknown>) => Effect.map(decodeVersionRow(rows as never), Option.map((row) => row.version))

/**
 * The statement an export streams with COPY (which takes no parameters, so the values are written
 * in as literals): the subscribers in the order of `subscribers_created_at_idx` (or
 * `subscribers_status_created_at_idx`), which the scan follows without sorting; their tags as ids
 * in attachment order, named in node from the organization's tags; their creation time as ISO
 * text; and for each metadata key in use its value as JSON (one lookup a key, cheaper than the
 * whole document as text), of which a string without escapes needs no parsing.
 */
export const exportQuery = (
  organizationId: OrganizationId,
  query: SubscriberFilter & { readonly metadataKeys: ReadonlyArray<string> }
) => {
  const conditions = [
    `s.organization_id = ${pg.escapeLiteral(organizationId)}`,
    ...(query.status === undefined ? [] : [`s.status = ${pg.escapeLiteral(query.status)}`]),
    ...(query.tagId === undefined ? [] : [
      `EXISTS (SELECT 1 FROM subscriber_tags x WHERE x.subscriber_id = s.id AND x.tag_id = ${pg.escapeLiteral(query.tagId)})`
    ])
  ]
  const metadata = query.metadataKeys.map((key) => `(s.metadata -> ${pg.escapeLiteral(key)})::text`)
  return `SELECT s.id, s.email, s.first_name, s.last_name, s.status,
      to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      array_to_string(ARRAY(
        SELECT st.tag_id FROM subscriber_tags st WHERE st.subscriber_id = s.id ORDER BY st.subscribed_at, st.tag_id
      ), ' ')${metadata.map((column) => `,
      ${column}`).join("")}
    FROM subscribers s
    WHERE ${conditions.join(" AND ")}
    ORDER BY s.created_at, s.id`
}

/** Distinct sets of tags an export keeps named at once; past it, they are named again. */
const TAG_SETS_KEPT = 10_000

/**
 * Names of tags given as space-parted ids: one list for each set of tags, shared by every
 * subscriber who has it (the CSV writer writes a shared list once).
 */
const makeTagNames = (names: ReadonlyMap<string, string>) => {
  const lists = new Map<string, ReadonlyArray<string>>()
  const none: ReadonlyArray<string> = []
  return (ids: string | null): ReadonlyArray<string> => {
    if (ids === null || ids === "") return none
    let list = lists.get(ids)
    if (list === undefined) {
      if (lists.size >= TAG_SETS_KEPT) lists.clear()
      list = ids.split(" ").flatMap((id) => names.get(id) ?? [])
      lists.set(ids, list)
    }
    return list
  }
}

/** A JSON value as text: a string holding no escape is its text between the quotes, as it is. */
const jsonValueOf = (json: string): unknown =>
  json.charCodeAt(0) === 34 && !json.includes("\\") ? json.slice(1, -1) : JSON.parse(json)

/** A row of `exportQuery` as an exported subscriber. */
const exportedOfCopyRow = (
  row: ReadonlyArray<string | null>,
  metadataKeys: ReadonlyArray<string>,
  tagNamesOf: (ids: string | null) => ReadonlyArray<string>
): ExportedSubscriber => {
  const metadata: Record<string, unknown> = {}
  for (let i = 0; i < metadataKeys.length; i++) {
    const cell = row[7 + i]
    if (cell !== null && cell !== undefined) metadata[metadataKeys[i]!] = jsonValueOf(cell)
  }
  return {
    id: row[0] as SubscriberId,
    email: row[1]!,
    firstName: row[2] ?? null,
    lastName: row[3] ?? null,
    status: row[4] as ExportedSubscriber["status"],
    createdAt: row[5]!,
    tagNames: tagNamesOf(row[6] ?? null),
    metadata
  }
}

export const PostgresSubscriberRepositoryLive = Layer.effect(
  SubscriberRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = selectList(sql, subscriberColumns)
    const statements = yield* Effect.serviceOption(PgStatements)
    // An erasure is held by the transaction that carries it out: its row stays locked until then.
    const erasureQueue = makeWorkQueue(sql, { table: "subscribers", alias: "s", key: ["organization_id", "id"] })
    const findWithTagsText = `SELECT ${subscriberColumns.map((c) => `s.${c}`).join(", ")}, ${tagSubscriptionsJson} AS tags
      FROM subscribers s WHERE s.organization_id = $1 AND s.id = $2`

    // A search is a range of subscribers_email_unique (organization_id, email_key): email_key has
    // the "C" collation, so the texts that start with a prefix lie between it and its bound.
    const startingWith = (prefix: string | undefined) => {
      if (prefix === undefined) return []
      const key = emailKey(prefix)
      const bound = prefixBound(key)
      return [sql`email_key >= ${key}`, ...(bound === undefined ? [] : [sql`email_key < ${bound}`])]
    }

    const matching = (organizationId: OrganizationId, filter: SubscriberSearch) => [
      sql`organization_id = ${organizationId}`,
      ...startingWith(filter.emailPrefix),
      ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`]),
      ...(filter.tagId === undefined ? [] : [
        sql`EXISTS (SELECT 1 FROM subscriber_tags st WHERE st.subscriber_id = subscribers.id AND st.tag_id = ${filter.tagId})`
      ])
    ]

    const findById = (organizationId: OrganizationId, id: string, forUpdate: boolean) =>
      sql`SELECT ${columns} FROM subscribers WHERE organization_id = ${organizationId} AND id = ${id}
          ${sql.literal(forUpdate ? "FOR UPDATE" : "")}`.pipe(Effect.flatMap(decodeSubscriber), Effect.orDie)

    const repository: SubscriberRepository["Type"] = SubscriberRepository.of({
      insert: (subscriber) =>
        sql`
          INSERT INTO subscribers
            (id, organization_id, email, email_key, status, metadata, first_name, last_name, created_at, updated_at)
          VALUES (
            ${subscriber.id}, ${subscriber.organizationId}, ${subscriber.email}, ${emailKey(subscriber.email)},
            ${subscriber.status}, ${jsonb(subscriber.metadata)}, ${subscriber.firstName}, ${subscriber.lastName},
            ${subscriber.createdAt}, ${subscriber.updatedAt}
          )
          ON CONFLICT ON CONSTRAINT subscribers_email_unique DO NOTHING
          RETURNING id`.pipe(
          // One round trip, and a taken email leaves the transaction usable.
          Effect.orDie,
          Effect.flatMap((rows) =>
            rows.length === 1 ? Effect.void : Effect.fail(new EmailAlreadyExists({ email: subscriber.email }))
          )
        ),

      update: (subscriber) =>
        sql`
          UPDATE subscribers SET
            email = ${subscriber.email}, email_key = ${emailKey(subscriber.email)}, status = ${subscriber.status},
            metadata = ${jsonb(subscriber.metadata)}, first_name = ${subscriber.firstName},
            last_name = ${subscriber.lastName}, updated_at = ${subscriber.updatedAt}
          WHERE organization_id = ${subscriber.organizationId} AND id = ${subscriber.id}`.pipe(Effect.asVoid, Effect.orDie),

      delete: (organizationId, id) =>
        transactional(sql)(Effect.gen(function*() {
          // The assignments would go by cascade, but their tags' counts must follow.
          yield* detachAllTagsOf(sql, organizationId, id)
          const deleted = yield* sql`DELETE FROM subscribers WHERE organization_id = ${organizationId} AND id = ${id} RETURNING id`
          return deleted.length > 0
        })).pipe(Effect.orDie),

      findById: (organizationId, id) => findById(organizationId, id, false),

      preferenceAccess: (organizationId, id) =>
        sql`
          SELECT preference_token_version AS token_version, erasure_requested_at FROM subscribers
          WHERE organization_id = ${organizationId} AND id = ${id}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), preferenceAccessOfRow)),
          Effect.orDie
        ),

      requestErasure: (organizationId, id, at) =>
        sql`
          UPDATE subscribers
          SET erasure_requested_at = coalesce(erasure_requested_at, ${at})
          WHERE organization_id = ${organizationId} AND id = ${id}
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      // Inside a transaction the rows stay locked until it ends; other workers skip them.
      claimErasures: (limit) =>
        erasureQueue.pick({
          columns: sql`s.organization_id, s.id`,
          where: sql`s.erasure_requested_at IS NOT NULL`,
          orderBy: sql`s.erasure_requested_at, s.id`,
          limit
        }).pipe(Effect.flatMap(decodeErasures), Effect.orDie),

      revokePreferenceTokens: (organizationId, id) =>
        sql`
          UPDATE subscribers SET preference_token_version = preference_token_version + 1
          WHERE organization_id = ${organizationId} AND id = ${id}
          RETURNING preference_token_version AS version`.pipe(Effect.flatMap(decodeVersion), Effect.orDie),

      findByIdForUpdate: (organizationId, id) => findById(organizationId, id, true),

      findManyForUpdate: (organizationId, ids) =>
        ids.length === 0 ? Effect.succeed([]) : sql`
          SELECT ${columns} FROM subscribers
          WHERE organization_id = ${organizationId} AND id = ANY(${ids}::uuid[])
          ORDER BY id
          FOR UPDATE`.pipe(Effect.flatMap(decodeSubscribers), Effect.orDie),

      preferenceAccesses: (organizationId, ids) =>
        ids.length === 0 ? Effect.succeed(new Map()) : sql`
          SELECT id, preference_token_version AS token_version, erasure_requested_at FROM subscribers
          WHERE organization_id = ${organizationId} AND id = ANY(${ids}::uuid[])`.pipe(
          Effect.map((rows) => new Map(rows.map((row) => [row.id as SubscriberId, preferenceAccessOfRow(row)]))),
          Effect.orDie
        ),

      // One round trip: the row and its tags as one JSON array; straight on a pooled connection
      // outside a transaction.
      findWithTags: (organizationId, id) =>
        Effect.flatMap(inTransaction, (joined) =>
          Option.isSome(statements) && !joined
            ? statements.value.run("roster_subscriber_with_tags", findWithTagsText, [organizationId, id])
            : sql.unsafe<Row>(findWithTagsText, [organizationId, id])).pipe(
            Effect.map((rows) =>
              rows.length === 0
                ? Option.none()
                : Option.some({ subscriber: subscriberOfRow(rows[0]!), tags: tagSubscriptionsOfJson(rows[0]!.tags) })
            ),
            Effect.orDie
          ),

      findByEmail: (organizationId, email) =>
        sql`SELECT ${columns} FROM subscribers WHERE organization_id = ${organizationId} AND email_key = ${emailKey(email)}`
          .pipe(Effect.flatMap(decodeSubscriber), Effect.orDie),

      // subscribers_email_key_idx: one index probe across every organization.
      holdersOf: (email) =>
        sql`SELECT organization_id, id FROM subscribers WHERE email_key = ${emailKey(email)} ORDER BY organization_id, id`
          .pipe(Effect.flatMap(decodeHolders), Effect.orDie),

      organizationOf: (id) =>
        sql`SELECT organization_id FROM subscribers WHERE id = ${id}`.pipe(
          Effect.flatMap(decodeOwner),
          Effect.map(Option.map((row) => row.organizationId)),
          Effect.orDie
        ),

      list: (organizationId, query) => {
        const page = keyset(sql, sortColumns[query.sort], query.order, query.after && {
          value: query.sort === "email" ? String(query.after.value) : instant(query.after.value),
          id: query.after.id
        })
        return sql`
          SELECT ${columns} FROM subscribers
          WHERE ${sql.and([...matching(organizationId, query), ...page.after])}
          ${page.orderBy}
          LIMIT ${query.limit}`.pipe(Effect.flatMap(decodeSubscribers), Effect.orDie)
      },

      listPage: (organizationId, query) =>
        sql`
          SELECT ${columns} FROM subscribers
          WHERE ${sql.and(matching(organizationId, query.filter))}
          ${orderByKeys(sql, query.sort.map(({ field, order }) => ({ expression: pageSortColumns[field], order })))}
          LIMIT ${query.limit} OFFSET ${query.offset}`.pipe(Effect.flatMap(decodeSubscribers), Effect.orDie),

      // Up to a number: the rows are taken with a limit and counted, which stops the scan there.
      count: (organizationId, filter, upTo) =>
        (upTo === undefined
          ? sql`SELECT count(*)::integer AS count FROM subscribers WHERE ${sql.and(matching(organizationId, filter))}`
          : sql`SELECT count(*)::integer AS count FROM (
              SELECT 1 FROM subscribers WHERE ${sql.and(matching(organizationId, filter))} LIMIT ${upTo}
            ) AS matched`).pipe(
          Effect.flatMap(decodeCount),
          Effect.orDie
        ),

      // Both read an index that starts with the organization: (organization_id, status, created_at, id)
      // for the statuses, (organization_id, created_at, id) for the range of days.
      countByStatus: (organizationId) =>
        sql`
          SELECT status, count(*)::integer AS count FROM subscribers
          WHERE organization_id = ${organizationId}
          GROUP BY status`.pipe(Effect.flatMap(decodeStatusCounts), Effect.orDie),

      createdPerDay: (organizationId, range) =>
        sql`
          SELECT to_char(date_trunc('day', created_at AT TIME ZONE ${range.timeZone}), 'YYYY-MM-DD') AS day,
            count(*)::integer AS count
          FROM subscribers
          WHERE organization_id = ${organizationId} AND created_at >= ${range.from} AND created_at < ${range.to}
          GROUP BY 1 ORDER BY 1`.pipe(Effect.flatMap(decodeDayCounts), Effect.orDie),

      exportPage: (organizationId, query) => {
        const page = keyset(sql, "created_at", "asc", query.after && { value: instant(query.after.value), id: query.after.id })
        // Tag ids only (one index probe a subscriber), named from the organization's few tags; the
        // ids and the time as text, which the driver hands over without parsing.
        // The page is taken first (an ordered index scan that stops at the limit), and only its rows
        // are then dressed: the planner never weighs the dressing against the whole organization.
        const rows = sql<Row>`
          SELECT p.id, p.email, p.first_name, p.last_name, p.status, p.metadata,
            to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
            array_to_string(ARRAY(
              SELECT st.tag_id FROM subscriber_tags st
              WHERE st.subscriber_id = p.id ORDER BY st.subscribed_at, st.tag_id
            ), ' ') AS tag_ids
          FROM (
            SELECT id, email, first_name, last_name, status, metadata, created_at
            FROM subscribers
            WHERE ${sql.and([...matching(organizationId, query), ...page.after])}
            ${page.orderBy}
            LIMIT ${query.limit}
          ) AS p
          ORDER BY p.created_at, p.id`
        const tagNames = sql<{ readonly id: string; readonly name: string }>`
          SELECT id, name FROM tags WHERE organization_id = ${organizationId}`
        return Effect.all([rows, tagNames], { concurrency: 2 }).pipe(
          // Read as the database hands them over: these rows go straight out to a file.
          Effect.map(([rows, tags]) => {
            const names = new Map(tags.map((tag) => [tag.id, tag.name] as const))
            // One list of names for each set of tags on the page, shared by the subscribers who have it.
            const lists = new Map<string, ReadonlyArray<string>>([["", []]])
            const tagNamesOf = (ids: string) => {
              let list = lists.get(ids)
              if (list === undefined) {
                list = ids.split(" ").flatMap((id) => names.get(id) ?? [])
                lists.set(ids, list)
              }
              return list
            }
            return rows.map((row): ExportedSubscriber => ({
              id: row.id as SubscriberId,
              email: row.email as string,
              firstName: row.first_name as string | null,
              lastName: row.last_name as string | null,
              status: row.status as ExportedSubscriber["status"],
              tagNames: tagNamesOf(row.tag_ids as string),
              metadata: row.metadata as Record<string, unknown>,
              createdAt: row.created_at as string
            }))
          }),
          Effect.orDie
        )
      },

      exportAll: (organizationId, query) =>
        Option.isNone(statements)
          ? exportByKeyset(repository.exportPage, organizationId, query, query.pageSize)
          : Stream.unwrap(Effect.map(
            sql<{ readonly id: string; readonly name: string }>`SELECT id, name FROM tags WHERE organization_id = ${organizationId}`,
            (tags) => {
              const tagNamesOf = makeTagNames(new Map(tags.map((tag) => [tag.id, tag.name] as const)))
              const keys = query.metadataKeys
              return statements.value.copyOut(exportQuery(organizationId, query), query.pageSize).pipe(
                Stream.map((rows) => rows.map((row) => exportedOfCopyRow(row, keys, tagNamesOf)))
              )
            }
          )).pipe(Stream.orDie),

      metadataKeys: (organizationId, filter) =>
        sql<{ readonly key: string }>`
          SELECT DISTINCT keys.key COLLATE "C" AS key
          FROM subscribers, jsonb_object_keys(subscribers.metadata) AS keys (key)
          WHERE ${sql.and(matching(organizationId, filter))}
          ORDER BY 1`.pipe(Effect.map((rows) => rows.map((row) => row.key)), Effect.orDie)
    })
    return repository
  })
)
