import { Headers, HttpServerError, type HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect, Either } from "effect"
import { isUtf8 } from "node:buffer"
import type { IncomingMessage } from "node:http"

/** Why a body could not be taken as text. */
export type BodyTextRefusal = "too_large" | "unreadable" | "not_utf8"

/**
 * The body of a request as UTF-8 text, read up to `maxBytes` (past them the connection is closed).
 * Bytes that are not UTF-8 are refused rather than replaced: a value must never change on the way in.
 */
export const readBodyText = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number
): Effect.Effect<Either.Either<string, BodyTextRefusal>> =>
  readIncomingText(NodeHttpServerRequest.toIncomingMessage(request), maxBytes)

/** `readBodyText` of the Node request itself, for the lane that answers before the HttpApi. */
export const readIncomingText = (
  source: IncomingMessage,
  maxBytes: number
): Effect.Effect<Either.Either<string, BodyTextRefusal>> =>
  Effect.async<Either.Either<string, BodyTextRefusal>>((resume) => {
    const chunks: Array<Buffer> = []
    let bytes = 0
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes > maxBytes) {
        cleanup()
        source.destroy()
        return resume(Effect.succeed(Either.left("too_large")))
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
      const text = body.toString("utf8")
      // A replacement character is where bytes that are not UTF-8 would show; only then are the bytes checked.
      resume(Effect.succeed(text.includes("\uFFFD") && !isUtf8(body) ? Either.left("not_utf8") : Either.right(text)))
    }
    const onError = () => {
      cleanup()
      resume(Effect.succeed(Either.left("unreadable")))
    }
    const cleanup = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      source.off("aborted", onError)
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    source.on("aborted", onError)
    return Effect.sync(cleanup)
  })

/** What a body that could not be taken as text is told, field `body`, where it is not too large. */
export const bodyTextProblem = (refusal: Exclude<BodyTextRefusal, "too_large">): string =>
  refusal === "not_utf8" ? "is not valid UTF-8" : "could not be read"

/**
 * The request with its body already read as `text`: the endpoint reads that text (as text, JSON
 * or bytes) rather than the stream, which is spent, and is told it is JSON, so that a form's or a
 * file's type on an empty body does not send it to read a form from that spent stream. Everything
 * else is the request's own.
 */
export const withBodyText = (
  request: HttpServerRequest.HttpServerRequest,
  text: string
): HttpServerRequest.HttpServerRequest => {
  const json = Effect.try({
    try: () => (text === "" ? null : JSON.parse(text) as unknown),
    catch: (cause) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  })
  // Made when first asked for: most requests already say JSON, and few endpoints read the headers.
  let headers: Headers.Headers | undefined
  return new Proxy(request, {
    get(target, property) {
      switch (property) {
        case "headers":
          return headers ??= target.headers["content-type"] === "application/json"
            ? target.headers
            : Headers.set(target.headers, "content-type", "application/json")
        case "text":
          return Effect.succeed(text)
        case "unsafeText":
          return text
        case "json":
          return json
        case "unsafeJson":
          return Effect.runSync(json)
        case "arrayBuffer":
          return Effect.sync(() => new TextEncoder().encode(text).buffer)
        case "modify":
          return (options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) =>
            withBodyText(target.modify(options), text)
      }
      const value = Reflect.get(target, property, target)
      return typeof value === "function" ? value.bind(target) : value
    }
  })
}
