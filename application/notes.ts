import {
  DomainEvent,
  EventId,
  Note,
  type NoteAuthor,
  NoteId,
  type OrganizationId,
  ResourceNotFound,
  type SubscriberId
} from "@roster/domain"
import { Effect, Option } from "effect"
import { Ids } from "./ports/ids.js"
import { NoteRepository } from "./ports/note-repository.js"
import { Outbox } from "./ports/outbox.js"
import { SubscriberRepository } from "./ports/subscriber-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { now } from "./support/clock.js"
import { noteData } from "./support/event-payloads.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { requireOwned } from "./support/ownership.js"
import { numberedPage, type PageNumberRequest, pageWindow } from "./support/page-numbers.js"
import { authorize, type Principal } from "./support/principal.js"
import { operations } from "./support/operation.js"

const LIST_SORT = "created_at"

/** Who writes through this credential: a signed-in user, or the API key. */
const authorOf = (principal: Principal): NoteAuthor =>
  principal.credential.kind === "session"
    ? { kind: "user", id: principal.credential.userId }
    : { kind: "api_key", id: principal.credential.id }

/**
 * Notes an organization keeps on its subscribers: subscriber data, read with `subscribers:read`
 * and written with `subscribers:write`. A new note tells webhooks `subscriber.note_added`; a
 * subscriber's notes are in their data export and go when they are deleted or erased.
 */
export class Notes extends Effect.Service<Notes>()("roster/Notes", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const notes = yield* NoteRepository
    const subscribers = yield* SubscriberRepository
    const outbox = yield* Outbox
    const unitOfWork = yield* UnitOfWork
    const ids = yield* Ids

    const subscriberOf = (organizationId: OrganizationId, id: SubscriberId) =>
      requireOwned("subscriber", id, subscribers.findById(organizationId, id), () => subscribers.organizationOf(id))

    const owned = (principal: Principal, subscriberId: SubscriberId, id: NoteId) =>
      Effect.gen(function*() {
        const organizationId = principal.organization.id
        yield* subscriberOf(organizationId, subscriberId)
        const found = yield* notes.findById(organizationId, subscriberId, id)
        if (Option.isNone(found)) return yield* new ResourceNotFound({ resource: "note", id })
        return found.value
      })

    const create = operation("Notes.create")(function*(principal: Principal, subscriberId: SubscriberId, body: string) {
      yield* authorize(principal, "subscribers:write")
      const organizationId = principal.organization.id
      return yield* unitOfWork.transaction(Effect.gen(function*() {
        const subscriber = yield* subscriberOf(organizationId, subscriberId)
        const at = yield* now
        const note = new Note({
          id: NoteId.make(yield* ids.next),
          organizationId,
          subscriberId,
          body,
          author: authorOf(principal),
          createdAt: at,
          updatedAt: at
        })
        yield* notes.insert(note)
        yield* outbox.record([
          new DomainEvent({
            id: EventId.make(yield* ids.next),
            organizationId,
            type: "subscriber.note_added",
            occurredAt: at,
            data: noteData(note, subscriber)
          })
        ])
        return note
      }))
    })

    const get = operation("Notes.get")(function*(principal: Principal, subscriberId: SubscriberId, id: NoteId) {
      yield* authorize(principal, "subscribers:read")
      return yield* owned(principal, subscriberId, id)
    })

    /** One page of the subscriber's notes, newest first. */
    const list = operation("Notes.list")(function*(
      principal: Principal,
      subscriberId: SubscriberId,
      query: { readonly limit: number; readonly cursor?: string | undefined }
    ) {
      yield* authorize(principal, "subscribers:read")
      const organizationId = principal.organization.id
      yield* subscriberOf(organizationId, subscriberId)
      const after = yield* positionFromCursor(query.cursor, LIST_SORT, "desc")
      const [rows, total] = yield* Effect.all([
        notes.list({ organizationId, subscriberId, limit: query.limit + 1, after }),
        notes.count(organizationId, subscriberId)
      ], { concurrency: 2 })
      return { ...cutPage(rows, query.limit, LIST_SORT, "desc", (n) => n.createdAt.toISOString()), total }
    })

    const listPage = operation("Notes.listPage")(function*(
      principal: Principal,
      subscriberId: SubscriberId,
      request: PageNumberRequest
    ) {
      yield* authorize(principal, "subscribers:read")
      const organizationId = principal.organization.id
      yield* subscriberOf(organizationId, subscriberId)
      const window = yield* pageWindow(request, [], [])
      const [items, total] = yield* Effect.all([
        notes.list({ organizationId, subscriberId, limit: window.limit, offset: window.offset }),
        notes.count(organizationId, subscriberId)
      ], { concurrency: 2 })
      return numberedPage(items, total, request)
    })

    const update = operation("Notes.update")(function*(
      principal: Principal,
      subscriberId: SubscriberId,
      id: NoteId,
      body: string
    ) {
      yield* authorize(principal, "subscribers:write")
      const current = yield* owned(principal, subscriberId, id)
      if (current.body === body) return current
      const updated = new Note({ ...current, body, updatedAt: yield* now })
      yield* notes.update(updated)
      return updated
    })

    const remove = operation("Notes.remove")(function*(principal: Principal, subscriberId: SubscriberId, id: NoteId) {
      yield* authorize(principal, "subscribers:write")
      yield* owned(principal, subscriberId, id)
      yield* notes.delete(principal.organization.id, subscriberId, id)
    })

    return { create, get, list, listPage, update, remove } as const
  })
}) {}
