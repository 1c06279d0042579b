import { describe, expect, it } from "@effect/vitest"
import { CampaignRepository, EmailUsage, OrganizationOverviews, Subscribers } from "@roster/application"
import { Effect, Layer, TestClock } from "effect"
import { anEraOfItsOwn, givenAttempts, givenDelivery, givenEndpoint, instant } from "../contract/fixtures.js"
import { aCampaign } from "../contract/mail-fixtures.js"
import { email, keyFor, openOrganization, UseCasesInMemory } from "./test-kit.js"

const inMemory = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provide(self, OrganizationOverviews.Default.pipe(Layer.provideMerge(UseCasesInMemory)))

/** Subscribers created at these instants, in this order (the clock moves forward to each). */
const createdAt = (principal: Parameters<Subscribers["create"]>[0], instants: ReadonlyArray<string>) =>
  Effect.forEach(instants, (at, i) =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse(at))
      return yield* (yield* Subscribers).create(principal, { email: email(`reader-${i}@example.com`) })
    }))

describe("an organization's overview", () => {
  it.effect("of an empty organization: every status at zero, 30 days at zero ending today, nothing sending or failing", () =>
    inMemory(Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-03-15T12:00:00Z"))
      const { principal } = yield* openOrganization()
      const figures = yield* (yield* OrganizationOverviews).show(principal, {})
      expect(figures.timeZone).toBe("UTC")
      expect(figures.tier).toBe("free")
      expect(figures.byStatus).toStrictEqual([
        { status: "active", count: 0 },
        { status: "unsubscribed", count: 0 },
        { status: "bounced", count: 0 },
        { status: "complained", count: 0 }
      ])
      expect(figures.subscribers).toBe(0)
      expect(figures.emailsThisMonth).toBe(0)
      expect(figures.subscriberLimit).toBeGreaterThan(0)
      expect(figures.emailLimit).toBeGreaterThan(0)
      expect(figures.days).toHaveLength(30)
      expect(figures.days[0]).toStrictEqual({ day: "2025-02-14", created: 0 })
      expect(figures.days[29]).toStrictEqual({ day: "2025-03-15", created: 0 })
      expect(figures.days.every((d) => d.created === 0)).toBe(true)
      expect(figures.sending).toStrictEqual([])
      expect(figures.failingEndpoints).toStrictEqual([])
    })))

  it.effect("counts the days as the viewer's time zone draws them, at both ends of the 30", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      // 2025-06-01 10:00 UTC is the first of UTC's 30 days ending 30 June, and before Berlin's (2 June to 1 July).
      // 2025-06-30 22:30 UTC is still 30 June in UTC and New York, but 1 July in Berlin (UTC+2).
      yield* createdAt(principal, ["2025-05-31T23:00:00Z", "2025-06-01T10:00:00Z", "2025-06-15T12:00:00Z", "2025-06-30T22:30:00Z"])
      const overviews = yield* OrganizationOverviews

      const utc = yield* overviews.show(principal, { timeZone: "UTC" })
      expect(utc.days[0]).toStrictEqual({ day: "2025-06-01", created: 1 })
      expect(utc.days[29]).toStrictEqual({ day: "2025-06-30", created: 1 })
      expect(utc.days.reduce((sum, d) => sum + d.created, 0)).toBe(3)

      const berlin = yield* overviews.show(principal, { timeZone: "Europe/Berlin" })
      expect(berlin.timeZone).toBe("Europe/Berlin")
      expect(berlin.days[0]).toStrictEqual({ day: "2025-06-02", created: 0 })
      expect(berlin.days[29]).toStrictEqual({ day: "2025-07-01", created: 1 })
      expect(berlin.days.find((d) => d.day === "2025-06-15")).toStrictEqual({ day: "2025-06-15", created: 1 })
      expect(berlin.days.reduce((sum, d) => sum + d.created, 0)).toBe(2)

      const newYork = yield* overviews.show(principal, { timeZone: "America/New_York" })
      expect(newYork.days[29]).toStrictEqual({ day: "2025-06-30", created: 1 })
      expect(newYork.days[0]).toStrictEqual({ day: "2025-06-01", created: 1 })
      expect(newYork.subscribers).toBe(4)
    })))

  it.effect("takes a time zone it does not know as UTC", () =>
    inMemory(Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-03-15T23:30:00Z"))
      const { principal } = yield* openOrganization()
      const overviews = yield* OrganizationOverviews
      for (const timeZone of ["Mars/Olympus_Mons", "", "<script>"]) {
        const figures = yield* overviews.show(principal, { timeZone })
        expect(figures.timeZone).toBe("UTC")
        expect(figures.days[29]!.day).toBe("2025-03-15")
      }
    })))

  it.effect("counts statuses, this month's emails, the campaigns sending and the failing endpoints", () =>
    inMemory(Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-03-15T12:00:00Z"))
      const { organization, principal } = yield* openOrganization()
      const other = yield* openOrganization()
      const subscribers = yield* Subscribers
      const [first] = yield* createdAt(principal, ["2025-03-15T12:00:00Z", "2025-03-15T12:00:01Z", "2025-03-15T12:00:02Z"])
      yield* subscribers.update(principal, first!.subscriber.id, { status: "unsubscribed" })
      yield* createdAt(other.principal, ["2025-03-15T12:00:03Z"])
      const usage = yield* EmailUsage
      yield* usage.reserve(organization.id, "2025-03", 7, null)
      yield* usage.reserve(organization.id, "2025-02", 100, null)
      const campaigns = yield* CampaignRepository
      const sending = aCampaign(organization.id, new Date("2025-03-15T12:00:00Z"), { status: "sending", name: "March issue" })
      yield* campaigns.insert(sending)
      yield* campaigns.insert(aCampaign(organization.id, new Date("2025-03-15T12:00:00Z"), { status: "draft" }))
      yield* campaigns.insert(aCampaign(other.organization.id, new Date("2025-03-15T12:00:00Z"), { status: "sending" }))
      const failing = yield* givenEndpoint(organization.id, { failingSince: new Date("2025-03-14T08:00:00Z"), createdAt: instant(1) })
      const gaveUp = yield* givenEndpoint(organization.id, { status: "disabled", disabledReason: "failing", createdAt: instant(2) })
      // Two failed attempts in the last seven days, one before them.
      const delivery = yield* givenDelivery(failing, { createdAt: anEraOfItsOwn()(0) })
      yield* givenAttempts(delivery, [
        { status: "failed", at: new Date("2025-03-01T08:00:00Z") },
        { status: "failed", at: new Date("2025-03-14T08:00:00Z") },
        { status: "failed", at: new Date("2025-03-15T08:00:00Z") }
      ], { status: "pending", nextAttemptAt: new Date("2025-03-15T13:00:00Z") })
      yield* givenEndpoint(organization.id, {})
      yield* givenEndpoint(organization.id, { status: "disabled", disabledReason: "by_user" })
      yield* givenEndpoint(other.organization.id, { failingSince: new Date("2025-03-14T08:00:00Z") })

      const figures = yield* (yield* OrganizationOverviews).show(principal, { timeZone: "UTC" })
      expect(figures.byStatus.filter((s) => s.count > 0)).toStrictEqual([
        { status: "active", count: 2 },
        { status: "unsubscribed", count: 1 }
      ])
      expect(figures.subscribers).toBe(3)
      expect(figures.days[29]).toStrictEqual({ day: "2025-03-15", created: 3 })
      expect(figures.emailsThisMonth).toBe(7)
      expect(figures.sending.map((c) => c.id)).toStrictEqual([sending.id])
      expect(figures.failingEndpoints?.map((f) => [f.endpoint.id, f.failingSince, f.failedAttempts])).toStrictEqual([
        [failing.id, new Date("2025-03-14T08:00:00Z"), 2],
        [gaveUp.id, null, 0]
      ])
    })))

  it.effect("leaves the webhooks out for a credential that may not manage them, and needs subscribers:read", () =>
    inMemory(Effect.gen(function*() {
      const { organization } = yield* openOrganization()
      yield* givenEndpoint(organization.id, { failingSince: new Date("2025-03-14T08:00:00Z") })
      const overviews = yield* OrganizationOverviews
      const reader = yield* keyFor(organization.id, ["subscribers:read", "campaigns:read"])
      expect((yield* overviews.show(reader, {})).failingEndpoints).toBeNull()
      const tagsOnly = yield* keyFor(organization.id, ["tags:read"])
      expect(yield* Effect.flip(overviews.show(tagsOnly, {}))).toMatchObject({ _tag: "MissingScope", scope: "subscribers:read" })
    })))
})
