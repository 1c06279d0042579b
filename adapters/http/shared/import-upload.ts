import { HttpApp, type HttpServerRequest, HttpServerResponse, Multipart } from "@effect/platform"
import type { ImportJobs, ImportUpload } from "@roster/application"
import { type ImportJob, InvalidInput, reason, UploadTooLarge } from "@roster/domain"
import { Chunk, Effect, Option, Stream } from "effect"
import { type ApiError, apiError } from "./api-error.js"
import { type ImportUploadQuery, MAX_FILE_NAME_LENGTH } from "./import-schemas.js"
import { respond } from "./respond.js"

/**
 * How an import's file comes in over HTTP: as the body (`text/csv`) or as the `file` field of a
 * multipart form, streamed as it arrives (never held whole), with the import's options from the
 * query and the form's fields.
 */

/** Media types taken as a CSV body. */
const csvMediaTypes = new Set(["text/csv", "application/csv", "text/plain"])

const FILE_FIELD = "file"

const formFields = ["resubscribe", "encoding", FILE_FIELD] as const

type Upload = ImportUpload<InvalidInput | UploadTooLarge, never>

const mediaTypeOf = (request: HttpServerRequest.HttpServerRequest): string =>
  (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()

/** The form of an upload, or the 415 that refuses its content type. */
export const uploadForm = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<"csv" | "multipart", ApiError<"unsupported_media_type">> => {
  const mediaType = mediaTypeOf(request)
  if (mediaType === "multipart/form-data") return Effect.succeed("multipart")
  if (csvMediaTypes.has(mediaType)) return Effect.succeed("csv")
  return Effect.fail(apiError(
    "unsupported_media_type",
    `an import takes the CSV file as the body (Content-Type: text/csv) or as the field '${FILE_FIELD}' of ` +
      `multipart/form-data; the request's Content-Type is ${mediaType === "" ? "missing" : `'${mediaType}'`}`
  ))
}

/** A refusal of the upload's form, which only the wire forms meet (the dashboard reads its own). */
const invalid = (field: string, problem: string) => new InvalidInput({ field, reason: reason("foreign", { text: problem }) })

const brokenOff = invalid("body", "could not be read to its end (the upload broke off)")

/** A file name as the import keeps it, or why it cannot be one. */
const fileNameOf = (given: string | undefined): Effect.Effect<string | null, InvalidInput> => {
  if (given === undefined) return Effect.succeed(null)
  const name = given.trim()
  if (name.length > MAX_FILE_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(name)) {
    return Effect.fail(invalid("file_name", `must be at most ${MAX_FILE_NAME_LENGTH} characters, without control characters`))
  }
  return Effect.succeed(name.length === 0 ? null : name)
}

/** The `filename` of a `Content-Disposition` header (RFC 6266), `filename*` first. */
const dispositionFileName = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header)
  if (extended !== null) {
    try {
      return decodeURIComponent(extended[2]!.trim())
    } catch {
      // Not percent-encoded as it should be: the plain name, if any, is taken.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header)
  return plain === null ? undefined : (plain[1]?.replace(/\\(.)/g, "$1") ?? plain[2]!.trim())
}

/** Bytes that fail with `empty` when none came. */
const nonEmpty = <E>(bytes: Stream.Stream<Uint8Array, E>, empty: InvalidInput): Stream.Stream<Uint8Array, E | InvalidInput> =>
  Stream.suspend(() => {
    let seen = 0
    return bytes.pipe(
      Stream.tap((chunk) => Effect.sync(() => void (seen += chunk.byteLength))),
      Stream.concat(Stream.suspend(() => (seen === 0 ? Stream.fail(empty) : Stream.empty)))
    )
  })

const multipartProblem = (error: Multipart.MultipartError): InvalidInput => {
  switch (error.reason) {
    case "FieldTooLarge":
      return invalid("body", "has a form field too long for an option")
    case "TooManyParts":
      return invalid("body", "has too many form fields")
    case "InternalError":
      return brokenOff
    default:
      return invalid("body", "is not valid multipart/form-data")
  }
}

const flagOf = (field: string, value: string): Effect.Effect<boolean, InvalidInput> =>
  value === "true" || value === "false" ? Effect.succeed(value === "true") : Effect.fail(invalid(field, "must be one of: true, false"))

/** The CSV file as the request's body. */
const csvUpload = (request: HttpServerRequest.HttpServerRequest, query: ImportUploadQuery, maxBytes: number) =>
  Effect.gen(function*() {
    const declared = Number(request.headers["content-length"] ?? Number.NaN)
    const body: Stream.Stream<Uint8Array, InvalidInput | UploadTooLarge> = declared > maxBytes
      // Refused before a byte is read.
      ? Stream.fail(new UploadTooLarge({ maxBytes }))
      : request.stream.pipe(Stream.mapError(() => brokenOff))
    const upload: Upload = {
      fileName: yield* fileNameOf(query.file_name ?? dispositionFileName(request.headers["content-disposition"])),
      bytes: nonEmpty(body, invalid("body", "is empty; send the CSV file as the body")),
      resubscribe: query.resubscribe ?? false,
      encoding: query.encoding,
      maxBytes
    }
    return upload
  })

/**
 * The CSV file as the `file` field of a multipart form. The fields before it are read first (they
 * are options); the file streams as the import reads it; a field after it fails the upload.
 */
const multipartUpload = (request: HttpServerRequest.HttpServerRequest, query: ImportUploadQuery, maxBytes: number) =>
  Effect.gen(function*() {
    const pull = yield* Stream.toPull(request.multipartStream.pipe(Stream.mapError(multipartProblem)))
    const fields: { resubscribe?: boolean; encoding?: string } = {}
    const seen = new Set<string>()
    const take = (part: Multipart.Part): Effect.Effect<Multipart.File | undefined, InvalidInput> =>
      Effect.gen(function*() {
        if (!(formFields as ReadonlyArray<string>).includes(part.key)) {
          return yield* invalid(part.key, `is not a field of an import; send ${formFields.join(", ")}`)
        }
        if (seen.has(part.key)) return yield* invalid(part.key, "is given more than once")
        seen.add(part.key)
        if (part.key === FILE_FIELD) {
          if (part._tag === "File") return part
          return yield* invalid(FILE_FIELD, "must be a file part, with a file name (curl -F file=@subscribers.csv)")
        }
        if (part._tag === "File") return yield* invalid(part.key, "must be a plain field, not a file")
        if (part.key === "resubscribe") fields.resubscribe = yield* flagOf(part.key, part.value)
        else fields.encoding = part.value
        return undefined
      })
    /** Parts pulled before the file, with the ones after it in the same pull. */
    let file: Multipart.File | undefined
    let after: Chunk.Chunk<Multipart.Part> = Chunk.empty()
    while (file === undefined) {
      const parts = yield* Effect.catchAll(pull, Option.match({ onNone: () => Effect.succeed(undefined), onSome: Effect.fail }))
      if (parts === undefined) {
        return yield* invalid(FILE_FIELD, "is missing: send the CSV file as the form's file field (curl -F file=@subscribers.csv)")
      }
      for (const [i, part] of Chunk.toReadonlyArray(parts).entries()) {
        file = yield* take(part)
        if (file !== undefined) {
          after = Chunk.drop(parts, i + 1)
          break
        }
      }
    }
    const rest = Stream.concat(Stream.fromChunk(after), Stream.repeatEffectChunkOption(pull)).pipe(
      Stream.mapEffect((part) => Effect.fail(invalid(part.key, "must come before the file in the form"))),
      Stream.drain
    )
    const upload: Upload = {
      fileName: yield* fileNameOf(query.file_name ?? file.name),
      bytes: nonEmpty(file.content.pipe(Stream.mapError(multipartProblem)), invalid(FILE_FIELD, "is empty")).pipe(Stream.concat(rest)),
      resubscribe: fields.resubscribe ?? query.resubscribe ?? false,
      encoding: fields.encoding ?? query.encoding,
      maxBytes
    }
    return upload
  })

/**
 * An import's upload as the request sends it: its file, to be streamed, and its options. Reads
 * the fields of a form that come before its file; needs a scope that lasts while the file is read.
 */
export const uploadOf = (
  request: HttpServerRequest.HttpServerRequest,
  form: "csv" | "multipart",
  query: ImportUploadQuery,
  maxBytes: number
) => (form === "csv" ? csvUpload(request, query, maxBytes) : multipartUpload(request, query, maxBytes))

/** Sets `Location` on the answer: the import's address, under the path it was uploaded to. */
export const setImportLocation = (request: HttpServerRequest.HttpServerRequest, job: ImportJob) => {
  const path = request.originalUrl.split("?")[0]!.replace(/\/+$/, "")
  return HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "Location", `${path}/${job.id}`))
  )
}

/**
 * Starts the import a request uploads, for the current principal: 415 for a body of another
 * type; the upload's own problems (a bad option, an empty file, a form without its file) and the
 * use case's refusals answered as the service answers them. Sets `Location`.
 */
export const startUploadedImport = (
  imports: Pick<ImportJobs, "start">,
  request: HttpServerRequest.HttpServerRequest,
  query: ImportUploadQuery,
  maxBytes: number
) =>
  Effect.gen(function*() {
    const form = yield* uploadForm(request)
    const job = yield* respond((caller) =>
      Effect.scoped(Effect.flatMap(uploadOf(request, form, query, maxBytes), (upload) => imports.start(caller, upload)))
    )
    yield* setImportLocation(request, job)
    return job
  })
