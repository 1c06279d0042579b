import { Schema } from "effect"
import { ApiKeyId, NoteId, OrganizationId, SubscriberId, UserId } from "./ids.js"
import { isStorableText, UNSTORABLE_TEXT, longerThan } from "./text.js"

/** Who wrote a note: a signed-in user or an API key. */
export const NoteAuthor = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("user"), id: UserId }),
  Schema.Struct({ kind: Schema.Literal("api_key"), id: ApiKeyId })
)
export type NoteAuthor = typeof NoteAuthor.Type

/** A note the organization keeps on a subscriber; it goes with the subscriber. */
export class Note extends Schema.Class<Note>("Note")({
  id: NoteId,
  organizationId: OrganizationId,
  subscriberId: SubscriberId,
  body: Schema.String,
  author: NoteAuthor,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
}) {}

export const MAX_NOTE_LENGTH = 10_000

/** What a note says: trimmed text, 1 to 10,000 characters. */
export const NoteBody = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty"
    if (longerThan(s, MAX_NOTE_LENGTH)) return `must be at most ${MAX_NOTE_LENGTH} characters`
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  }, { identifier: "NoteBody" })
)
