import { SessionRepository } from "@roster/application"
import { isSessionActive, Session } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore, type Tables } from "./memory-store.js"

/** Revokes the session if it is active; whether it was. */
const revokeIfActive = (t: Tables, session: Session, at: Date): boolean => {
  if (!isSessionActive(session, at)) return false
  t.sessions.set(session.id, new Session({ ...session, revokedAt: at }))
  return true
}

export const MemorySessionRepositoryLive = Layer.effect(
  SessionRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    return SessionRepository.of({
      insert: (session) => store.write((t) => void t.sessions.set(session.id, session)),
      findById: (id) => store.read((t) => Option.fromNullable(t.sessions.get(id))),
      revoke: (id, at) =>
        store.write((t) => {
          const session = t.sessions.get(id)
          return session !== undefined && revokeIfActive(t, session, at)
        }),
      revokeAllForUser: (userId, at) =>
        store.write((t) =>
          [...t.sessions.values()].filter((session) => session.userId === userId && revokeIfActive(t, session, at)).length
        )
    })
  })
)
