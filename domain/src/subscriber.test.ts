import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { EmailAddress } from "./email-address.js"
import { InvalidStatusTransition } from "./errors.js"
import { OrganizationId, SubscriberId } from "./ids.js"
import type { Metadata } from "./metadata.js"
import {
  allowedMoves,
  applySubscriberChanges,
  type StatusActor,
  Subscriber,
  type SubscriberChanges,
  type SubscriberStatus,
  subscriberStatuses,
  statusTransitions,
  transitionStatus
} from "./subscriber.js"

const actors: ReadonlyArray<StatusActor> = ["api", "subscriber", "provider", "import"]

/**
 * The moves DESIGN.md §6 allows, written out here on their own so that a change to the table in
 * subscriber.ts has to be a change to the design too. An import (an operator bringing a list over
 * from another system) may carry that system's unsubscribes, bounces and complaints, and brings
 * a subscriber back only when told to resubscribe (see subscriber-import.ts).
 */
const allowedByDesign: ReadonlyArray<readonly [SubscriberStatus, SubscriberStatus, ReadonlyArray<StatusActor>]> = [
  ["active", "unsubscribed", ["api", "subscriber", "provider", "import"]],
  ["active", "bounced", ["provider", "import"]],
  ["active", "complained", ["provider", "import"]],
  ["unsubscribed", "active", ["api", "subscriber", "import"]],
  ["bounced", "active", ["api", "subscriber", "import"]],
  ["bounced", "unsubscribed", ["api", "subscriber", "import"]],
  ["complained", "active", ["subscriber", "import"]],
  ["complained", "unsubscribed", ["api", "subscriber", "import"]]
]

const designAllows = (from: SubscriberStatus, to: SubscriberStatus, actor: StatusActor): boolean =>
  from === to || allowedByDesign.some(([f, t, by]) => f === from && t === to && by.includes(actor))

const tableAllows = (from: SubscriberStatus, to: SubscriberStatus, actor: StatusActor): boolean =>
  from === to || statusTransitions.some((move) => move.from === from && move.to === to && move.by.includes(actor))

const everyCombination = subscriberStatuses.flatMap((from) =>
  subscriberStatuses.flatMap((to) => actors.map((actor) => ({ from, to, actor })))
)

const status = fc.constantFrom(...subscriberStatuses)
const actor = fc.constantFrom(...actors)

describe("the subscriber status table", () => {
  it("lists each move once and every status it names exists", () => {
    const keys = statusTransitions.map((move) => `${move.from}->${move.to}`)
    expect(new Set(keys).size).toBe(keys.length)
    for (const move of statusTransitions) {
      expect(subscriberStatuses).toContain(move.from)
      expect(subscriberStatuses).toContain(move.to)
      expect(move.from).not.toBe(move.to)
      expect(move.by.length).toBeGreaterThan(0)
      expect(move.why.length).toBeGreaterThan(0)
    }
  })

  it("says what the design says, move by move and actor by actor", () => {
    expect(everyCombination).toHaveLength(4 * 4 * 4)
    for (const { actor, from, to } of everyCombination) {
      expect({ from, to, actor, allowed: tableAllows(from, to, actor) })
        .toEqual({ from, to, actor, allowed: designAllows(from, to, actor) })
    }
  })

  it.prop(
    "transitionStatus allows exactly the listed moves for the listed actors, and staying put",
    [fc.constantFrom(...everyCombination)],
    ([{ actor, from, to }]) => {
      const result = transitionStatus(from, to, actor)
      if (tableAllows(from, to, actor)) {
        expect(result).toEqual(Either.right(to))
      } else {
        if (Either.isRight(result)) expect.fail(`${from} -> ${to} by ${actor} should be refused`)
        expect(result.left).toBeInstanceOf(InvalidStatusTransition)
        expect(result.left).toMatchObject({ _tag: "InvalidStatusTransition", from, to, actor })
        expect(result.left.message).toBe(`a subscriber cannot move from ${from} to ${to} through the ${actor}`)
      }
    },
    { fastCheck: { examples: everyCombination.map((combination) => [combination] as [typeof combination]) } }
  )

  it("offers as moves exactly the statuses transitionStatus would change to, for each status and actor", () => {
    for (const from of subscriberStatuses) {
      for (const who of actors) {
        const offered = allowedMoves(from, who)
        expect(offered).not.toContain(from)
        expect(offered).toEqual(subscriberStatuses.filter((to) => to !== from && designAllows(from, to, who)))
      }
    }
    expect(allowedMoves("complained", "api")).toEqual(["unsubscribed"])
    expect(allowedMoves("bounced", "api")).toEqual(["active", "unsubscribed"])
  })

  it.prop(
    "whatever the API asks, starting from active it never marks a subscriber bounced or complained",
    [fc.array(status, { maxLength: 30 })],
    ([wishes]) => {
      let current: SubscriberStatus = "active"
      for (const wish of wishes) {
        current = Either.getOrElse(transitionStatus(current, wish, "api"), () => current)
        expect(["active", "unsubscribed"]).toContain(current)
      }
    }
  )

  it.prop(
    "along any series of requests, a status changes only by a listed move of a listed actor",
    [status, fc.array(fc.tuple(status, actor), { maxLength: 30 })],
    ([start, requests]) => {
      let current = start
      for (const [wish, who] of requests) {
        const next = Either.getOrElse(transitionStatus(current, wish, who), () => current)
        expect(next === wish || next === current).toBe(true)
        if (next !== current) {
          expect(designAllows(current, next, who)).toBe(true)
          if (current === "complained" && next === "active") expect(["subscriber", "import"]).toContain(who)
          if (next === "bounced" || next === "complained") expect(["provider", "import"]).toContain(who)
        }
        current = next
      }
    }
  )
})

