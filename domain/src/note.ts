import { Schema } from "effect"
import { ApiKeyId, NoteId, OrganizationId, SubscriberId, UserId } from "./ids.js"

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
