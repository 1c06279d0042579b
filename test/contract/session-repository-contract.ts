import { assert, expect, layer } from "@effect/vitest"
import { SessionRepository } from "@roster/application"
import { Session } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { aSession, givenUser, instant, type PersistenceLayer } from "./fixtures.js"

const sessionById = (id: string) =>
  Effect.flatMap(SessionRepository, (sessions) => Effect.map(sessions.findById(id), Option.getOrThrow))

export const sessionRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("SessionRepository", (it) => {
    it.effect("stores a session and finds it by id", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionRepository
        const user = yield* givenUser()
        const session = aSession(user.id, { createdAt: instant(5), expiresAt: instant(500) })
        yield* sessions.insert(session)
        expect(yield* sessionById(session.id)).toStrictEqual(session)
        assert.isTrue(Option.isNone(yield* sessions.findById(randomUUID())))
        assert.isTrue(Option.isNone(yield* sessions.findById("not-a-session")))
      }))

    it.effect("revokes an active session once; the first revocation is kept", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionRepository
        const session = aSession((yield* givenUser()).id)
        yield* sessions.insert(session)
        assert.isTrue(yield* sessions.revoke(session.id, instant(60)))
        assert.isFalse(yield* sessions.revoke(session.id, instant(120)))
        expect(yield* sessionById(session.id)).toStrictEqual(new Session({ ...session, revokedAt: instant(60) }))
        assert.isFalse(yield* sessions.revoke(randomUUID(), instant(60)))
        assert.isFalse(yield* sessions.revoke("not-a-session", instant(60)))
      }))

    it.effect("a session that has run out is not revoked", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionRepository
        const session = aSession((yield* givenUser()).id, { expiresAt: instant(100) })
        yield* sessions.insert(session)
        assert.isFalse(yield* sessions.revoke(session.id, instant(100)))
        expect(yield* sessionById(session.id)).toStrictEqual(session)
      }))

    it.effect("revokes every active session of a user and no one else's", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionRepository
        const user = yield* givenUser()
        const other = aSession((yield* givenUser()).id)
        const active = [aSession(user.id), aSession(user.id, { createdAt: instant(30) })]
        const revoked = aSession(user.id, { revokedAt: instant(10) })
        const ended = aSession(user.id, { expiresAt: instant(20) })
        for (const session of [...active, revoked, ended, other]) yield* sessions.insert(session)

        expect(yield* sessions.revokeAllForUser(user.id, instant(60))).toBe(2)
        for (const session of active) {
          expect(yield* sessionById(session.id)).toStrictEqual(new Session({ ...session, revokedAt: instant(60) }))
        }
        expect(yield* sessionById(revoked.id)).toStrictEqual(revoked)
        expect(yield* sessionById(ended.id)).toStrictEqual(ended)
        expect(yield* sessionById(other.id)).toStrictEqual(other)
        expect(yield* sessions.revokeAllForUser(user.id, instant(90))).toBe(0)
      }))
  })
