import { Outbox } from "@roster/application"
import { Effect, Layer } from "effect"
import { MemoryStore } from "./memory-store.js"

export const MemoryOutboxLive = Layer.effect(
  Outbox,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    return Outbox.of({
      record: (events) => store.write((t) => void t.events.push(...events)),
      recorded: (organizationId) => store.read((t) => t.events.filter((e) => e.organizationId === organizationId))
    })
  })
)
