import { HttpApiSchema } from "@effect/platform"
import {
  EmailAddress,
  MAX_DESCRIPTION_LENGTH,
  MAX_EMAIL_LENGTH,
  MAX_METADATA_KEYS,
  MAX_SLUG_LENGTH,
  MAX_TAG_NAME_LENGTH,
  Metadata,
  Slug,
  TagDescription,
  TagName
} from "@roster/domain"
import { MAX_SEARCH_LENGTH } from "@roster/application"
import { Schema, type SchemaAST } from "effect"

/**
 * Field schemas shared by the reference form's requests and responses. Inputs decode with the
 * domain's schemas; `jsonSchema` annotations say in OpenAPI what those schemas check.
 */

/**
 * Request bodies and query strings are read strictly: an unknown field is a 400 naming it, and
 * every bad field is reported, not only the first.
 */
export const strictInput = { parseOptions: { onExcessProperty: "error", errors: "all" } } as const

/** A literal union whose failure reads as one message listing the allowed values. */
export const oneOf = <const Literals extends readonly [SchemaAST.LiteralValue, ...Array<SchemaAST.LiteralValue>]>(
  schema: Schema.Literal<Literals>,
  description: string
): Schema.Literal<Literals> =>
  schema.annotations({
    description,
    message: () => ({ message: `must be one of: ${schema.literals.join(", ")}`, override: true })
  })

/** A success answered with another status than 200, still described by its named schema. */
export const withStatus = <S extends Schema.Schema.Any>(schema: S, status: number, identifier: string): S =>
  schema.annotations(HttpApiSchema.annotations({ status, identifier })) as S

export const Uuid = Schema.String.annotations({ jsonSchema: { type: "string", format: "uuid" } })

export const Timestamp = Schema.String.annotations({
  jsonSchema: { type: "string", format: "date-time", description: "ISO 8601, UTC" }
})

/** An id in a path, query or body: a UUID in any letter case. */
export const IdInput = <S extends Schema.Schema.Any>(schema: S, description: string): S =>
  schema.annotations({ jsonSchema: { type: "string", format: "uuid", description } }) as S

/**
 * What `EmailAddress` accepts, as a JSON Schema pattern (ECMAScript with Unicode): one `@`; a local
 * part of 1 to 64 characters without spaces, control characters, `"(),:;<>[\]` or a dot at either
 * end or twice in a row; a domain of at least two labels of letters, digits and inner hyphens (any
 * script), the last not all digits. `format: email` alone would allow what is refused (`a@[10.0.0.1]`,
 * `"a b"@example.com`) and refuse what is taken (`ünïcödé@exämple.com`).
 */
export const EMAIL_PATTERN = "^(?![.])(?!.*[.][.])(?!.*[.]@)" +
  "[^\\s\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\"(),:;<>\\[\\\\\\]@]{1,64}@" +
  "(?:[\\p{L}\\p{N}](?:[\\p{L}\\p{N}\\p{M}-]{0,61}[\\p{L}\\p{N}\\p{M}])?[.])+" +
  "(?![0-9]+$)[\\p{L}\\p{N}](?:[\\p{L}\\p{N}\\p{M}-]{0,61}[\\p{L}\\p{N}\\p{M}])?$"

export const EmailInput = (description: string) =>
  EmailAddress.annotations({
    jsonSchema: {
      type: "string",
      format: "idn-email",
      pattern: EMAIL_PATTERN,
      maxLength: MAX_EMAIL_LENGTH,
      description: `${description}; internationalized addresses are taken, and \`pattern\` is what is accepted once spaces around it are trimmed`
    }
  })

export const TagNameInput = (description: string) =>
  TagName.annotations({
    jsonSchema: { type: "string", minLength: 1, maxLength: MAX_TAG_NAME_LENGTH, description: `${description}; trimmed` }
  })

export const SlugInput = (description: string) =>
  Slug.annotations({
    jsonSchema: { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$", maxLength: MAX_SLUG_LENGTH, description }
  })

export const DescriptionInput = Schema.NullOr(
  TagDescription.annotations({ jsonSchema: { type: "string", maxLength: MAX_DESCRIPTION_LENGTH } })
).annotations({ description: `at most ${MAX_DESCRIPTION_LENGTH} characters; null clears it` })

const metadataJsonSchema = (description?: string) => ({
  type: "object",
  description: `free key/value map (any JSON values), at most ${MAX_METADATA_KEYS} keys and 16 KiB as JSON${
    description === undefined ? "" : `; ${description}`
  }`,
  maxProperties: MAX_METADATA_KEYS,
  additionalProperties: true
})

/**
 * Why a metadata value cannot be kept exactly as sent, or `undefined`: a `__proto__` key (it
 * would become the map's prototype) or a number JSON cannot write back (`1e999` reads as
 * Infinity). Walks without recursion.
 */
const unkeepable = (root: unknown): string | undefined => {
  const pending: Array<unknown> = [root]
  while (pending.length > 0) {
    const value = pending.pop()
    if (typeof value === "number" && !Number.isFinite(value)) return "numbers must be finite"
    if (typeof value !== "object" || value === null) continue
    for (const key of Object.keys(value)) {
      if (key === "__proto__") return "keys must not be __proto__"
      pending.push((value as Record<string, unknown>)[key])
    }
  }
  return undefined
}

/** Metadata as a client sends it: the domain's rules, and only values that can be kept as sent. */
export const MetadataInput = (description?: string) =>
  Schema.Unknown.pipe(
    Schema.filter(unkeepable),
    Schema.compose(Metadata, { strict: false })
  ).annotations({ jsonSchema: metadataJsonSchema(description) })

/** At most this many ids in one request. */
export const MAX_IDS_PER_REQUEST = 1000

/** A list of ids; an overlong list is refused before any id is read. */
export const IdListInput = <A>(id: Schema.Schema<A, string>, description: string) =>
  Schema.Array(Schema.Unknown).pipe(
    Schema.maxItems(MAX_IDS_PER_REQUEST, { message: () => `must hold at most ${MAX_IDS_PER_REQUEST} ids` }),
    Schema.compose(Schema.Array(id), { strict: false })
  ).annotations({
    jsonSchema: {
      type: "array",
      items: { type: "string", format: "uuid" },
      maxItems: MAX_IDS_PER_REQUEST,
      description
    }
  })

export const MetadataOutput = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  jsonSchema: metadataJsonSchema()
})

/** The start of the emails a subscriber list is searched for; the use case refuses too long a text. */
export const SearchInput = Schema.String.annotations({
  jsonSchema: {
    type: "string",
    maxLength: MAX_SEARCH_LENGTH,
    description: `subscribers whose email starts with this text, letter case ignored; at most ${MAX_SEARCH_LENGTH} characters`
  }
})

export const Count = (description: string) =>
  Schema.Int.annotations({ jsonSchema: { type: "integer", minimum: 0, description } })