describe("the rules of DESIGN.md §6", () => {
  it("a complained subscriber can be reactivated by the subscriber only (or an import told to resubscribe)", () => {
    expect(transitionStatus("complained", "active", "subscriber")).toEqual(Either.right("active"))
    expect(Either.isLeft(transitionStatus("complained", "active", "api"))).toBe(true)
    expect(Either.isLeft(transitionStatus("complained", "active", "provider"))).toBe(true)
  })

  it("the API cannot mark a subscriber bounced or complained", () => {
    for (const from of subscriberStatuses) {
      for (const to of ["bounced", "complained"] as const) {
        if (from !== to) expect(Either.isLeft(transitionStatus(from, to, "api"))).toBe(true)
      }
    }
  })

  it("the provider marks an active subscriber bounced or complained", () => {
    expect(transitionStatus("active", "bounced", "provider")).toEqual(Either.right("bounced"))
    expect(transitionStatus("active", "complained", "provider")).toEqual(Either.right("complained"))
  })

  it("the API can unsubscribe a subscriber from any state", () => {
    for (const from of subscriberStatuses) {
      expect(transitionStatus(from, "unsubscribed", "api")).toEqual(Either.right("unsubscribed"))
    }
  })

  it("a bounced subscriber can be reactivated by the API", () => {
    expect(transitionStatus("bounced", "active", "api")).toEqual(Either.right("active"))
  })

  it("an unsubscribed subscriber can come back through the API or on their own", () => {
    expect(transitionStatus("unsubscribed", "active", "api")).toEqual(Either.right("active"))
    expect(transitionStatus("unsubscribed", "active", "subscriber")).toEqual(Either.right("active"))
    expect(Either.isLeft(transitionStatus("unsubscribed", "active", "provider"))).toBe(true)
  })

  it("asking for the status a subscriber already has is always fine", () => {
    for (const s of subscriberStatuses) {
      for (const a of actors) expect(transitionStatus(s, s, a)).toEqual(Either.right(s))
    }
  })
})

const createdAt = new Date("2025-03-01T10:00:00.000Z")
const later = new Date("2025-03-02T08:30:00.000Z")

const subscriberWith = (fields: Partial<{
  status: SubscriberStatus
  metadata: Metadata
  firstName: string | null
  lastName: string | null
}>) =>
  new Subscriber({
    id: SubscriberId.make("0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"),
    organizationId: OrganizationId.make("0193a3f2-0000-7000-8000-000000000001"),
    email: EmailAddress.make("ada@example.com"),
    status: fields.status ?? "active",
    metadata: fields.metadata ?? {},
    firstName: fields.firstName === undefined ? null : fields.firstName,
    lastName: fields.lastName === undefined ? null : fields.lastName,
    createdAt,
    updatedAt: createdAt
  })

