import { MAX_NOTE_LENGTH, type Note as DomainNote, NoteBody } from "@roster/domain"
import { Schema } from "effect"
import { strictInput, Timestamp, Uuid } from "./wire-fields.js"

/** Notes on subscribers as every form shows and takes them. */

export const Note = Schema.Struct({
  id: Uuid,
  subscriber_id: Uuid,
  body: Schema.String,
  author: Schema.Struct({
    type: Schema.Literal("user", "api_key").annotations({ description: "a signed-in user, or an API key" }),
    id: Uuid
  }).annotations({ description: "who wrote it" }),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Note" })

const BodyInput = NoteBody.annotations({
  jsonSchema: { type: "string", minLength: 1, maxLength: MAX_NOTE_LENGTH, description: "the note; trimmed" }
})

export const NoteRequest = Schema.Struct({ body: BodyInput }).annotations({ identifier: "NoteRequest", ...strictInput })

export const toNote = (note: DomainNote): typeof Note.Type => ({
  id: note.id,
  subscriber_id: note.subscriberId,
  body: note.body,
  author: { type: note.author.kind, id: note.author.id },
  created_at: note.createdAt.toISOString(),
  updated_at: note.updatedAt.toISOString()
})

export const notesDescription = "Notes the organization keeps on a subscriber (support history, context for people). " +
  "A new note is sent to webhooks as `subscriber.note_added`; notes are in the subscriber's data export and go with " +
  "the subscriber. Scope `subscribers:read` to read them, `subscribers:write` to write them."
