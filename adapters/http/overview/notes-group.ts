import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NoteId, SubscriberId } from "@roster/domain"
import { Schema } from "effect"
import { Note, NoteRequest, notesDescription } from "../shared/note-schemas.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"
import { noteEndpoints as notes } from "../shared/note-endpoints.js"
import { envelopes } from "./errors.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"

const subscriberId = IdInput(SubscriberId, "the subscriber's id")
export const NotesPath = Schema.Struct({ id: subscriberId })
export const NotePath = Schema.Struct({ id: subscriberId, note_id: IdInput(NoteId, "the note's id") })
export const NoteListParams = Schema.Struct(pageParams).annotations(strictInput)

const NoteData = Single(Note, "NoteData")

export const NotesGroup = HttpApiGroup.make("notes")
  .add(
    HttpApiEndpoint.get("list", "/subscribers/:id/notes")
      .setPath(NotesPath)
      .setUrlParams(NoteListParams)
      .addSuccess(NumberedList(Note, "NoteList"))
      .pipe(envelopes.describe({
        ...notes.list,
        description: "One numbered page of the subscriber's notes, newest first. Scope `subscribers:read`."
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/subscribers/:id/notes")
      .setPath(NotesPath)
      .setPayload(NoteRequest)
      .addSuccess(withStatus(NoteData, 201, "CreatedNoteData"))
      .pipe(envelopes.describe({
        ...notes.create,
        description: "Keeps a note on the subscriber; webhooks hear `subscriber.note_added`. Scope `subscribers:write`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/subscribers/:id/notes/:note_id")
      .setPath(NotePath)
      .addSuccess(NoteData)
      .pipe(envelopes.describe(notes.get))
  )
  .add(
    HttpApiEndpoint.patch("update", "/subscribers/:id/notes/:note_id")
      .setPath(NotePath)
      .setPayload(NoteRequest)
      .addSuccess(NoteData)
      .pipe(envelopes.describe(notes.update))
  )
  .add(
    HttpApiEndpoint.del("delete", "/subscribers/:id/notes/:note_id")
      .setPath(NotePath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(envelopes.describe(notes.delete))
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Notes")
  .annotate(OpenApi.Description, notesDescription)
