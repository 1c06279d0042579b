import { assert, expect, layer } from "@effect/vitest"
import { NoteRepository, SubscriberRepository } from "@roster/application"
import { ApiKeyId, Note, NoteId, OrganizationId, type SubscriberId, UserId } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { deletingAfterwards, givenOrganization, givenSubscriber, instant, type PersistenceLayer } from "./fixtures.js"

const aNote = (organizationId: OrganizationId, subscriberId: SubscriberId, at: Date, body = "Asked about pricing") =>
  new Note({
    id: NoteId.make(randomUUID()),
    organizationId,
    subscriberId,
    body,
    author: { kind: "api_key", id: ApiKeyId.make(randomUUID()) },
    createdAt: at,
    updatedAt: at
  })

export const noteRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("NoteRepository", (it) => {
    it.effect("keeps a subscriber's notes, found under that subscriber only, newest first", () =>
      Effect.gen(function*() {
        const notes = yield* NoteRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const reader = yield* givenSubscriber(organization.id)
          const other = yield* givenSubscriber(organization.id)
          const old = aNote(organization.id, reader.id, instant(1))
          const recent = new Note({ ...aNote(organization.id, reader.id, instant(5)), author: { kind: "user", id: UserId.make(randomUUID()) } })
          yield* notes.insert(old)
          yield* notes.insert(recent)
          yield* notes.insert(aNote(organization.id, other.id, instant(3)))
          expect(yield* notes.findById(organization.id, reader.id, recent.id)).toStrictEqual(Option.some(recent))
          assert.isTrue(Option.isNone(yield* notes.findById(organization.id, other.id, recent.id)))
          assert.isTrue(Option.isNone(yield* notes.findById(OrganizationId.make(randomUUID()), reader.id, recent.id)))
          expect(yield* notes.list({ organizationId: organization.id, subscriberId: reader.id, limit: 10 })).toStrictEqual([recent, old])
          expect(yield* notes.list({ organizationId: organization.id, subscriberId: reader.id, limit: 10, offset: 1 })).toStrictEqual([old])
          expect(yield* notes.list({
            organizationId: organization.id,
            subscriberId: reader.id,
            limit: 10,
            after: { value: recent.createdAt.toISOString(), id: recent.id }
          })).toStrictEqual([old])
          expect(yield* notes.count(organization.id, reader.id)).toBe(2)

          const changed = new Note({ ...old, body: "Asked twice", updatedAt: instant(9) })
          yield* notes.update(changed)
          expect(yield* notes.findById(organization.id, reader.id, old.id)).toStrictEqual(Option.some(changed))
          assert.isFalse(yield* notes.delete(organization.id, other.id, old.id))
          assert.isTrue(yield* notes.delete(organization.id, reader.id, old.id))
          expect(yield* notes.count(organization.id, reader.id)).toBe(1)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a note needs its subscriber, and goes with them", () =>
      Effect.gen(function*() {
        const notes = yield* NoteRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const reader = yield* givenSubscriber(organization.id)
          const note = aNote(organization.id, reader.id, instant(1))
          yield* notes.insert(note)
          yield* (yield* SubscriberRepository).delete(organization.id, reader.id)
          assert.isTrue(Option.isNone(yield* notes.findById(organization.id, reader.id, note.id)))
          yield* notes.insert(aNote(organization.id, reader.id, instant(2)))
          expect(yield* notes.count(organization.id, reader.id)).toBe(0)
        }).pipe(deletingAfterwards([organization.id]))
      }))
  })
