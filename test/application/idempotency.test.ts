import { describe, expect, it } from "@effect/vitest"
import { Idempotency, type StoredResponse, Subscribers } from "@roster/application"
import { Effect, Either, Layer, Ref } from "effect"
import { InProcessIdempotencyStoreLive } from "../../adapters/in-process/index.js"
import { email, keyFor, openOrganization, UseCasesInMemory } from "./test-kit.js"

const IdempotencyInMemory = Idempotency.Default.pipe(
  Layer.provideMerge(Layer.merge(UseCasesInMemory, InProcessIdempotencyStoreLive))
)
const withKeys = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, IdempotencyInMemory)

const answer = (status: number, body: string): StoredResponse => ({ status, headers: { "content-type": "application/json" }, body })

/** An operation that counts how often it really ran. */
const counted = (runs: Ref.Ref<number>, response: StoredResponse) => Effect.as(Ref.update(runs, (n) => n + 1), response)

describe("Idempotency-Key", () => {
  it.effect("a repeat of the same request gets the first answer again, without running twice", () =>
    withKeys(Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const { principal } = yield* openOrganization()
      const runs = yield* Ref.make(0)
      const first = yield* idempotency.run(principal, "key-1", "POST /subscribers body-a", counted(runs, answer(201, "{\"id\":1}")))
      const again = yield* idempotency.run(principal, "key-1", "POST /subscribers body-a", counted(runs, answer(201, "{\"id\":2}")))
      expect(first).toEqual({ response: answer(201, "{\"id\":1}"), replayed: false })
      expect(again).toEqual({ response: answer(201, "{\"id\":1}"), replayed: true })
      expect(yield* Ref.get(runs)).toBe(1)
    })))

  it.effect("the key with another request is refused", () =>
    withKeys(Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const { principal } = yield* openOrganization()
      yield* idempotency.run(principal, "key-2", "POST /subscribers body-a", Effect.succeed(answer(201, "{}")))
      const other = yield* Effect.flip(idempotency.run(principal, "key-2", "POST /subscribers body-b", Effect.succeed(answer(201, "{}"))))
      expect(other._tag).toBe("IdempotencyKeyReused")
    })))

  it.effect("of 10 concurrent requests with one key exactly one runs; the others wait their turn or are told it is running", () =>
    withKeys(Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const subscribers = yield* Subscribers
      const { principal } = yield* openOrganization()
      const create = subscribers.create(principal, { email: email("once@example.com") }).pipe(
        Effect.map((view) => answer(201, JSON.stringify({ id: view.subscriber.id })))
      )
      const results = yield* Effect.all(
        Array.from({ length: 10 }, () => Effect.either(idempotency.run(principal, "key-3", "POST /subscribers once", create))),
        { concurrency: "unbounded" }
      )
      const ran = results.filter((r) => Either.isRight(r) && !r.right.replayed)
      expect(ran).toHaveLength(1)
      for (const r of results) {
        if (Either.isLeft(r)) expect(r.left._tag).toBe("IdempotentRequestInProgress")
      }
      expect((yield* subscribers.list(principal, { sort: "created_at", order: "desc", limit: 10 })).total).toBe(1)
    })))

  it.effect("a request that failed validation, or failed in the service, keeps nothing: the same key may try again", () =>
    withKeys(Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const { principal } = yield* openOrganization()
      yield* idempotency.run(principal, "key-4", "POST /subscribers bad", Effect.succeed(answer(400, "{}")))
      expect((yield* idempotency.run(principal, "key-4", "POST /subscribers good", Effect.succeed(answer(201, "{}")))).replayed).toBe(false)
      yield* Effect.exit(idempotency.run(principal, "key-5", "POST /tags", Effect.dieMessage("database gone")))
      expect((yield* idempotency.run(principal, "key-5", "POST /tags", Effect.succeed(answer(201, "{}")))).replayed).toBe(false)
    })))

  it.effect("a refusal the operation decided (409, 402) is kept and replayed", () =>
    withKeys(Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const { principal } = yield* openOrganization()
      yield* idempotency.run(principal, "key-6", "POST /subscribers dup", Effect.succeed(answer(409, "{\"status\":409}")))
      const again = yield* idempotency.run(principal, "key-6", "POST /subscribers dup", Effect.succeed(answer(201, "{}")))
      expect(again).toEqual({ response: answer(409, "{\"status\":409}"), replayed: true })
    })))

  it.effect("keys belong to the credential and the organization that sent them", () =>
    withKeys(Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const { organization, principal } = yield* openOrganization()
      const sameOrganization = yield* keyFor(organization.id, ["*"])
      const other = yield* openOrganization()
      for (const caller of [principal, sameOrganization, other.principal]) {
        expect((yield* idempotency.run(caller, "shared", "POST /tags", Effect.succeed(answer(201, "{}")))).replayed).toBe(false)
      }
    })))

  it.effect("a key must be printable ASCII of at most 255 characters", () =>
    withKeys(Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const { principal } = yield* openOrganization()
      for (const key of ["", "x".repeat(256), "with space", "ümlaut"]) {
        const refused = yield* Effect.flip(idempotency.run(principal, key, "POST /tags", Effect.succeed(answer(201, "{}"))))
        expect(refused).toMatchObject({ _tag: "InvalidInput", field: "Idempotency-Key" })
      }
    })))
})
