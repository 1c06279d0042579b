import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NoteId, SubscriberId } from "@roster/domain"
import { Schema } from "effect"
import { Note, NoteRequest, notesDescription } from "../shared/note-schemas.js"
import { API_ROUTE_ERRORS, BODY_ERRORS, POST_ERRORS } from "../shared/wire-errors.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

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
      .pipe(problems.endpoint("not_found", ...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Add a note",
        description: "Keeps a note on the subscriber, written by the caller; webhooks hear `subscriber.note_added`. " +
          "Scope `subscribers:write`."
      }))
  )
  .add(
    HttpApiEndpoint.get("list", "/subscribers/:subscriber_id/notes")
      .setPath(NotesPath)
      .setUrlParams(NoteListParams)
      .addSuccess(Page(Note, "NoteList"))
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "List a subscriber's notes",
        description: "One page of the subscriber's notes, newest first. Scope `subscribers:read`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/subscribers/:subscriber_id/notes/:note_id")
      .setPath(NotePath)
      .addSuccess(Note)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({ summary: "Get a note", description: "Scope `subscribers:read`." }))
  )
  .add(
    HttpApiEndpoint.put("update", "/subscribers/:subscriber_id/notes/:note_id")
      .setPath(NotePath)
      .setPayload(NoteRequest)
      .addSuccess(Note)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotateContext(OpenApi.annotations({ summary: "Change a note", description: "Scope `subscribers:write`." }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/subscribers/:subscriber_id/notes/:note_id")
      .setPath(NotePath)
      .setPayload(NoFields)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({ summary: "Delete a note", description: "Scope `subscribers:write`." }))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Notes")
  .annotate(OpenApi.Description, notesDescription)
