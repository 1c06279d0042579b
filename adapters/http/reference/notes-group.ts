import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { noteEndpoints } from "../shared/note-endpoints.js"
import { Note, NoteRequest, notesDescription } from "../shared/note-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"

export const NoteListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)

const notes = noteEndpoints("subscriber_id")

export const NotesGroup = HttpApiGroup.make("notes")
  .add(problems.declare(notes.create).addSuccess(withStatus(Note, 201, "CreatedNote")))
  .add(
    HttpApiEndpoint.get("list", notes.address)
      .setPath(notes.subscriberPath)
      .setUrlParams(NoteListParams)
      .addSuccess(Page(Note, "NoteList"))
      .pipe(problems.describe(notes.list))
  )
  .add(problems.declare(notes.get).addSuccess(Note))
  .add(
    HttpApiEndpoint.put("update", `${notes.address}/:note_id`)
      .setPath(notes.notePath)
      .setPayload(NoteRequest)
      .addSuccess(Note)
      .pipe(problems.describe(notes.update))
  )
  .add(problems.declare(notes.delete))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Notes")
  .annotate(OpenApi.Description, notesDescription)
