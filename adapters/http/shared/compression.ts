import { HttpApp, HttpBody, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import Negotiator from "negotiator"
import { brotliCompress, constants, gzip } from "node:zlib"

/** Answers smaller than this go as they are: compressing them saves less than it costs. */
export const MIN_COMPRESSED_BYTES = 2048

type Encoding = "br" | "gzip"

/** Text answers compress well; images, archives and already-encoded bodies do not. */
const compressible = /^(?:application\/(?:json|problem\+json|javascript|xml)|text\/)/

const encodings: Array<Encoding> = ["br", "gzip"]

/**
 * The encoding to answer in, from `Accept-Encoding` (RFC 9110 quality values): the one the client
 * ranks highest, Brotli where it ranks both alike; `undefined` when it accepts neither.
 */
export const preferredEncoding = (acceptEncoding: string | undefined): Encoding | undefined =>
  acceptEncoding === undefined
    ? undefined
    : new Negotiator({ headers: { "accept-encoding": acceptEncoding } }).encoding(encodings, { preferred: encodings }) as
      | Encoding
      | undefined

const compress = (encoding: Encoding, bytes: Uint8Array) =>
  Effect.async<Uint8Array, Error>((resume) => {
    const done = (error: Error | null, result: Buffer) =>
      resume(error === null ? Effect.succeed(new Uint8Array(result.buffer, result.byteOffset, result.byteLength)) : Effect.fail(error))
    if (encoding === "br") {
      brotliCompress(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 5,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength
        }
      }, done)
    } else {
      gzip(bytes, { level: 6 }, done)
    }
  })

/**
 * What a body compressed to, kept while the body itself is kept: the documents and the docs'
 * bundle are the same bytes on every request and are compressed once; other answers are new
 * bytes each time and their entry goes with them.
 */
const compressed = new WeakMap<Uint8Array, Map<Encoding, Uint8Array>>()

const compressedOnce = (encoding: Encoding, bytes: Uint8Array) => {
  const known = compressed.get(bytes)?.get(encoding)
  if (known !== undefined) return Effect.succeed(known)
  return Effect.tap(compress(encoding, bytes), (result) => {
    const byEncoding = compressed.get(bytes) ?? new Map<Encoding, Uint8Array>()
    byEncoding.set(encoding, result)
    compressed.set(bytes, byEncoding)
  })
}

const withVary = (response: HttpServerResponse.HttpServerResponse) => {
  const vary = response.headers["vary"]
  return vary === undefined || vary.trim() === ""
    ? HttpServerResponse.setHeader(response, "vary", "Accept-Encoding")
    : /(^|,)\s*accept-encoding\s*(,|$)/i.test(vary) || vary.trim() === "*"
    ? response
    : HttpServerResponse.setHeader(response, "vary", `${vary}, Accept-Encoding`)
}

/**
 * Compresses text answers of at least 2 KiB (the OpenAPI document, the docs pages, long lists)
 * with Brotli or gzip, as the request's `Accept-Encoding` allows, off the event loop. Answers
 * below that size, bodies of other kinds and answers already encoded go as they are. Every
 * answer that could have been compressed says `Vary: Accept-Encoding`.
 */
export const compressedAnswer = (
  acceptEncoding: string | undefined,
  response: HttpServerResponse.HttpServerResponse
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const body = response.body
  if (body._tag !== "Uint8Array" || body.body.byteLength < MIN_COMPRESSED_BYTES) return Effect.succeed(response)
  if (!compressible.test(body.contentType) || response.headers["content-encoding"] !== undefined) {
    return Effect.succeed(response)
  }
  const varied = withVary(response)
  const encoding = preferredEncoding(acceptEncoding)
  if (encoding === undefined) return Effect.succeed(varied)
  return compressedOnce(encoding, body.body).pipe(
    Effect.map((bytes) =>
      HttpServerResponse.setHeader(
        HttpServerResponse.setBody(varied, HttpBody.uint8Array(bytes, body.contentType)),
        "content-encoding",
        encoding
      )
    ),
    // A body that cannot be compressed still goes, as it is.
    Effect.orElseSucceed(() => varied)
  )
}

/** {@link compressedAnswer} for every answer of `app`. */
export const compressAnswers = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.zipRight(
    HttpApp.appendPreResponseHandler((request, response) => compressedAnswer(request.headers["accept-encoding"], response)),
    app
  )
