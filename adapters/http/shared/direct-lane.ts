import {
  HttpApi,
  type HttpApiEndpoint,
  HttpApiError,
  type HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpServerError,
  HttpServerResponse
} from "@effect/platform"
import { ApiKeys, type Principal, RateLimits } from "@roster/application"
import { Cause, Context, Effect, Either, FiberRef, Option, type ParseResult, Runtime, Schema } from "effect"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { isApiError } from "./api-error.js"
import { apiKeyScheme, presentedApiKey } from "./api-key.js"
import { apiErrorOf, type ApplicationError } from "./application-errors.js"
import { compressedAnswer } from "./compression.js"
import { ErrorRenderer } from "./error-renderer.js"
import { decodeErrorAnswer, defectAnswer, invalidAnswer, MAX_BODY_BYTES, MAX_BODY_DEPTH } from "./failure-answers.js"
import { jsonNestingDepth } from "./json-depth.js"
import { makeWithinOrganizationLimit } from "./rate-limit-middleware.js"
import { bodyTextProblem, readIncomingText } from "./request-body.js"
import { CurrentRequestId, logRequestLine, RequestLines, type RequestObserver, requestIdOf, requestLineOf, tagAnswer } from "./request-log.js"
import { FileBody, FormBody, routesOf } from "./route-table.js"

/**
 * The direct lane: the busiest requests (an API key reading or creating one subscriber) served
 * straight from the Node server, with one fiber per request and nothing built per request, beside
 * the HttpApi that serves everything else. It answers exactly what the HttpApi answers: the same
 * use cases, checks, error bodies, `X-Request-Id`, compression and request log line.
 *
 * A route of the lane is declared by naming an endpoint of the API and the use case it runs
 * (`directRoute`); its method, path template, path and payload schemas, and the statuses and
 * schemas of its successes are read from the endpoint's definition once, when the lane is built.
 *
 * A request is counted against its organization's rate limit as the HttpApi's middleware counts
 * it, through the same function (rate-limit-middleware.ts): the same key and limiter, the same
 * `X-RateLimit-*` headers on every answer, the same 429 past the limit (its body left unread).
 *
 * A request is taken only when its route is one of the lane's and it presents an API key (read as
 * the HttpApi's authentication reads it, api-key.ts); it is handed on to the HttpApi, untouched
 * (its body unread and nothing counted), when the key does not establish a principal. Requests
 * with an `Idempotency-Key`, a query string, an unusual body or a path parameter that is
 * percent-encoded or does not decode are not taken at all.
 */

/** What a route of the lane answers for the principal of the request. */
export type DirectAnswer = (principal: Principal) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>

/** A route of the lane: its answer when it takes the request (whose path has no query), else `undefined`. */
export type DirectRoute = (request: IncomingMessage, path: string) => DirectAnswer | undefined

/**
 * Serves a request and answers `true`, or answers `false` when the request is not the lane's; it
 * may hand a request it took on to the HttpApi later with `regular`.
 */
export type DirectLane = (request: IncomingMessage, response: ServerResponse, regular: () => void) => boolean

/** A request body the lane reads itself: JSON of a declared length within the limit, sent at once. */
export const hasPlainJsonBody = (request: IncomingMessage): boolean => {
  const { headers } = request
  if (headers["transfer-encoding"] !== undefined || headers["idempotency-key"] !== undefined) return false
  const contentType = headers["content-type"]
  if (contentType !== "application/json" && contentType !== "application/json; charset=utf-8") return false
  const length = Number(headers["content-length"])
  return Number.isInteger(length) && length > 0 && length <= MAX_BODY_BYTES
}

/** A failure of the body itself: answered as the HttpApi's middleware answers it. */
class BodyRefused {
  readonly _tag = "BodyRefused"
  constructor(readonly field: string, readonly message: string) {}
}

/**
 * The JSON body of a request, checked as the HttpApi's middleware checks it (readable, nested at
 * most 32 deep, valid JSON), then decoded with `decode` as the endpoint decodes its payload.
 */
