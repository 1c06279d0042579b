import { assert, expect, layer } from "@effect/vitest"
import { UserRepository } from "@roster/application"
import { User, UserId } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { aUser, instant, type PersistenceLayer } from "./fixtures.js"

export const userRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("UserRepository", (it) => {
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
  })
