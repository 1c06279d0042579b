import { assert, expect, layer } from "@effect/vitest"
import { UserRepository } from "@roster/application"
import { User, UserId } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import {
  anEarlierEra,
  aUser,
  expectedOrder,
  givenUser,
  instant,
  type PersistenceLayer,
  walkOldestFirst
} from "./fixtures.js"

export const userRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("UserRepository", (it) => {
    it.effect("numbers pages of the oldest-first list: `offset` skips that many rows", () =>
      Effect.gen(function*() {
        const repository = yield* UserRepository
        for (let i = 0; i < 5; i++) yield* givenUser()
        const all = yield* repository.list({ limit: 100_000 })
        expect(all.length).toBeGreaterThanOrEqual(5)
        for (const offset of [0, 1, all.length - 2, all.length]) {
          expect(yield* repository.list({ offset, limit: 2 })).toStrictEqual(all.slice(offset, offset + 2))
        }
      }))

    it.effect("the first sign-in of an address stores the user; a later one returns that user, signed in again", () =>
      Effect.gen(function*() {
        const users = yield* UserRepository
        const name = randomBytes(6).toString("hex")
        const first = aUser({ email: `Ada.${name}@Example.COM`, createdAt: instant(10) })
        expect(yield* users.signIn(first, instant(10))).toStrictEqual(first)

        const again = yield* users.signIn(aUser({ email: `ada.${name}@example.com`, createdAt: instant(50) }), instant(50))
        expect(again).toStrictEqual(new User({ ...first, lastSignedInAt: instant(50) }))
        expect(Option.getOrThrow(yield* users.findById(first.id))).toStrictEqual(again)
      }))

    it.effect("finds a user by id and by address in any letter case", () =>
      Effect.gen(function*() {
        const users = yield* UserRepository
        const user = aUser({ email: `Grace.${randomBytes(6).toString("hex")}@Example.com` })
        yield* users.signIn(user, user.createdAt)
        expect(Option.getOrThrow(yield* users.findById(user.id))).toStrictEqual(user)
        expect(Option.getOrThrow(yield* users.findByEmail(user.email.toUpperCase()))).toStrictEqual(user)
        expect(Option.getOrThrow(yield* users.findByEmail(` ${user.email.toLowerCase()} `))).toStrictEqual(user)
        assert.isTrue(Option.isNone(yield* users.findById(UserId.make(randomUUID()))))
        assert.isTrue(Option.isNone(yield* users.findByEmail(`nobody-${randomUUID()}@example.com`)))
      }))

    it.effect("20 concurrent first sign-ins of one address give one user", () =>
      Effect.gen(function*() {
        const users = yield* UserRepository
        const address = `crowd-${randomBytes(6).toString("hex")}@example.com`
        const signedIn = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) => users.signIn(aUser({ email: i % 2 === 0 ? address : address.toUpperCase(), createdAt: instant(i) }), instant(i)),
          { concurrency: "unbounded" }
        )
        const ids = new Set(signedIn.map((user) => user.id))
        expect(ids.size).toBe(1)
        expect(Option.getOrThrow(yield* users.findByEmail(address)).id).toBe([...ids][0])
      }))

    it.effect("lists users oldest first, every one exactly once across pages, equal creation times by id", () =>
      Effect.gen(function*() {
        const users = yield* UserRepository
        const era = anEarlierEra()
        const at = (seconds: number) => new Date(era.getTime() + seconds * 1000)
        const created = yield* Effect.forEach([2, 0, 1, 1, 3, 1, 2], (seconds) => givenUser({ createdAt: at(seconds) }))

        // No position starts at the oldest: nothing is older than this test's era.
        const seen = yield* walkOldestFirst(users.list, at(3), 2)
        const ours = new Set<string>(created.map((u) => u.id))
        expect(seen.filter((u) => ours.has(u.id)).map((u) => u.id)).toStrictEqual(
          expectedOrder(created, (u) => u.createdAt.getTime(), "asc")
        )
        expect(seen.slice(0, created.length)).toStrictEqual(seen.filter((u) => ours.has(u.id)))
        expect(new Set(seen.map((u) => u.id)).size).toBe(seen.length)
      }))

    it.effect("a page holds at most the limit, and a position past the newest gives none", () =>
      Effect.gen(function*() {
        const users = yield* UserRepository
        yield* givenUser()
        yield* givenUser()
        expect(yield* users.list({ limit: 1 })).toHaveLength(1)
        const future = { value: new Date(Date.UTC(2999, 0, 1)).toISOString(), id: randomUUID() }
        expect(yield* users.list({ after: future, limit: 10 })).toStrictEqual([])
      }))

    it.effect("counts every user; signing in again adds none", () =>
      Effect.gen(function*() {
        const users = yield* UserRepository
        const before = yield* users.count
        const user = yield* givenUser()
        yield* givenUser()
        expect(yield* users.count).toBe(before + 2)
        yield* users.signIn(aUser({ email: user.email.toUpperCase() }), instant(99))
        expect(yield* users.count).toBe(before + 2)
      }))
  })
