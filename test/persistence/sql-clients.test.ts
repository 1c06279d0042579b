import { describe, expect, it, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Redacted } from "effect"
import { arrayParametersOf, makeArrayParameterEncoder } from "../../adapters/postgres/binary-arrays.js"
import { makePgClient, makePgliteClient } from "../../adapters/postgres/index.js"
import { PgStatements } from "../../adapters/postgres/pg-client.js"
import { postgres } from "../support/servers.js"

/** What repositories rely on, the same from either client. */
const answersAlike = (client: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  layer(client)((it) => {
    it.effect("values come back with the same JavaScript types", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const at = new Date("2025-01-01T12:34:56.789Z")
        const [row] = yield* sql`
          SELECT 9007199254740993::int8 AS big, 7::integer AS small, 1.5::numeric AS exact, true AS yes,
                 ${at}::timestamptz AS at, '{"snake_key": [1, {"b": null}]}'::jsonb AS doc,
                 'a1b2c3d4-0000-4000-8000-000000000000'::uuid AS id, NULL::text AS nothing`
        expect(row).toStrictEqual({
          big: "9007199254740993",
          small: 7,
          exact: "1.5",
          yes: true,
          at,
          doc: { snake_key: [1, { b: null }] },
          id: "a1b2c3d4-0000-4000-8000-000000000000",
          nothing: null
        })
      }))

    it.effect("array parameters arrive whole, whatever their elements, and a value of the wrong type is refused", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const id = "a1b2c3d4-0000-4000-8000-00000000abcd"
        const elements = (values: ReadonlyArray<unknown>, type: string, as = "x::text") =>
          sql.unsafe<{ x: string | null }>(
            `SELECT ${as} AS x FROM unnest($1::${type}[]) WITH ORDINALITY AS u(x, n) ORDER BY n`,
            [values]
          ).pipe(Effect.map((rows) => rows.map((row) => row.x)))
        expect(yield* elements([id, null, id.toUpperCase(), "A1B2C3D4000040008000000000000001"], "uuid")).toStrictEqual([
          id,
          null,
          id,
          "a1b2c3d4-0000-4000-8000-000000000001"
        ])
        const texts = ["plain", "quote \" and backslash \\", "{braces},\"commas\"", "NULL", "", "Zoë 👋", null, "x".repeat(70_000)]
        expect(yield* elements(texts, "text")).toStrictEqual(texts)
        const times = [new Date("2025-01-01T12:34:56.789Z"), null, new Date("1969-07-20T20:17:40.001Z"), new Date("1999-12-31T23:59:59.999Z")]
        expect(yield* elements(times, "timestamptz", "(extract(epoch FROM x) * 1000)::int8::text")).toStrictEqual(
          times.map((t) => t === null ? null : String(t.getTime()))
        )
        const integers = [0, -1, 2_147_483_647, -2_147_483_648, null]
        expect(yield* elements(integers, "int")).toStrictEqual(integers.map((n) => n === null ? null : String(n)))
        const big = [0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, -4_294_967_296]
        expect(yield* elements(big, "int8")).toStrictEqual(big.map(String))
        expect(yield* elements([true, null, false], "boolean")).toStrictEqual(["true", null, "false"])
        expect(yield* elements([], "uuid")).toStrictEqual([])
        expect(yield* elements(["12", 3], "int")).toStrictEqual(["12", "3"])
        for (const [values, type] of [[["not-a-uuid"], "uuid"], [[1.5], "int"], [[2_147_483_648], "int"], [["a\u0000b"], "text"]] as const) {
          const refused = yield* Effect.flip(elements(values, type))
          expect(refused._tag).toBe("SqlError")
        }
      }))

    it.effect("a text of several statements without parameters answers one row list per statement", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT 1 AS one; SELECT 2 AS two`).toStrictEqual([[{ one: 1 }], [{ two: 2 }]])
      }))

    it.effect("a failed statement inside a transaction rolls it back", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TEMPORARY TABLE IF NOT EXISTS probe (n integer PRIMARY KEY)`
        const failed = yield* sql.withTransaction(
          Effect.zipRight(sql`INSERT INTO probe VALUES (1)`, sql`INSERT INTO probe VALUES (1)`)
        ).pipe(Effect.flip)
        expect(failed._tag).toBe("SqlError")
        expect(yield* sql`SELECT count(*)::integer AS n FROM probe`).toStrictEqual([{ n: 0 }])
      }))
  })

