import { expect, layer } from "@effect/vitest"
import { SubscriberRepository } from "@roster/application"
import { Effect } from "effect"
import { givenOrganization, givenSubscriber, type PersistenceLayer } from "./fixtures.js"

const at = (iso: string) => new Date(iso)

/** The figures of an organization's start page: subscribers by status, and created per day in a time zone. */
export const subscriberFiguresContract = (persistence: PersistenceLayer) =>
  layer(persistence)("SubscriberRepository figures", (it) => {
    it.effect("counts an organization's subscribers by status, and no one else's", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* Effect.forEach(
          ["active", "active", "active", "unsubscribed", "bounced"] as const,
          (status) => givenSubscriber(organization.id, { status })
        )
        yield* givenSubscriber(other.id, { status: "complained" })
        const counts = yield* subscribers.countByStatus(organization.id)
        expect([...counts].sort((a, b) => a.status.localeCompare(b.status))).toStrictEqual([
          { status: "active", count: 3 },
          { status: "bounced", count: 1 },
          { status: "unsubscribed", count: 1 }
        ])
        expect(yield* subscribers.countByStatus((yield* givenOrganization()).id)).toStrictEqual([])
      }))

    it.effect("counts subscribers created per day as the time zone draws the days, within the range", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        // 23:30 UTC is the next day in Berlin (UTC+1 in winter); 03:00 UTC is the day before in New York (UTC-5).
        const times = ["2025-01-10T23:30:00Z", "2025-01-10T12:00:00Z", "2025-01-11T10:00:00Z", "2025-01-09T23:59:59Z", "2025-01-11T03:00:00Z"]
        for (const createdAt of times) {
          yield* givenSubscriber(organization.id, { createdAt: at(createdAt) })
        }
        yield* givenSubscriber(other.id, { createdAt: at("2025-01-10T12:00:00Z") })
        // Outside the range on either side.
        yield* givenSubscriber(organization.id, { createdAt: at("2025-01-01T00:00:00Z") })
        yield* givenSubscriber(organization.id, { createdAt: at("2025-01-20T00:00:00Z") })
        const range = { from: at("2025-01-05T00:00:00Z"), to: at("2025-01-20T00:00:00Z") }

        expect(yield* subscribers.createdPerDay(organization.id, { ...range, timeZone: "UTC" })).toStrictEqual([
          { day: "2025-01-09", count: 1 },
          { day: "2025-01-10", count: 2 },
          { day: "2025-01-11", count: 2 }
        ])
        expect(yield* subscribers.createdPerDay(organization.id, { ...range, timeZone: "Europe/Berlin" })).toStrictEqual([
          { day: "2025-01-10", count: 2 },
          { day: "2025-01-11", count: 3 }
        ])
        expect(yield* subscribers.createdPerDay(organization.id, { ...range, timeZone: "America/New_York" })).toStrictEqual([
          { day: "2025-01-09", count: 1 },
          { day: "2025-01-10", count: 3 },
          { day: "2025-01-11", count: 1 }
        ])
        expect(yield* subscribers.createdPerDay((yield* givenOrganization()).id, { ...range, timeZone: "UTC" })).toStrictEqual([])
      }))
  })
