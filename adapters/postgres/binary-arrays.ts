/**
 * Array parameters sent in PostgreSQL's binary format.
 *
 * node-postgres sends a JavaScript array as an array literal: `{"a","b\"c",...}`, each element
 * escaped by two regular expressions, the literal built up piece by piece, then parsed back by the
 * server (a timestamp from its date text). The batch statements (`unnest($1::text[], $2::timestamptz[],
 * ...)`) pass whole batches that way, and the literal made most of what a batch allocates. Given a
 * Buffer, node-postgres sends it as it is, marked binary; PostgreSQL then reads the array as
 * length-prefixed elements: no escaping on either side, a timestamp as its microseconds. Arrays of
 * uuids stay literals: their text needs no escaping, and turning it into 16 bytes here cost more
 * than the server's reading of it.
 *
 * A parameter is sent so only where the statement's text casts every mention of it to one array
 * type named here (`$3::text[]`), which fixes the type the server expects, and only when every
 * element is a value of that type as this module writes it (a string, a valid Date, an integer in
 * range, a boolean); any other array is sent as node-postgres sends it, so the
 * server answers it as before (its errors included).
 */

/** How one element is measured and written; `undefined` from `size` means the array is not ours to write. */
interface ElementType {
  readonly oid: number
  /** The element's bytes, or undefined when the value is not one this type writes. */
  readonly size: (value: unknown) => number | undefined
  readonly write: (value: unknown, buffer: Buffer, offset: number, size: number) => void
}

const text: ElementType = {
  oid: 25,
  size: (value) => typeof value === "string" ? Buffer.byteLength(value, "utf8") : undefined,
  write: (value, buffer, offset, size) => {
    buffer.write(value as string, offset, size, "utf8")
  }
}

/** PostgreSQL's epoch (2000-01-01T00:00:00Z) in Unix milliseconds: its timestamps count microseconds from there. */
const POSTGRES_EPOCH_MS = 946_684_800_000
const TWO_TO_32 = 4_294_967_296

/** An integer of up to 53 bits as a signed 64-bit big-endian integer. */
const writeInt64 = (integer: number, buffer: Buffer, offset: number) => {
  const high = Math.floor(integer / TWO_TO_32)
  buffer.writeInt32BE(high, offset)
  buffer.writeUInt32BE(integer - high * TWO_TO_32, offset + 4)
}

const timestamptz: ElementType = {
  oid: 1184,
  size: (value) => value instanceof Date && !Number.isNaN(value.getTime()) ? 8 : undefined,
  write: (value, buffer, offset) => writeInt64(((value as Date).getTime() - POSTGRES_EPOCH_MS) * 1000, buffer, offset)
}

const int4: ElementType = {
  oid: 23,
  size: (value) => Number.isInteger(value) && (value as number) >= -2_147_483_648 && (value as number) <= 2_147_483_647 ? 4 : undefined,
  write: (value, buffer, offset) => {
    buffer.writeInt32BE(value as number, offset)
  }
}

const int8: ElementType = {
  oid: 20,
  size: (value) => Number.isSafeInteger(value) ? 8 : undefined,
  write: (value, buffer, offset) => writeInt64(value as number, buffer, offset)
}

const bool: ElementType = {
  oid: 16,
  size: (value) => typeof value === "boolean" ? 1 : undefined,
  write: (value, buffer, offset) => {
    buffer[offset] = value === true ? 1 : 0
  }
}

const types: Record<string, ElementType> = {
  bool,
  boolean: bool,
  text,
  timestamptz,
  int4,
  int: int4,
  integer: int4,
  int8,
  bigint: int8
}

/**
 * The array in binary format: dimensions (1), whether it holds nulls, the element type, the length
 * and lower bound (1), then each element as its length (-1 for null) and its bytes. Undefined when
 * an element is not one the type writes.
 */
const encodeArray = (type: ElementType, values: ReadonlyArray<unknown>): Buffer | undefined => {
  const count = values.length
  if (count === 0) {
    const empty = Buffer.allocUnsafe(12)
    empty.writeInt32BE(0, 0)
    empty.writeInt32BE(0, 4)
    empty.writeInt32BE(type.oid, 8)
    return empty
  }
  const sizes = new Int32Array(count)
  let total = 20
  let nulls = 0
  for (let i = 0; i < count; i++) {
    const value = values[i]
    if (value === null || value === undefined) {
      sizes[i] = -1
      nulls = 1
      total += 4
      continue
    }
    const size = type.size(value)
    if (size === undefined) return undefined
    sizes[i] = size
    total += 4 + size
  }
  const buffer = Buffer.allocUnsafe(total)
  buffer.writeInt32BE(1, 0)
  buffer.writeInt32BE(nulls, 4)
  buffer.writeInt32BE(type.oid, 8)
  buffer.writeInt32BE(count, 12)
  buffer.writeInt32BE(1, 16)
  let offset = 20
  for (let i = 0; i < count; i++) {
    const size = sizes[i]!
    buffer.writeInt32BE(size, offset)
    offset += 4
    if (size < 0) continue
    type.write(values[i], buffer, offset, size)
    offset += size
  }
  return buffer
}

/** Each parameter (0-based) that every mention of casts to one array type of {@link types}, with that type. */
type ArrayParameters = ReadonlyArray<readonly [index: number, type: ElementType]>

const MENTION = /\$(\d+)(?!\d)(::([a-z0-9_]+)\[\])?/gi

export const arrayParametersOf = (statement: string): ArrayParameters => {
  // Per parameter: the one array type all its mentions are cast to, or null once they disagree.
  const found = new Map<number, ElementType | null>()
  for (const mention of statement.matchAll(MENTION)) {
    const index = Number(mention[1]) - 1
    const cast = mention[3]?.toLowerCase()
    const type = cast === undefined ? undefined : types[cast]
    const before = found.get(index)
    found.set(index, type === undefined || (before !== undefined && before !== type) ? null : type)
  }
  const parameters: Array<readonly [number, ElementType]> = []
  for (const [index, type] of found) if (type !== null) parameters.push([index, type])
  return parameters
}

/** Statements whose array parameters were looked for, at most; past it a statement's text is read each time. */
const MAX_STATEMENTS = 2_000

/**
 * A function that gives a statement's values with its array parameters in binary format where
 * they can be (see above); other values, and the array itself when it is not ours to write, are
 * left as they are. The values are copied only when one of them changes.
 */
export const makeArrayParameterEncoder = () => {
  const statements = new Map<string, ArrayParameters>()
  return (statement: string, values: ReadonlyArray<unknown>): ReadonlyArray<unknown> => {
    let parameters: ArrayParameters | undefined
    let copy: Array<unknown> | undefined
    for (let i = 0; i < values.length; i++) {
      const value = values[i]
      if (!Array.isArray(value)) continue
      if (parameters === undefined) {
        parameters = statements.get(statement)
        if (parameters === undefined) {
          parameters = arrayParametersOf(statement)
          if (statements.size < MAX_STATEMENTS) statements.set(statement, parameters)
        }
        if (parameters.length === 0) return values
      }
      const type = parameters.find(([index]) => index === i)?.[1]
      if (type === undefined) continue
      const encoded = encodeArray(type, value)
      if (encoded === undefined) continue
      copy ??= values.slice()
      copy[i] = encoded
    }
    return copy ?? values
  }
}
