import { type HttpServerRequest, Multipart } from "@effect/platform"
import { Chunk, Effect, Option, type Scope, Stream } from "effect"
import type { FormFields } from "./pages.js"

/**
 * A dashboard form that sends a file (`multipart/form-data`): its plain fields before the file
 * (the form token among them, so that it is checked before a byte of the file is kept), and the
 * file itself, to be streamed. Fields after the file are not read.
 */

/** A file a form sent, as it streams in. */
export interface UploadedFile {
  /** Its name as the browser gave it; `""` when none was chosen. */
  readonly name: string
  /** Its bytes; they fail with `"broken"` when the upload breaks off or is not a form. */
  readonly content: Stream.Stream<Uint8Array, "broken">
}

export interface UploadForm {
  readonly fields: FormFields
  /** The form's first file, if it sent one. */
  readonly file: UploadedFile | undefined
}

const noUpload: UploadForm = { fields: new Map(), file: undefined }

/** The fields and the file of a multipart form; a body that is not one reads as an empty form. */
export const readUpload = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<UploadForm, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pull = yield* Stream.toPull(request.multipartStream)
    const fields = new Map<string, Array<string>>()
    for (;;) {
      const parts = yield* Effect.option(pull)
      if (Option.isNone(parts)) return { fields, file: undefined }
      for (const part of Chunk.toReadonlyArray(parts.value)) {
        if (Multipart.isFile(part)) {
          return { fields, file: { name: part.name, content: Stream.mapError(part.content, () => "broken" as const) } }
        }
        fields.set(part.key, [...(fields.get(part.key) ?? []), part.value])
      }
    }
  }).pipe(Effect.catchAllCause(() => Effect.succeed(noUpload)))
