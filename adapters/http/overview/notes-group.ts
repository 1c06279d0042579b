import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { noteEndpoints } from "../shared/note-endpoints.js"
import { Note, NoteRequest, notesDescription } from "../shared/note-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"

export const NoteListParams = Schema.Struct(pageParams).annotations(strictInput)

const notes = noteEndpoints("id")
const NoteData = Single(Note, "NoteData")

export const NotesGroup = HttpApiGroup.make("notes")
  .add(
    HttpApiEndpoint.get("list", notes.address)
      .setPath(notes.subscriberPath)
      .setUrlParams(NoteListParams)
      .addSuccess(NumberedList(Note, "NoteList"))
      .pipe(envelopes.describe({
        ...notes.list,
        description: "One numbered page of the subscriber's notes, newest first. Scope `subscribers:read`."
      }))
  )
  .add(
    envelopes.declare({
      ...notes.create,
      description: "Keeps a note on the subscriber; webhooks hear `subscriber.note_added`. Scope `subscribers:write`."
    }).addSuccess(withStatus(NoteData, 201, "CreatedNoteData"))
  )
  .add(envelopes.declare(notes.get).addSuccess(NoteData))
  .add(
    HttpApiEndpoint.patch("update", `${notes.address}/:note_id`)
      .setPath(notes.notePath)
      .setPayload(NoteRequest)
      .addSuccess(NoteData)
      .pipe(envelopes.describe(notes.update))
  )
  .add(envelopes.declare(notes.delete))
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Notes")
  .annotate(OpenApi.Description, notesDescription)
