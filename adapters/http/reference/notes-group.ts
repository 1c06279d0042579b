import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NoteId, SubscriberId } from "@roster/domain"
import { Schema } from "effect"
import { Note, NoteRequest, notesDescription } from "../shared/note-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"
import { NoFields, optionalBody } from "../shared/action-body.js"
import { noteEndpoints as notes } from "../shared/note-endpoints.js"

const subscriberId = IdInput(SubscriberId, "the subscriber's id")
export const NotesPath = Schema.Struct({ subscriber_id: subscriberId })
export const NotePath = Schema.Struct({ subscriber_id: subscriberId, note_id: IdInput(NoteId, "the note's id") })
export const NoteListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)

export const NotesGroup = HttpApiGroup.make("notes")
  .add(
    HttpApiEndpoint.post("create", "/subscribers/:subscriber_id/notes")
      .setPath(NotesPath)
      .setPayload(NoteRequest)
      .addSuccess(withStatus(Note, 201, "CreatedNote"))
      .pipe(problems.describe(notes.create))
  )
  .add(
    HttpApiEndpoint.get("list", "/subscribers/:subscriber_id/notes")
      .setPath(NotesPath)
      .setUrlParams(NoteListParams)
      .addSuccess(Page(Note, "NoteList"))
      .pipe(problems.describe(notes.list))
  )
  .add(
    HttpApiEndpoint.get("get", "/subscribers/:subscriber_id/notes/:note_id")
      .setPath(NotePath)
      .addSuccess(Note)
      .pipe(problems.describe(notes.get))
  )
  .add(
    HttpApiEndpoint.put("update", "/subscribers/:subscriber_id/notes/:note_id")
      .setPath(NotePath)
      .setPayload(NoteRequest)
      .addSuccess(Note)
      .pipe(problems.describe(notes.update))
  )
  .add(
    HttpApiEndpoint.del("delete", "/subscribers/:subscriber_id/notes/:note_id")
      .setPath(NotePath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(notes.delete))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Notes")
  .annotate(OpenApi.Description, notesDescription)
