import { describe, expect, it } from "@effect/vitest"
import { EventId, InvalidInput, reason, ResourceNotFound, type SubscriberId } from "@roster/domain"
import { Effect, Layer } from "effect"
import { Ids, MissingScope, Notes, Preferences, type Principal, Subscribers, Tags } from "@roster/application"
import { makeJoseTokenSigner } from "../../adapters/jose/index.js"
import { email, keyFor, openOrganization, UseCasesInMemory } from "./test-kit.js"

/**
 * A subscriber's history (`Subscribers.history`) and the export of everything stored about them
 * asked for by their organization (`Preferences.exportFor`), over the in-memory database.
 */

const inMemory = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provide(
    self,
    Layer.merge(Preferences.Default, Notes.Default).pipe(
      Layer.provideMerge(Layer.merge(UseCasesInMemory, makeJoseTokenSigner(new Uint8Array(32).fill(7))))
    )
  )

/** Ada, with a tag, a change of status and a note: five events in all. */
const ada = (principal: Principal) =>
  Effect.gen(function*() {
    const subscribers = yield* Subscribers
    const weekly = yield* (yield* Tags).create(principal, { name: "Weekly" })
    const { subscriber } = yield* subscribers.create(principal, { email: email("ada@example.com"), tagIds: [weekly.id] })
    yield* subscribers.update(principal, subscriber.id, { status: "unsubscribed" })
    yield* subscribers.update(principal, subscriber.id, { metadata: { plan: "gold" } })
    yield* (yield* Notes).create(principal, subscriber.id, "Asked for an invoice")
    return subscriber.id
  })

const unknownId = Effect.map(Effect.flatMap(Ids, (ids) => ids.next), (id) => id as SubscriberId)

describe("a subscriber's history", () => {
  it.effect("answers what was recorded about them newest first, a page at a time, to the first event", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const id = yield* ada(principal)
      const subscribers = yield* Subscribers
      // Another subscriber's events are not theirs.
      yield* subscribers.create(principal, { email: email("grace@example.com") })

      const first = yield* subscribers.history(principal, id, { limit: 2 })
      expect(first.items.map((event) => event.type)).toStrictEqual(["subscriber.note_added", "subscriber.updated"])
      expect(first.items[1]!.data.changed).toStrictEqual(["metadata"])
      expect(first.before).toBe(first.items[1]!.id)
      const second = yield* subscribers.history(principal, id, { before: first.before!, limit: 2 })
      expect(second.items.map((event) => event.type)).toStrictEqual(["subscriber.updated", "tag.subscribed"])
      const last = yield* subscribers.history(principal, id, { before: second.before!, limit: 2 })
      expect(last.items.map((event) => event.type)).toStrictEqual(["subscriber.created"])
      expect(last.before).toBeNull()
      // A page that ends exactly at the first event says there is nothing older.
      const all = yield* subscribers.history(principal, id, { limit: 5 })
      expect(all.items).toHaveLength(5)
      expect(all.before).toBeNull()
    })))

  it.effect("does not find another organization's subscriber, nor one that is not there", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const id = yield* ada(principal)
      const stranger = yield* openOrganization()
      const subscribers = yield* Subscribers
      expect(yield* Effect.flip(subscribers.history(stranger.principal, id, { limit: 25 }))).toStrictEqual(
        new ResourceNotFound({ resource: "subscriber", id })
      )
      const nobody = yield* unknownId
      expect(yield* Effect.flip(subscribers.history(principal, nobody, { limit: 25 }))).toBeInstanceOf(ResourceNotFound)
    })))

  it.effect("is read with subscribers:read", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const id = yield* ada(principal)
      const tagsOnly = yield* keyFor(organization.id, ["tags:read"])
      expect(yield* Effect.flip((yield* Subscribers).history(tagsOnly, id, { limit: 25 }))).toStrictEqual(
        new MissingScope({ scope: "subscribers:read" })
      )
      const reader = yield* keyFor(organization.id, ["subscribers:read"])
      expect((yield* (yield* Subscribers).history(reader, id, { limit: 25 })).items).toHaveLength(5)
    })))

  it.effect("refuses a page size out of range and a position that is not an event id, naming the field", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const id = yield* ada(principal)
      const subscribers = yield* Subscribers
      for (const limit of [0, 101, 2.5]) {
        expect(yield* Effect.flip(subscribers.history(principal, id, { limit }))).toMatchObject({ _tag: "InvalidInput", field: "limit" })
      }
      expect(yield* Effect.flip(subscribers.history(principal, id, { before: "yesterday", limit: 25 }))).toStrictEqual(
        new InvalidInput({ field: "before", reason: reason("notAnEventId") })
      )
    })))

  it.effect("answers no events before a position that is not one of theirs", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const id = yield* ada(principal)
      const subscribers = yield* Subscribers
      const grace = yield* subscribers.create(principal, { email: email("grace@example.com") })
      const theirs = (yield* subscribers.history(principal, grace.subscriber.id, { limit: 1 })).items[0]!.id
      expect(yield* subscribers.history(principal, id, { before: theirs, limit: 25 })).toStrictEqual({ items: [], before: null })
      const nothing = EventId.make(yield* (yield* Ids).next)
      expect(yield* subscribers.history(principal, id, { before: nothing, limit: 25 })).toStrictEqual({ items: [], before: null })
    })))
})

describe("the organization's export of a subscriber's data", () => {
  it.effect("is the document the subscriber's own link gives them", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const id = yield* ada(principal)
      const preferences = yield* Preferences
      const { token } = yield* preferences.issueLink(principal, id)
      const theirs = yield* preferences.exportData(token)
      const ours = yield* preferences.exportFor(principal, id)
      expect({ ...ours, exportedAt: theirs.exportedAt }).toStrictEqual(theirs)
      expect(ours.subscriber.email).toBe("ada@example.com")
      expect(ours.tags.map(({ tag }) => tag.name)).toStrictEqual(["Weekly"])
      expect(ours.notes.map((note) => note.body)).toStrictEqual(["Asked for an invoice"])
      // The export keeps the events oldest first.
      expect(ours.events.map((event) => event.type)).toStrictEqual([
        "subscriber.created",
        "tag.subscribed",
        "subscriber.updated",
        "subscriber.updated",
        "subscriber.note_added"
      ])
    })))

  it.effect("is asked for with subscribers:read, and does not find another organization's subscriber", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const id = yield* ada(principal)
      const preferences = yield* Preferences
      const tagsOnly = yield* keyFor(organization.id, ["tags:read"])
      expect(yield* Effect.flip(preferences.exportFor(tagsOnly, id))).toStrictEqual(new MissingScope({ scope: "subscribers:read" }))
      const stranger = yield* openOrganization()
      expect(yield* Effect.flip(preferences.exportFor(stranger.principal, id))).toStrictEqual(
        new ResourceNotFound({ resource: "subscriber", id })
      )
      const reader = yield* keyFor(organization.id, ["subscribers:read"])
      expect((yield* preferences.exportFor(reader, id)).subscriber.id).toBe(id)
    })))
})