export const readJsonBody = <A>(
  request: IncomingMessage,
  decode: (u: unknown) => Either.Either<A, ParseResult.ParseError>
): Effect.Effect<A, BodyRefused | HttpApiError.HttpApiDecodeError> =>
  Effect.flatMap(
    readIncomingText(request, MAX_BODY_BYTES),
    (read): Effect.Effect<A, BodyRefused | HttpApiError.HttpApiDecodeError> => {
      // The lane takes only bodies whose declared length is within the limit (`hasPlainJsonBody`).
      if (Either.isLeft(read)) {
        return Effect.fail(new BodyRefused("body", bodyTextProblem(read.left === "too_large" ? "unreadable" : read.left)))
      }
      const text = read.right
      if (jsonNestingDepth(text) > MAX_BODY_DEPTH) {
        return Effect.fail(new BodyRefused("body", `must not nest arrays and objects more than ${MAX_BODY_DEPTH} levels deep`))
      }
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        return Effect.fail(new BodyRefused("body", "is not valid JSON"))
      }
      const decoded = decode(json)
      return Either.isRight(decoded)
        ? Effect.succeed(decoded.right)
        : Effect.flatMap(HttpApiError.HttpApiDecodeError.fromParseError(decoded.left), Effect.fail)
    }
  )

/** What a route of the lane hands its use case: the path and payload of its endpoint, decoded as the endpoint decodes them. */
export type DirectRequest<Endpoint extends HttpApiEndpoint.HttpApiEndpoint.Any> = Omit<
  HttpApiEndpoint.HttpApiEndpoint.Request<Endpoint>,
  "request"
>

type EndpointOf<Groups extends HttpApiGroup.HttpApiGroup.Any, GroupName extends string, Name extends string> =
  HttpApiEndpoint.HttpApiEndpoint.WithName<
    HttpApiGroup.HttpApiGroup.Endpoints<HttpApiGroup.HttpApiGroup.WithName<Groups, GroupName>>,
    Name
  >

/** Whether a request carries a body at all: a length above zero, or one sent in chunks. */
const carriesBody = (request: IncomingMessage): boolean =>
  request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0

/** The endpoint named `group`.`name` of `api` as the HttpApi reflects it; refuses one the lane cannot serve as the HttpApi does. */
const reflectedEndpoint = (api: HttpApi.HttpApi.AnyWithProps, group: string, name: string) => {
  let found: Parameters<Parameters<typeof HttpApi.reflect>[1]["onEndpoint"]>[0] | undefined
  HttpApi.reflect(api, {
    predicate: (candidate) => candidate.group.identifier === group && candidate.endpoint.name === name,
    onGroup: () => {},
    onEndpoint: (reflected) => {
      found = reflected
    }
  })
  const refuse = (reason: string): never => {
    throw new Error(`the direct lane cannot serve ${group}.${name}: ${reason}`)
  }
  if (found === undefined) return refuse("the API has no such endpoint")
  const { endpoint, middleware, payloads, successes } = found
  if (Option.isSome(endpoint.urlParamsSchema) || Option.isSome(endpoint.headersSchema)) {
    refuse("it reads query parameters or headers")
  }
  // The lane establishes the principal from the API key itself, and runs no other middleware.
  if (middleware.size === 0) refuse("it is not behind an authentication by API key")
  for (const tag of middleware) {
    if (!HttpApiMiddleware.isSecurity(tag) || !Object.values(tag.security).includes(apiKeyScheme)) {
      refuse(`its middleware ${tag.key} is not an authentication by API key`)
    }
  }
  if (Context.getOrElse(endpoint.annotations, FileBody, () => false) || Context.getOrElse(endpoint.annotations, FormBody, () => false)) {
    refuse("its body is not JSON")
  }
  for (const [contentType, { encoding }] of payloads) {
    if (encoding.kind !== "Json" || contentType !== encoding.contentType) refuse("its payload is not JSON")
  }
  if (successes.size === 0) refuse("it answers no success")
  for (const [, success] of successes) {
    if (Option.isSome(success.ast) && HttpApiSchema.getEncoding(success.ast.value).kind !== "Json") {
      refuse("its success is not JSON")
    }
  }
  return { endpoint }
}

