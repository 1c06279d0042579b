import { Schema } from "effect"
import { type PlainReason, reason, reasonTextOf } from "./reason.js"
import { isStorableJson } from "./text.js"

export const MAX_METADATA_KEYS = 64
export const MAX_METADATA_BYTES = 16 * 1024
export const MAX_METADATA_KEY_LENGTH = 100

const utf8Length = (s: string): number => new TextEncoder().encode(s).length

/** Why `value` is not acceptable metadata, or `undefined`. */
export const metadataReason = (value: Readonly<Record<string, unknown>>): PlainReason | undefined => {
  const keys = Object.keys(value)
  if (keys.length > MAX_METADATA_KEYS) return reason("metadataKeys", { max: MAX_METADATA_KEYS })
  for (const key of keys) {
    if (key.length === 0) return reason("metadataEmptyKey")
    if (key.length > MAX_METADATA_KEY_LENGTH) return reason("metadataKeyTooLong", { max: MAX_METADATA_KEY_LENGTH })
  }
  if (!isStorableJson(value)) return reason("metadataUnstorable")
  if (utf8Length(JSON.stringify(value)) > MAX_METADATA_BYTES) return reason("metadataTooLarge", { max: MAX_METADATA_BYTES })
  return undefined
}

/** {@link metadataReason} in English. */
export const metadataProblem = (value: Readonly<Record<string, unknown>>): string | undefined => reasonTextOf(metadataReason(value))

/** Whether two JSON values are equal, whatever the order of their objects' keys. */
const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]))
  }
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every((key) =>
    Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])
  )
}

/**
 * Whether two maps hold the same JSON, whatever the order of their keys (a database may hand
 * keys back in another order than they were given).
 */
export const sameMetadata = (
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>
): boolean => sameJson(a, b)

/** A free key/value map kept with a subscriber or tag: JSON values, 64 keys and 16 KiB at most. */
export const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
  Schema.filter((value) => metadataProblem(value), {
    identifier: "Metadata",
    description: "free key/value map (JSON values), at most 64 keys and 16 KiB"
  })
)
export type Metadata = typeof Metadata.Type
