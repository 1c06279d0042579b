import { EmailUsage } from "@roster/application"
import { withinLimit } from "@roster/domain"
import { Effect, Layer } from "effect"
import { MemoryStore } from "./memory-store.js"

const keyOf = (organizationId: string, month: string) => `${organizationId}/${month}`

export const MemoryEmailUsageLive = Layer.effect(
  EmailUsage,
  Effect.map(MemoryStore, (store) =>
    EmailUsage.of({
      reserve: (organizationId, month, count, max) =>
        store.write((t) => {
          const key = keyOf(organizationId, month)
          const current = t.emailUsage.get(key) ?? 0
          if (!withinLimit(max, current, count)) return false
          t.emailUsage.set(key, current + count)
          return true
        }),
      release: (organizationId, month, count) =>
        store.write((t) => {
          const key = keyOf(organizationId, month)
          t.emailUsage.set(key, Math.max(0, (t.emailUsage.get(key) ?? 0) - count))
        }),
      sentIn: (organizationId, month) => store.read((t) => t.emailUsage.get(keyOf(organizationId, month)) ?? 0)
    })))
