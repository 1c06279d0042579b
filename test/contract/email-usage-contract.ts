import { expect, layer } from "@effect/vitest"
import { EmailUsage } from "@roster/application"
import { Effect } from "effect"
import { deletingAfterwards, givenOrganization, type PersistenceLayer } from "./fixtures.js"

export const emailUsageContract = (persistence: PersistenceLayer) =>
  layer(persistence)("EmailUsage", (it) => {
    it.effect("counts emails per organization and month within the limit, and gives back what was not sent", () =>
      Effect.gen(function*() {
        const usage = yield* EmailUsage
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* Effect.gen(function*() {
          expect(yield* usage.reserve(organization.id, "2026-11", 3, 5)).toBe(true)
          expect(yield* usage.reserve(organization.id, "2026-11", 3, 5)).toBe(false)
          expect(yield* usage.reserve(organization.id, "2026-11", 2, 5)).toBe(true)
          expect(yield* usage.reserve(organization.id, "2026-11", 1, 5)).toBe(false)
          expect(yield* usage.reserve(organization.id, "2026-12", 5, 5)).toBe(true)
          expect(yield* usage.reserve(other.id, "2026-11", 6, 5)).toBe(false)
          expect(yield* usage.reserve(other.id, "2026-11", 6, null)).toBe(true)
          expect(yield* usage.sentIn(organization.id, "2026-11")).toBe(5)
          expect(yield* usage.sentIn(other.id, "2026-11")).toBe(6)
          expect(yield* usage.sentIn(other.id, "2027-01")).toBe(0)
          yield* usage.release(organization.id, "2026-11", 2)
          expect(yield* usage.sentIn(organization.id, "2026-11")).toBe(3)
          expect(yield* usage.reserve(organization.id, "2026-11", 2, 5)).toBe(true)
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("concurrent reservations never pass the limit together", () =>
      Effect.gen(function*() {
        const usage = yield* EmailUsage
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const answers = yield* Effect.all(
            Array.from({ length: 25 }, () => usage.reserve(organization.id, "2026-11", 1, 10)),
            { concurrency: "unbounded" }
          )
          expect(answers.filter(Boolean)).toHaveLength(10)
          expect(yield* usage.sentIn(organization.id, "2026-11")).toBe(10)
        }).pipe(deletingAfterwards([organization.id]))
      }))
  })
