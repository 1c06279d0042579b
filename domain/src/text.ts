/**
 * Text the service can store anywhere: no NUL character (PostgreSQL keeps none in text or JSON)
 * and no half of a surrogate pair (no character at all, and not encodable as UTF-8).
 */
const unstorable = /[\u0000\p{Cs}]/u

export const isStorableText = (s: string): boolean => !unstorable.test(s)

export const UNSTORABLE_TEXT = "must be valid Unicode text without NUL characters"

/** Whether every key and string inside a JSON value is storable text. */
export const isStorableJson = (value: unknown): boolean => {
  if (typeof value === "string") return isStorableText(value)
  if (Array.isArray(value)) return value.every(isStorableJson)
  if (value !== null && typeof value === "object") {
    return Object.entries(value).every(([key, inner]) => isStorableText(key) && isStorableJson(inner))
  }
  return true
}

/**
 * Whether `s` has more than `max` characters (code points, as people count them). A string never
 * has more code points than UTF-16 units, so only a long one is counted.
 */
export const longerThan = (s: string, max: number): boolean => s.length > max && [...s].length > max
