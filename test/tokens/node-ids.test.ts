import { Ids } from "@roster/application"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { NodeIdsLive } from "../../adapters/node/index.js"

const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe("new identifiers", () => {
  it.effect("taken many at once are distinct version 7 UUIDs, in the order they were made, after those made before", () =>
    Effect.gen(function*() {
      const ids = yield* Ids
      const first = yield* ids.next
      const many = yield* ids.take(5000)
      const last = yield* ids.next
      expect(many).toHaveLength(5000)
      expect(new Set([first, ...many, last]).size).toBe(5002)
      for (const id of many) expect(id).toMatch(uuidV7)
      expect([first, ...many, last]).toStrictEqual([first, ...many, last].sort())
      expect(yield* ids.take(0)).toStrictEqual([])
    }).pipe(Effect.provide(NodeIdsLive)))
})