/**
 * The successes of an endpoint, in the order it declares them, each with its status and encoder:
 * a value is answered by the first whose schema encodes it, as the HttpApi's union of successes
 * answers it (a create answering 201 with a subscriber or 202 with a confirmation asked for).
 */
const successAnswers = (endpoint: { readonly successSchema: Schema.Schema.Any }) => {
  const members = new Set<Schema.Schema.Any>()
  HttpApiSchema.deunionize(members, endpoint.successSchema)
  return [...members].map((member) => ({
    status: HttpApiSchema.getStatusSuccess(member),
    encode: Schema.encodeEither(member as Schema.Schema<unknown, unknown>),
    contentType: HttpApiSchema.isVoid(member.ast) ? undefined : HttpApiSchema.getEncoding(member.ast).contentType
  }))
}

/** A parameter of a path template (`:subscriber_id`); the router's other patterns the lane does not read. */
const parameterOf = (segment: string): string | undefined => /^:([A-Za-z_][A-Za-z0-9_]*)$/.exec(segment)?.[1]

/**
 * Reads the path parameters of a request path by `template`, or `undefined` when the path is not
 * the template's. A parameter that is empty, percent-encoded, or that another
 * route of the API with the same method has as a fixed segment at its place (which the router
 * would prefer) is not read: the HttpApi routes such a request.
 */
const makePathReader = (api: HttpApi.HttpApi.AnyWithProps, method: string, template: string) => {
  const segments = template.split("/").slice(1)
  for (const segment of segments) {
    if (parameterOf(segment) === undefined && /[:*()?]/.test(segment)) {
      throw new Error(`the direct lane cannot read the path ${template}: ${segment} is not a fixed segment or a plain parameter`)
    }
  }
  // Where the template has a parameter, a fixed segment of another route of the method is that route's.
  const rivals = routesOf(api)
    .filter((route) => route.method === method && route.path !== template)
    .map((route) => route.path.split("/").slice(1))
    .filter((rival) => rival.length === segments.length)
  const places = segments.flatMap((segment, i) => {
    const name = parameterOf(segment)
    if (name === undefined) return []
    const fixed = rivals.map((rival) => rival[i]!).filter((rival) => parameterOf(rival) === undefined)
    return [{ index: i + 1, name, shadowedBy: new Set(fixed) }]
  })
  if (places.length === 0) {
    const none = {}
    return (path: string): Readonly<Record<string, string>> | undefined => path === template ? none : undefined
  }
  const parts = template.split("/")
  return (path: string): Readonly<Record<string, string>> | undefined => {
    const given = path.split("/")
    if (given.length !== parts.length) return undefined
    for (let i = 1; i < parts.length; i++) {
      if (parts[i]![0] !== ":" && given[i] !== parts[i]) return undefined
    }
    const params: Record<string, string> = {}
    for (const { index, name, shadowedBy } of places) {
      const value = given[index]!
      if (value === "" || value.includes("%") || value.includes(";") || shadowedBy.has(value)) return undefined
      params[name] = value
    }
    return params
  }
}

/**
 * A route of the lane for the endpoint `group`.`name` of `api`, running `answer` with the
 * request's decoded path and payload and the principal of its API key, as the endpoint's handler
 * does; the use case's failures are answered as the handlers answer them.
 *
 * Everything about the wire is the endpoint's: its method and path template, the path schema (a
 * parameter that does not decode is the HttpApi's to answer), the payload schema (a JSON body is
 * read by the lane), and the statuses, encodings and schemas of its successes. The endpoint must
 * stand behind an authentication by API key and nothing else, take no query parameters or
 * headers, and speak JSON; the lane is not built otherwise.
 */
