import { NoteRepository } from "@roster/application"
import type { Note } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore, type Tables } from "./memory-store.js"
import { compareBy } from "./ordering.js"

const newestFirst = compareBy((note: Note) => note.createdAt.toISOString(), "desc")

const notesOf = (t: Tables, organizationId: string, subscriberId: string) =>
  [...t.notes.values()].filter((note) => note.organizationId === organizationId && note.subscriberId === subscriberId)

export const MemoryNoteRepositoryLive = Layer.effect(
  NoteRepository,
  Effect.map(MemoryStore, (store) =>
    NoteRepository.of({
      insert: (note) =>
        store.write((t) => {
          if (t.subscribers.get(note.subscriberId)?.organizationId === note.organizationId) t.notes.set(note.id, note)
        }),
      update: (note) =>
        store.write((t) => {
          const current = t.notes.get(note.id)
          if (current?.organizationId === note.organizationId && current.subscriberId === note.subscriberId) {
            t.notes.set(note.id, note)
          }
        }),
      findById: (organizationId, subscriberId, id) =>
        store.read((t) =>
          Option.filter(
            Option.fromNullable(t.notes.get(id)),
            (note) => note.organizationId === organizationId && note.subscriberId === subscriberId
          )
        ),
      list: ({ after, limit, offset = 0, organizationId, subscriberId }) =>
        store.read((t) =>
          notesOf(t, organizationId, subscriberId)
            .filter((note) => after === undefined || newestFirst(note, { id: after.id, createdAt: new Date(after.value) } as Note) > 0)
            .sort(newestFirst)
            .slice(offset, offset + limit)
        ),
      count: (organizationId, subscriberId) => store.read((t) => notesOf(t, organizationId, subscriberId).length),
      delete: (organizationId, subscriberId, id) =>
        store.write((t) => {
          const note = t.notes.get(id)
          if (note?.organizationId !== organizationId || note.subscriberId !== subscriberId) return false
          return t.notes.delete(id)
        })
    }))
)
