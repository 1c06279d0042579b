import * as SqlClient from "@effect/sql/SqlClient"
import { UserRepository } from "@roster/application"
import { emailKey, User } from "@roster/domain"
import { Effect, Layer } from "effect"
import { selectList, userColumns } from "./columns.js"
import { instant, keyset } from "./keyset.js"
import { decodeCount, decodeFirst, decodeRow, decodeRows, type Row } from "./rows.js"

const decodeUser = decodeFirst(User)
const decodeUsers = decodeRows(User)
const decodeUserRow = decodeRow(User)

/** The one row a statement with RETURNING must answer; none is a defect. */
const decodeReturned = (rows: ReadonlyArray<Row>) => decodeUserRow(rows[0] ?? {})

export const PostgresUserRepositoryLive = Layer.effect(
  UserRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = selectList(sql, userColumns)

    return UserRepository.of({
      // One statement: of concurrent first sign-ins of an address, one inserts the user and the
      // others wait for it and mark that same row, so there is never a second user nor a clash.
      signIn: (candidate, at) =>
        sql`
          INSERT INTO users (id, email, email_key, created_at, last_signed_in_at)
          VALUES (
            ${candidate.id}, ${candidate.email}, ${emailKey(candidate.email)}, ${candidate.createdAt},
            ${candidate.lastSignedInAt}
          )
          ON CONFLICT ON CONSTRAINT users_email_unique DO UPDATE SET last_signed_in_at = ${at}
          RETURNING ${columns}`.pipe(Effect.flatMap(decodeReturned), Effect.orDie),

      findById: (id) =>
        sql`SELECT ${columns} FROM users WHERE id = ${id}`.pipe(Effect.flatMap(decodeUser), Effect.orDie),

      findByEmail: (email) =>
        sql`SELECT ${columns} FROM users WHERE email_key = ${emailKey(email)}`.pipe(
          Effect.flatMap(decodeUser),
          Effect.orDie
        ),

      list: (query) => {
        const page = keyset(sql, "created_at", "asc", query.after && { value: instant(query.after.value), id: query.after.id })
        return sql`
          SELECT ${columns} FROM users
          WHERE ${sql.and(page.after)}
          ${page.orderBy}
          LIMIT ${query.limit} OFFSET ${query.offset ?? 0}`.pipe(Effect.flatMap(decodeUsers), Effect.orDie)
      },

      count: sql`SELECT count(*)::integer AS count FROM users`.pipe(Effect.flatMap(decodeCount), Effect.orDie)
    })
  })
)
