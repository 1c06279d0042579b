import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NoteId, SubscriberId } from "@roster/domain"
import { Schema } from "effect"
import { Note, NoteRequest, notesDescription } from "../shared/note-schemas.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

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
      .annotateContext(OpenApi.annotations({
        summary: "List a subscriber's notes",
        description: "One numbered page of the subscriber's notes, newest first. Scope `subscribers:read`."
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/subscribers/:id/notes")
      .setPath(NotesPath)
      .setPayload(NoteRequest)
      .addSuccess(withStatus(NoteData, 201, "CreatedNoteData"))
      .annotateContext(OpenApi.annotations({
        summary: "Add a note",
        description: "Keeps a note on the subscriber; webhooks hear `subscriber.note_added`. Scope `subscribers:write`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/subscribers/:id/notes/:note_id")
      .setPath(NotePath)
      .addSuccess(NoteData)
      .annotateContext(OpenApi.annotations({ summary: "Get a note", description: "Scope `subscribers:read`." }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/subscribers/:id/notes/:note_id")
      .setPath(NotePath)
      .setPayload(NoteRequest)
      .addSuccess(NoteData)
      .annotateContext(OpenApi.annotations({ summary: "Change a note", description: "Scope `subscribers:write`." }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/subscribers/:id/notes/:note_id")
      .setPath(NotePath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({ summary: "Delete a note", description: "Scope `subscribers:write`." }))
  )
  .middleware(OverviewAuthentication)
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Notes")
  .annotate(OpenApi.Description, notesDescription)
