import { describe, expect, it } from "@effect/vitest"
import { SubscriberExports, Subscribers } from "@roster/application"
import { Chunk, Effect, Layer, Stream } from "effect"
import { email, openOrganization, UseCasesInMemory } from "./test-kit.js"

const inMemory = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provide(self, SubscriberExports.Default.pipe(Layer.provideMerge(UseCasesInMemory)))

describe("exporting subscribers", () => {
  it.effect("reads every subscriber a page at a time, oldest first, with tags and the metadata keys in use", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const subscribers = yield* Subscribers
      for (const n of [1, 2, 3, 4, 5]) {
        yield* subscribers.create(principal, {
          email: email(`r${n}@example.com`),
          tagNames: n % 2 === 0 ? ["Even"] : [],
          metadata: n === 3 ? { plan: "pro" } : n === 4 ? { city: "Graz" } : {}
        })
      }
      const exports = yield* SubscriberExports
      const all = yield* exports.open(organization.id, {}, 2)
      expect(all.metadataKeys).toStrictEqual(["city", "plan"])
      expect(all.subscriberCount).toBe(5)
      const pages = Chunk.toReadonlyArray(yield* Stream.runCollect(all.pages))
      expect(pages.map((page) => page.length)).toStrictEqual([2, 2, 1])
      expect(pages.flat().map((v) => v.email)).toStrictEqual(["r1", "r2", "r3", "r4", "r5"].map((r) => `${r}@example.com`))
      expect(pages.flat()[1]!.tagNames).toStrictEqual(["Even"])
      expect(pages.flat()[0]!.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

      const even = yield* exports.open(organization.id, { tagName: "EVEN" }, 2)
      expect(even.metadataKeys).toStrictEqual(["city"])
      expect(even.subscriberCount).toBe(2)
      const evenRows = Chunk.toReadonlyArray(yield* Stream.runCollect(even.pages)).flat()
      expect(evenRows.map((v) => v.email)).toStrictEqual(["r2@example.com", "r4@example.com"])

      const none = yield* exports.open(organization.id, { status: "bounced" }, 2)
      expect(none.subscriberCount).toBe(0)
      expect(Chunk.size(yield* Stream.runCollect(none.pages))).toBe(0)
      expect(yield* Effect.flip(exports.open(organization.id, { tagName: "Odd" })))
        .toMatchObject({ _tag: "InvalidInput", field: "tag", problem: "no tag named 'Odd' in this organization" })
    })))
})
