import type { Note, NoteId, OrganizationId, SubscriberId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"
import type { KeysetPosition } from "./subscriber-repository.js"

/** One page of a subscriber's notes, newest first: `limit` rows after `after`, or past `offset` rows. */
export interface NotePageQuery {
  readonly organizationId: OrganizationId
  readonly subscriberId: SubscriberId
  readonly limit: number
  readonly after?: KeysetPosition | undefined
  readonly offset?: number | undefined
}

/** Notes on subscribers; a subscriber's notes go with them. */
export class NoteRepository extends Context.Tag("roster/NoteRepository")<NoteRepository, {
  readonly insert: (note: Note) => Effect.Effect<void>
  /** Stores the body and the time of the change as given. */
  readonly update: (note: Note) => Effect.Effect<void>
  /** The note, if it is the subscriber's, in the organization. */
  readonly findById: (organizationId: OrganizationId, subscriberId: SubscriberId, id: NoteId) => Effect.Effect<Option.Option<Note>>
  readonly list: (query: NotePageQuery) => Effect.Effect<ReadonlyArray<Note>>
  readonly count: (organizationId: OrganizationId, subscriberId: SubscriberId) => Effect.Effect<number>
  /** Whether it existed. */
  readonly delete: (organizationId: OrganizationId, subscriberId: SubscriberId, id: NoteId) => Effect.Effect<boolean>
}>() {}
