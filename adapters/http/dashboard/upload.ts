import { type HttpServerRequest, HttpServerResponse, Multipart } from "@effect/platform"
import { Cause, Chunk, type Duration, Effect, Option, type Scope, Stream } from "effect"
import type { FormFields } from "./pages.js"

/**
 * A dashboard form that sends a file (`multipart/form-data`): its plain fields before the file
 * (the form token among them, so that it is checked before a byte of the file is kept), and the
 * file itself, to be streamed. Fields after the file are not read. A body that stops coming in
 * for the idle time it is given, though the connection stays open, is given up then.
 */

/** How the file's bytes fail: the upload broke off (or is not a form), or nothing came for the idle time. */
export type UploadFailure = "broken" | "stalled"

/** A file a form sent, as it streams in. */
export interface UploadedFile {
  /** Its name as the browser gave it; `""` when none was chosen. */
  readonly name: string
  /** Its bytes, as they come in. */
  readonly content: Stream.Stream<Uint8Array, UploadFailure>
}

export interface UploadForm {
  readonly fields: FormFields
  /** The form's first file, if it sent one. */
  readonly file: UploadedFile | undefined
  /** Nothing came for the idle time before the file did: the fields may be missing. */
  readonly stalled: boolean
}

class Stalled {
  readonly _tag = "Stalled"
}

/**
 * The fields and the file of a multipart form; a body that is not one reads as an empty form.
 * Whenever nothing of the body comes for `idle`, it is given up: before the file, the form is
 * `stalled`; within it, the file's bytes fail with `"stalled"`.
 */
export const readUpload = (
  request: HttpServerRequest.HttpServerRequest,
  idle: Duration.DurationInput
): Effect.Effect<UploadForm, never, Scope.Scope> => {
  const fields = new Map<string, Array<string>>()
  return Effect.gen(function*() {
    const pull = yield* Stream.toPull(request.multipartStream)
    for (;;) {
      const parts = yield* pull.pipe(
        Effect.map(Option.some),
        // The body's end; a body that is not a form fails.
        Effect.catchAll((end) => Option.isNone(end) ? Effect.succeed(Option.none()) : Effect.fail(end.value)),
        Effect.timeoutFail({ duration: idle, onTimeout: () => new Stalled() })
      )
      if (Option.isNone(parts)) return { fields, file: undefined, stalled: false }
      for (const part of Chunk.toReadonlyArray(parts.value)) {
        if (Multipart.isFile(part)) {
          const content = part.content.pipe(
            Stream.mapError((): UploadFailure => "broken"),
            Stream.timeoutFail((): UploadFailure => "stalled", idle)
          )
          return { fields, file: { name: part.name, content }, stalled: false }
        }
        fields.set(part.key, [...(fields.get(part.key) ?? []), part.value])
      }
    }
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.succeed({
        fields: new Map(),
        file: undefined,
        stalled: Chunk.some(Cause.failures(cause), (failure) => failure instanceof Stalled)
      })
    )
  )
}

/**
 * The answer to an upload given up while its body was still coming: the connection closes after
 * it, so that what the client may still send is not read as the next request.
 */
export const closingConnection = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeader(response, "Connection", "close")