export const directRoute = <
  Groups extends HttpApiGroup.HttpApiGroup.Any,
  const GroupName extends HttpApiGroup.HttpApiGroup.Name<Groups>,
  const Name extends HttpApiEndpoint.HttpApiEndpoint.Name<
    HttpApiGroup.HttpApiGroup.Endpoints<HttpApiGroup.HttpApiGroup.WithName<Groups, GroupName>>
  >,
  ApiError,
  ApiR
>(
  api: HttpApi.HttpApi<string, Groups, ApiError, ApiR>,
  group: GroupName,
  name: Name,
  answer: (
    request: DirectRequest<EndpointOf<Groups, GroupName, Name>>,
    principal: Principal
  ) => Effect.Effect<HttpApiEndpoint.HttpApiEndpoint.Success<EndpointOf<Groups, GroupName, Name>>, ApplicationError>
): DirectRoute => {
  const reflectable = api as unknown as HttpApi.HttpApi.AnyWithProps
  const { endpoint } = reflectedEndpoint(reflectable, group, name)
  const { method } = endpoint
  const pathOf = makePathReader(reflectable, method, endpoint.path)
  const decodePath = Option.map(endpoint.pathSchema, (schema) => Schema.decodeUnknownEither(schema))
  const decodePayload = Option.map(endpoint.payloadSchema, (schema) => Schema.decodeUnknownEither(schema))
  const answers = successAnswers(endpoint)

  /** The success answered as the HttpApi answers it: encoded by the first of its schemas that takes it, with that one's status. */
  const respond = (value: unknown): Effect.Effect<HttpServerResponse.HttpServerResponse, HttpApiError.HttpApiDecodeError> => {
    let refused: ParseResult.ParseError | undefined
    for (const { contentType, encode, status } of answers) {
      if (contentType === undefined) return Effect.succeed(HttpServerResponse.empty({ status }))
      const encoded = encode(value)
      if (Either.isRight(encoded)) return Effect.succeed(HttpServerResponse.unsafeJson(encoded.right, { status, contentType }))
      refused ??= encoded.left
    }
    return Effect.flatMap(HttpApiError.HttpApiDecodeError.fromParseError(refused!), Effect.fail)
  }
  const run = (decoded: Record<string, unknown>, principal: Principal) =>
    answer(decoded as DirectRequest<EndpointOf<Groups, GroupName, Name>>, principal).pipe(
      Effect.mapError((error) => apiErrorOf(error, principal.credential)),
      Effect.flatMap(respond)
    )

  return (request, path) => {
    if (request.method !== method) return undefined
    const params = pathOf(path)
    if (params === undefined) return undefined
    if (Option.isSome(decodePayload) ? !hasPlainJsonBody(request) : carriesBody(request)) return undefined
    const decoded: Record<string, unknown> = {}
    if (Option.isSome(decodePath)) {
      // A path parameter that does not decode is the HttpApi's to answer.
      const pathDecoded = decodePath.value(params)
      if (Either.isLeft(pathDecoded)) return undefined
      decoded.path = pathDecoded.right
    }
    if (Option.isNone(decodePayload)) return (principal) => run(decoded, principal)
    const decodeBody = decodePayload.value
    return (principal) =>
      Effect.flatMap(readJsonBody(request, decodeBody), (payload) => run({ ...decoded, payload }, principal))
  }
}

/** Writes an answer to the Node response, as the platform's server writes it. */
const write = (response: ServerResponse, answer: HttpServerResponse.HttpServerResponse) => {
  if (response.writableEnded) return
  const body = answer.body
  response.writeHead(answer.status, answer.headers)
  if (body._tag === "Uint8Array") response.end(body.body)
  else if (body._tag === "Raw" && typeof body.body === "string") response.end(body.body)
  else response.end()
}

export interface DirectLaneOptions {
  readonly routes: ReadonlyArray<DirectRoute>
  /** Told of every request the lane answers (the metrics, when they are served). */
  readonly observe?: RequestObserver | undefined
}

