import { describe, expect, it } from "@effect/vitest"
import { EventId, InvalidInput, reason } from "@roster/domain"
import { Effect, Layer } from "effect"
import { Ids, MissingScope, ProviderEvents, type ProviderEventReport, Subscribers } from "@roster/application"
import { email, keyFor, openOrganization, UseCasesInMemory } from "./test-kit.js"

/**
 * The subscribers the email provider's reports moved (`Subscribers.providerMoves`), as the
 * dashboard's email activity lists them, over the in-memory database.
 */

const inMemory = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provide(self, ProviderEvents.Default.pipe(Layer.provideMerge(UseCasesInMemory)))

let reports = 0
const report = (type: "bounced" | "complained", address: string): ProviderEventReport => ({
  key: `report-${++reports}`,
  type,
  providerId: null,
  recipients: [address],
  occurredAt: new Date("2026-05-01T12:00:00.000Z"),
  detail: null
})

describe("the subscribers the provider moved", () => {
  it.effect("are the bounces and complaints, newest first, a page at a time, and nothing else", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      const provider = yield* ProviderEvents
      const [ada, grace, lin] = [email("ada@example.com"), email("grace@example.com"), email("lin@example.com")]
      for (const address of [ada, grace, lin]) yield* subscribers.create(principal, { email: address })
      const linId = (yield* subscribers.getByEmail(principal, lin)).subscriber.id
      // A status the API moves is not the provider's.
      yield* subscribers.update(principal, linId, { status: "unsubscribed" })
      yield* provider.receive(report("bounced", ada))
      yield* provider.receive(report("complained", grace))

      const first = yield* subscribers.providerMoves(principal, { limit: 1 })
      const moved = (page: typeof first) => page.items.map((event) => (event.data.subscriber as { email: string; status: string }))
      expect(moved(first)).toMatchObject([{ email: grace, status: "complained" }])
      expect(first.before).toBe(first.items[0]!.id)
      const second = yield* subscribers.providerMoves(principal, { before: first.before!, limit: 1 })
      expect(moved(second)).toMatchObject([{ email: ada, status: "bounced" }])
      expect(second.before).toBeNull()
      const stranger = yield* openOrganization()
      expect(yield* subscribers.providerMoves(stranger.principal, { limit: 25 })).toStrictEqual({ items: [], before: null })
      const nothing = EventId.make(yield* (yield* Ids).next)
      expect(yield* subscribers.providerMoves(principal, { before: nothing, limit: 25 })).toStrictEqual({ items: [], before: null })
    })))

  it.effect("are read with subscribers:read, and refuse a page size out of range or a position that is not an event id", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      const tagsOnly = yield* keyFor(organization.id, ["tags:read"])
      expect(yield* Effect.flip(subscribers.providerMoves(tagsOnly, { limit: 25 }))).toStrictEqual(
        new MissingScope({ scope: "subscribers:read" })
      )
      for (const limit of [0, 101, 2.5]) {
        expect(yield* Effect.flip(subscribers.providerMoves(principal, { limit }))).toMatchObject({ _tag: "InvalidInput", field: "limit" })
      }
      expect(yield* Effect.flip(subscribers.providerMoves(principal, { before: "yesterday", limit: 25 }))).toStrictEqual(
        new InvalidInput({ field: "before", reason: reason("notAnEventId") })
      )
    })))
})