describe("applying changes to a subscriber", () => {
  it("names the fields that changed and moves updatedAt", () => {
    const before = subscriberWith({ firstName: "Ada" })
    const result = applySubscriberChanges(before, { firstName: "Ada", lastName: "Lovelace", metadata: { plan: "gold" } }, "api", later)
    const { changed, subscriber } = Either.getOrThrow(result)
    expect(changed).toEqual(["metadata", "last_name"])
    expect(subscriber.lastName).toBe("Lovelace")
    expect(subscriber.metadata).toEqual({ plan: "gold" })
    expect(subscriber.updatedAt).toEqual(later)
    expect(subscriber.createdAt).toEqual(createdAt)
  })

  it("changes nothing, not even updatedAt, when every value is the one already held", () => {
    const before = subscriberWith({ status: "unsubscribed", metadata: { a: 1, b: [1, 2] }, firstName: "Ada" })
    const { changed, subscriber } = Either.getOrThrow(
      applySubscriberChanges(before, { status: "unsubscribed", metadata: { b: [1, 2], a: 1 }, firstName: "Ada" }, "api", later)
    )
    expect(changed).toEqual([])
    expect(subscriber).toBe(before)
  })

  it("clears a name given as null", () => {
    const { changed, subscriber } = Either.getOrThrow(
      applySubscriberChanges(subscriberWith({ firstName: "Ada" }), { firstName: null }, "api", later)
    )
    expect(changed).toEqual(["first_name"])
    expect(subscriber.firstName).toBeNull()
  })

  it("refuses the whole change when the status move is not allowed", () => {
    const result = applySubscriberChanges(
      subscriberWith({ status: "complained" }),
      { status: "active", firstName: "Ada" },
      "api",
      later
    )
    expect(result).toEqual(Either.left(new InvalidStatusTransition({ from: "complained", to: "active", actor: "api" })))
  })

  const metadata = fc.dictionary(fc.constantFrom("plan", "source", "city"), fc.oneof(fc.integer({ min: 0, max: 3 }), fc.boolean()), {
    maxKeys: 3
  })
  const name = fc.option(fc.constantFrom("Ada", "Grace", "Alan"), { nil: null })
  const changes = fc.record({
    status: fc.option(status, { nil: undefined }),
    metadata: fc.option(metadata, { nil: undefined }),
    firstName: fc.option(name, { nil: undefined }),
    lastName: fc.option(name, { nil: undefined })
  }) as fc.Arbitrary<SubscriberChanges>

  it.prop(
    "reports exactly the fields whose values differ, and bumps updatedAt only then",
    [status, metadata, name, name, changes, actor],
    ([status, metadata, firstName, lastName, changes, who]) => {
      const before = subscriberWith({ status, metadata, firstName, lastName })
      const result = applySubscriberChanges(before, changes, who, later)
      if (changes.status !== undefined && Either.isLeft(transitionStatus(status, changes.status, who))) {
        expect(Either.isLeft(result)).toBe(true)
        return
      }
      const { changed, subscriber } = Either.getOrThrow(result)
      const expected: Array<string> = []
      if (changes.status !== undefined && changes.status !== status) expected.push("status")
      if (changes.metadata !== undefined && JSON.stringify(Object.entries(changes.metadata).sort()) !==
          JSON.stringify(Object.entries(metadata).sort())) expected.push("metadata")
      if (changes.firstName !== undefined && changes.firstName !== firstName) expected.push("first_name")
      if (changes.lastName !== undefined && changes.lastName !== lastName) expected.push("last_name")
      expect(changed).toEqual(expected)
      expect(subscriber.updatedAt).toEqual(expected.length > 0 ? later : createdAt)
      expect(subscriber.status).toBe(changes.status ?? status)
      expect(subscriber.firstName).toBe(changes.firstName === undefined ? firstName : changes.firstName)
      expect(subscriber.lastName).toBe(changes.lastName === undefined ? lastName : changes.lastName)
      expect(subscriber.id).toBe(before.id)
      expect(subscriber.createdAt).toEqual(createdAt)
    }
  )
})