/** The lane over `routes`; needs the API keys, the rate limits and the form's error renderer. */
export const makeDirectLane = (options: DirectLaneOptions) =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const { render } = yield* ErrorRenderer
    const withinOrganizationLimit = makeWithinOrganizationLimit(yield* RateLimits, render)
    const requestLines = yield* RequestLines
    // The lane's fibers carry no services in their context (the use cases hold theirs): every
    // scope or service a fiber adds copies its context, which would otherwise be the whole app's.
    const { fiberRefs, runtimeFlags } = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(Runtime.make({ context: Context.empty(), fiberRefs, runtimeFlags }))
    const { observe, routes } = options

    /** The answer to whatever `answer` failed with, in the form's error body. */
    const answerCause = (instance: string) => (cause: Cause.Cause<unknown>) => {
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) {
        const error = failure.value
        if (isApiError(error)) return Effect.succeed(render(error, instance))
        if (error instanceof HttpApiError.HttpApiDecodeError) return Effect.succeed(decodeErrorAnswer(render, instance, error))
        if (error instanceof BodyRefused) {
          return Effect.succeed(invalidAnswer(render, instance, [{ field: error.field, message: error.message }]))
        }
      }
      return defectAnswer(render, instance, cause)
    }

    const lane: DirectLane = (request, response, regular) => {
      const path = request.url!
      if (path.includes("?")) return false
      const presented = presentedApiKey(request.headers)
      if (presented === undefined) return false
      let answer: DirectAnswer | undefined
      for (let i = 0; i < routes.length && answer === undefined; i++) answer = routes[i]!(request, path)
      if (answer === undefined) return false
      const taken = answer

      const startedAt = Date.now()
      const requestId = requestIdOf(request.headers["x-request-id"] as string | undefined)
      const served = Effect.flatMap(Effect.either(apiKeys.authenticate(presented)), (outcome) => {
        // The HttpApi answers a refused key (and counts it against the client address).
        if (Either.isLeft(outcome)) return Effect.succeed(false)
        const principal = outcome.right
        return Effect.zipRight(
          FiberRef.set(CurrentRequestId, requestId),
          withinOrganizationLimit(principal, Effect.catchAllCause(taken(principal), answerCause(path)), path).pipe(
            Effect.map((answered) => tagAnswer(answered, requestId)),
            Effect.flatMap((answered) => compressedAnswer(request.headers["accept-encoding"], answered)),
            Effect.flatMap((answered) => {
              write(response, answered)
              const durationMs = Date.now() - startedAt
              observe?.(request.method!, path, answered.status, durationMs)
              return Effect.as(
                logRequestLine(requestLines, requestId, () =>
                  requestLineOf({
                    method: request.method!,
                    path,
                    status: answered.status,
                    durationMs,
                    clientAddress: request.socket.remoteAddress ?? null,
                    userAgent: request.headers["user-agent"] ?? null,
                    principal
                  })),
                true
              )
            })
          )
        )
      })
      const fiber = runFork(served)
      fiber.addObserver((exit) => {
        if (exit._tag === "Success" && !exit.value) regular()
      })
      response.once("close", () => {
        if (!response.writableEnded) fiber.unsafeInterruptAsFork(HttpServerError.clientAbortFiberId)
      })
      return true
    }
    return lane
  })

/**
 * Gives a Node server's requests to `lane` first; those it does not take, or hands on, go to the
 * server's own request listeners (the HttpApi).
 */
export const withDirectLane = (server: Server, lane: DirectLane): Server => {
  const emit = server.emit as (this: Server, event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = function(this: Server, event: string | symbol, ...args: Array<unknown>): boolean {
    if (event === "request") {
      const [request, response] = args as [IncomingMessage, ServerResponse]
      if (lane(request, response, () => emit.call(this, event, request, response))) return true
    }
    return emit.call(this, event, ...args)
  } as Server["emit"]
  return server
}
