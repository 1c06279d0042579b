import { type HttpApiEndpoint, type HttpMethod, OpenApi } from "@effect/platform"
import { JSONSchema, ParseResult, Predicate, Schema } from "effect"
import { operationTransform } from "./openapi-model.js"
import { strictInput } from "./wire-fields.js"

/**
 * The bodies of actions (send, cancel, rotate, delete, sign out...). Every action declares what its
 * body may hold, even nothing, so that a field it does not know is a 400 naming it before anything
 * happens: nothing irreversible runs on a field the service ignored. A request without a body, with
 * an empty one, and with `{}` are alike.
 */

/** What the framework reads from a request that carries no body, whatever its content type says. */
const isAbsent = (body: unknown): boolean =>
  body === null || body === "" || (body instanceof Uint8Array && body.length === 0)

/** Refuses every field of a body that may hold none; a struct without fields would take anything. */
const noFields = Schema.Struct({}).pipe(
  Schema.filter((body) =>
    Object.keys(body).map((key) => ({ path: [key], message: "is unexpected: this action takes no fields" }))
  )
)

/**
 * An action's body: a JSON object of `fields` (every one optional), or none at all, read as `{}`.
 * An unknown field is a 400 naming it.
 */
export const actionBody = <Fields extends Schema.Struct.Fields>(
  identifier: string,
  description: string,
  fields: Fields
): Schema.Schema<Schema.Struct.Type<Fields>, unknown> => {
  const empty = Object.keys(fields).length === 0
  const struct = (empty ? noFields : Schema.Struct(fields).annotations(strictInput)) as unknown as
    Schema.Schema<Schema.Struct.Type<Fields>, unknown>
  const { $schema: _, ...jsonSchema } = empty
    ? { $schema: undefined, type: "object", required: [], properties: {}, additionalProperties: false }
    : JSONSchema.make(Schema.Struct(fields))
  return Schema.transformOrFail(Schema.Unknown, struct, {
    strict: true,
    decode: (body, _options, ast) =>
      isAbsent(body)
        ? ParseResult.succeed({})
        : Predicate.isRecord(body)
        ? ParseResult.succeed(body)
        : ParseResult.fail(new ParseResult.Type(ast, body, "must be a JSON object")),
    encode: ParseResult.succeed
  }).annotations({
    identifier,
    description,
    jsonSchema: { ...jsonSchema, description }
  })
}

/** The body of an action that takes no fields: none, empty, or `{}`. */
export const NoFields = actionBody(
  "NoFields",
  "This action takes no fields: send no body, an empty one, or `{}`. Any field is a 400 naming it.",
  {}
)

/** OpenAPI: the operation's body may be left out. */
export const optionalBody = operationTransform((operation) => {
  if (operation.requestBody !== undefined) {
    operation.requestBody = { ...(operation.requestBody as Record<string, unknown>), required: false }
  }
  return operation
})

/**
 * The endpoint takes no fields: its body is {@link NoFields}, which OpenAPI shows as one that may be
 * left out. For an action that carries nothing but its path (delete, rotate, sign out...).
 */
export const withoutBody = <
  Name extends string,
  Method extends HttpMethod.HttpMethod,
  Path,
  UrlParams,
  Headers,
  Success,
  Error,
  R,
  RE
>(
  endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method, Path, UrlParams, never, Headers, Success, Error, R, RE>
): HttpApiEndpoint.HttpApiEndpoint<Name, Method, Path, UrlParams, typeof NoFields.Type, Headers, Success, Error, R, RE> =>
  // NoFields decodes from anything, so it suits an endpoint of every method.
  (endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint<Name, "POST", Path, UrlParams, never, Headers, Success, Error, R, RE>)
    .setPayload(NoFields)
    .annotate(OpenApi.Transform, optionalBody) as unknown as HttpApiEndpoint.HttpApiEndpoint<
      Name,
      Method,
      Path,
      UrlParams,
      typeof NoFields.Type,
      Headers,
      Success,
      Error,
      R,
      RE
    >
