import { Array, Effect, Option, Schema } from "effect"

/** A row as the database answers it: column name to value. */
export type Row = { readonly [column: string]: unknown }

/** Field names by column name: the schema's columns are few, and rows are many. */
const fieldNames = new Map<string, string>()

const camelCase = (column: string): string => {
  let field = fieldNames.get(column)
  if (field === undefined) {
    field = column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
    if (fieldNames.size < 10_000) fieldNames.set(column, field)
  }
  return field
}

/**
 * The columns of `row` that start with `prefix`, as the fields of a domain value:
 * `organization_id` becomes `organizationId`. Values are left alone, so jsonb keeps its keys.
 */
const fieldsOf = (row: Row, prefix: string): Record<string, unknown> => {
  const fields: Record<string, unknown> = {}
  for (const [column, value] of Object.entries(row)) {
    if (column.startsWith(prefix)) fields[camelCase(column.slice(prefix.length))] = value
  }
  return fields
}

/**
 * Decodes a row into a domain value with the value's own schema. A row that does not decode is a
 * defect: the database holds only what the domain wrote.
 */
export const decodeRow = <A, I>(schema: Schema.Schema<A, I>, prefix = "") => {
  const decode = Schema.decodeUnknown(schema)
  return (row: Row): Effect.Effect<A> => Effect.orDie(decode(fieldsOf(row, prefix)))
}

export const decodeRows = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = decodeRow(schema)
  return (rows: ReadonlyArray<Row>): Effect.Effect<ReadonlyArray<A>> => Effect.forEach(rows, decode)
}

/** The first row, decoded, if there is one. */
export const decodeFirst = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = decodeRow(schema)
  return (rows: ReadonlyArray<Row>): Effect.Effect<Option.Option<A>> =>
    Effect.transposeMapOption(Array.head(rows), decode)
}

const decodeCountRow = decodeRow(Schema.Struct({ count: Schema.Number }))

/** The `count` of a `SELECT count(*)::integer AS count` query. */
export const decodeCount = (rows: ReadonlyArray<Row>): Effect.Effect<number> =>
  Effect.map(decodeCountRow(rows[0] ?? {}), (row) => row.count)

/**
 * jsonb parameters go as JSON text: node-postgres would send a JS array as a PostgreSQL array.
 * (Lists of ids do go as arrays, one `= ANY($1::uuid[])` parameter: the same statement whatever
 * the length, and no limit on the count.)
 */
export const jsonb = (value: unknown): string => JSON.stringify(value)