describe("array parameters in PostgreSQL's binary format", () => {
  it("a parameter is sent so when every mention of it casts it to one array type written here", () => {
    const found = arrayParametersOf(
      "SELECT $1::uuid[], $2::text[], $2::TEXT[], $3::uuid[], $3::text[], $4, $4::int[], $5::jsonb[], $6::timestamptz[], " +
        "$7::int8[], $12::integer[], $13::bigint[], $14::int[] || $14::int[], $15::boolean[]"
    )
    // uuid[] and jsonb[] are not written here; $3 and $4 are mentioned two ways.
    expect(found.map(([index, type]) => [index, type.oid])).toStrictEqual([
      [1, 25],
      [5, 1184],
      [6, 20],
      [11, 23],
      [12, 20],
      [13, 23],
      [14, 16]
    ])
  })

  it("arrays of such parameters become buffers; others, and arrays with an element of another type, stay as they are", () => {
    const encode = makeArrayParameterEncoder()
    const text = "SELECT $1::uuid[], $2::text[], $3::timestamptz[], $4, $5::int[]"
    const given = [["a1b2c3d4-0000-4000-8000-000000000000"], ["a", null], [new Date(0)], ["left", "alone"], [1, 2]]
    const sent = encode(text, given)
    expect(sent.map((value) => Buffer.isBuffer(value))).toStrictEqual([false, true, true, false, true])
    expect(sent[0]).toBe(given[0])
    expect(sent[3]).toBe(given[3])
    expect(given[1]).toStrictEqual(["a", null])
    const mixed = [["a1b2c3d4-0000-4000-8000-000000000000"], ["a", 1], [new Date(Number.NaN)], [], [1.5]]
    expect(encode(text, mixed)).toBe(mixed)
    const scalars = [1, "a"]
    expect(encode("SELECT $1, $2", scalars)).toBe(scalars)
  })
})

describe("SQL clients", () => {
  describe("the embedded database", () => answersAlike(makePgliteClient("memory://")))
  describe.skipIf(!postgres.available)(postgres.label, () => {
    const client = makePgClient(Redacted.make(postgres.url ?? "")).pipe(Layer.orDie)
    answersAlike(client)
    layer(client)((it) => {
      it.effect("prepares a statement with parameters once per connection, and one without none", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const marker = `probe-${Date.now()}`
          // One transaction is one connection: what it prepared shows in pg_prepared_statements.
          const prepared = yield* sql.withTransaction(Effect.gen(function*() {
            for (let i = 0; i < 3; i++) {
              expect(yield* sql`SELECT ${i}::integer AS n, ${marker}::text AS marker`).toStrictEqual([{ n: i, marker }])
            }
            yield* sql`SELECT 1 AS plain`
            return yield* sql<{ readonly statement: string }>`
              SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%AS marker' OR statement LIKE '%AS plain'`
          }))
          expect(prepared.map((row) => row.statement)).toStrictEqual(["SELECT $1::integer AS n, $2::text AS marker"])
        }))

      it.effect("a named statement run straight on the pool answers as the client does, on every connection", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const { run } = yield* PgStatements
          const at = new Date("2025-01-01T12:34:56.789Z")
          const text = `SELECT $1::int8 AS big, $2::integer AS small, $3::boolean AS yes, $4::timestamptz AS at,
            $5::jsonb AS doc, $6::uuid AS id, $7::text AS nothing, $8::text[] AS list, $9::text AS quoted`
          const values = [
            "9007199254740993", 7, true, at.toISOString(), JSON.stringify({ snake_key: [1, { b: null }] }),
            "a1b2c3d4-0000-4000-8000-000000000000", null, ["a", "b,c", "d\"e"], "it's \\ \"quoted\"\nover lines"
          ]
          const expected = yield* sql.unsafe(text, values)
          expect(expected[0]).toStrictEqual({
            big: "9007199254740993", small: 7, yes: true, at, doc: { snake_key: [1, { b: null }] },
            id: "a1b2c3d4-0000-4000-8000-000000000000", nothing: null, list: ["a", "b,c", "d\"e"],
            quoted: "it's \\ \"quoted\"\nover lines"
          })
          // The first run describes the rows; the runs after it, on every connection of the pool, do not.
          expect(yield* run("probe_statement_types", text, values)).toStrictEqual(expected)
          const runs = yield* Effect.all(
            Array.from({ length: 24 }, () => run("probe_statement_types", text, values)),
            { concurrency: "unbounded" }
          )
          expect(runs).toStrictEqual(Array.from({ length: 24 }, () => expected))
          expect(yield* run("probe_statement_none", "SELECT $1::integer AS n WHERE false", [1])).toStrictEqual([])
        }))

      it.effect("a named statement that fails, or whose values cannot be written, fails alone and leaves the pool usable", () =>
        Effect.gen(function*() {
          const { run } = yield* PgStatements
          const text = "SELECT 10 / $1::integer AS quotient"
          expect(yield* run("probe_statement_division", text, [2])).toStrictEqual([{ quotient: 5 }])
          const failed = yield* Effect.flip(run("probe_statement_division", text, [0]))
          expect(failed._tag).toBe("SqlError")
          expect((failed.cause as { readonly code?: string }).code).toBe("22012")
          const circular: Record<string, unknown> = {}
          circular.self = circular
          const unwritable = yield* Effect.flip(run("probe_statement_division", text, [circular]))
          expect(unwritable._tag).toBe("SqlError")
          const after = yield* Effect.all(
            Array.from({ length: 12 }, (_, i) => run("probe_statement_division", text, [i + 1])),
            { concurrency: "unbounded" }
          )
          expect(after).toStrictEqual(Array.from({ length: 12 }, (_, i) => [{ quotient: Math.floor(10 / (i + 1)) }]))
        }))

      it.effect("compiles no plan to machine code: every connection has jit off", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const settings = yield* Effect.all(
            Array.from({ length: 3 }, () => sql.withTransaction(sql<{ readonly jit: string }>`SHOW jit`)),
            { concurrency: "unbounded" }
          )
          expect(settings.flat()).toStrictEqual([{ jit: "off" }, { jit: "off" }, { jit: "off" }])
        }))
    })
  })
})
