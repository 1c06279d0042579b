import { assert, expect, layer } from "@effect/vitest"
import { WebhookDeliveryRepository, WebhookEndpointRepository } from "@roster/application"
import { MAX_WEBHOOK_ENDPOINTS, OrganizationId, WebhookEndpoint, WebhookEndpointId } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import {
  anEndpoint,
  anEraOfItsOwn,
  deletingAfterwards,
  givenAttempts,
  givenDelivery,
  givenEndpoint,
  givenOrganization,
  instant,
  type PersistenceLayer
} from "./fixtures.js"

const nobody = () => WebhookEndpointId.make(randomUUID())

export const webhookEndpointRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("WebhookEndpointRepository", (it) => {
    it.effect("stores an endpoint with every field and finds it within its organization only", () =>
      Effect.gen(function*() {
        const endpoints = yield* WebhookEndpointRepository
        const organization = yield* givenOrganization()
        const endpoint = new WebhookEndpoint({
          ...anEndpoint(organization.id, { events: ["tag.unsubscribed", "subscriber.deleted"], createdAt: instant(4) }),
          description: null,
          previousSigningSecret: "whsec_cHJldmlvdXMgc2VjcmV0IG9mIDMyIGJ5dGVzIQ==",
          previousSigningSecretExpiresAt: instant(86_404),
          failingSince: instant(3),
          updatedAt: instant(5)
        })
        yield* endpoints.insert(endpoint, null)

        expect(yield* endpoints.findById(organization.id, endpoint.id)).toStrictEqual(Option.some(endpoint))
        assert.isTrue(Option.isNone(yield* endpoints.findById((yield* givenOrganization()).id, endpoint.id)))
        assert.isTrue(Option.isNone(yield* endpoints.findById(organization.id, nobody())))
      }))

    it.effect("lists an organization's endpoints oldest first and counts them", () =>
      Effect.gen(function*() {
        const endpoints = yield* WebhookEndpointRepository
        const organization = yield* givenOrganization()
        const late = yield* givenEndpoint(organization.id, { createdAt: instant(9) })
        const early = yield* givenEndpoint(organization.id, { createdAt: instant(1), status: "disabled" })
        const tied = [
          yield* givenEndpoint(organization.id, { createdAt: instant(5) }),
          yield* givenEndpoint(organization.id, { createdAt: instant(5) })
        ].sort((a, b) => (a.id < b.id ? -1 : 1))
        const other = yield* givenOrganization()
        yield* givenEndpoint(other.id)

        expect(yield* endpoints.listByOrganization(organization.id)).toStrictEqual([early, ...tied, late])
        expect(yield* endpoints.countByOrganization(organization.id)).toBe(4)
        expect(yield* endpoints.countByOrganization(other.id)).toBe(1)
        expect(yield* endpoints.listByOrganization((yield* givenOrganization()).id)).toStrictEqual([])
        expect(yield* endpoints.countByOrganization(OrganizationId.make(randomUUID()))).toBe(0)
      }))

    it.effect("an insert within a limit stores the endpoint only while the organization stays within it", () =>
      Effect.gen(function*() {
        const endpoints = yield* WebhookEndpointRepository
        const organization = yield* givenOrganization()
        expect(yield* endpoints.insert(anEndpoint(organization.id), 2)).toBe(true)
        expect(yield* endpoints.insert(anEndpoint(organization.id), 2)).toBe(true)
        const third = anEndpoint(organization.id)
        expect(yield* endpoints.insert(third, 2)).toBe(false)
        assert.isTrue(Option.isNone(yield* endpoints.findById(organization.id, third.id)))
        // Another organization's endpoints do not count.
        expect(yield* endpoints.insert(anEndpoint((yield* givenOrganization()).id), 2)).toBe(true)
        expect(yield* endpoints.countByOrganization(organization.id)).toBe(2)
      }))

    it.effect(`eight concurrent inserts at ${MAX_WEBHOOK_ENDPOINTS - 1} endpoints: exactly one is stored`, () =>
      Effect.gen(function*() {
        const endpoints = yield* WebhookEndpointRepository
        const organization = yield* givenOrganization()
        yield* Effect.forEach(
          Array.from({ length: MAX_WEBHOOK_ENDPOINTS - 1 }, () => anEndpoint(organization.id)),
          (endpoint) => endpoints.insert(endpoint, null),
          { concurrency: 8 }
        )
        const stored = yield* Effect.forEach(
          Array.from({ length: 8 }, () => anEndpoint(organization.id)),
          (endpoint) => endpoints.insert(endpoint, MAX_WEBHOOK_ENDPOINTS),
          { concurrency: "unbounded" }
        )
        expect(stored.filter(Boolean)).toHaveLength(1)
        expect(yield* endpoints.countByOrganization(organization.id)).toBe(MAX_WEBHOOK_ENDPOINTS)
      }))

    it.effect("an update stores every field as given; one naming another organization changes nothing", () =>
      Effect.gen(function*() {
        const endpoints = yield* WebhookEndpointRepository
        const organization = yield* givenOrganization()
        const endpoint = yield* givenEndpoint(organization.id, { createdAt: instant(1) })
        const updated = new WebhookEndpoint({
          ...endpoint,
          url: "https://crm.example.org/hooks?source=roster",
          events: ["subscriber.note_added"],
          description: "Notes only",
          status: "disabled",
          disabledReason: "by_user",
          signingSecret: "whsec_bmV3IHNlY3JldCBvZiB0aGlydHktdHdvIGJ5dGVzIQ==",
          previousSigningSecret: endpoint.signingSecret,
          previousSigningSecretExpiresAt: instant(86_430),
          failingSince: instant(20),
          updatedAt: instant(30)
        })
        yield* endpoints.update(updated)
        expect(yield* endpoints.findById(organization.id, endpoint.id)).toStrictEqual(Option.some(updated))

        const stranger = yield* givenOrganization()
        yield* endpoints.update(new WebhookEndpoint({ ...updated, organizationId: stranger.id, url: "https://evil.example" }))
        expect(yield* endpoints.findById(organization.id, endpoint.id)).toStrictEqual(Option.some(updated))
        assert.isTrue(Option.isNone(yield* endpoints.findById(stranger.id, endpoint.id)))
      }))

    it.effect("deletes an endpoint once, with its deliveries and their attempts; another organization cannot", () =>
      Effect.gen(function*() {
        const endpoints = yield* WebhookEndpointRepository
        const deliveries = yield* WebhookDeliveryRepository
        const organization = yield* givenOrganization()
        const stranger = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const endpoint = yield* givenEndpoint(organization.id)
          const staying = yield* givenEndpoint(organization.id)
          const sent = yield* givenDelivery(endpoint, { createdAt: era(1) })
          yield* givenAttempts(sent, [{ status: "succeeded", at: era(2) }], { status: "succeeded", nextAttemptAt: null })
          const waiting = yield* givenDelivery(endpoint, { nextAttemptAt: instant(60) })
          const kept = yield* givenDelivery(staying, { nextAttemptAt: instant(60) })

          assert.isFalse(yield* endpoints.delete(stranger.id, endpoint.id))
          assert.isTrue(Option.isSome(yield* endpoints.findById(organization.id, endpoint.id)))

          assert.isTrue(yield* endpoints.delete(organization.id, endpoint.id))
          assert.isFalse(yield* endpoints.delete(organization.id, endpoint.id))
          assert.isFalse(yield* endpoints.delete(organization.id, nobody()))

          assert.isTrue(Option.isNone(yield* endpoints.findById(organization.id, endpoint.id)))
          assert.isTrue(Option.isNone(yield* endpoints.organizationOf(endpoint.id)))
          assert.isTrue(Option.isNone(yield* deliveries.findById(organization.id, endpoint.id, sent.id)))
          assert.isTrue(Option.isNone(yield* deliveries.findById(organization.id, endpoint.id, waiting.id)))
          expect(
            yield* deliveries.stats({ organizationId: organization.id, endpointId: Option.none(), since: new Date(0) })
          ).toStrictEqual({
            attempts: 0,
            succeeded: 0,
            failed: 0,
            p50Ms: null,
            p95Ms: null,
            lastSuccessAt: null,
            lastFailureAt: null,
            pending: 1
          })
          expect(yield* deliveries.findById(organization.id, staying.id, kept.id)).toStrictEqual(
            Option.some({ delivery: kept, attempts: [] })
          )
          expect(yield* endpoints.listByOrganization(organization.id)).toStrictEqual([staying])
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("tells which organization an endpoint id belongs to", () =>
      Effect.gen(function*() {
        const endpoints = yield* WebhookEndpointRepository
        const organization = yield* givenOrganization()
        const endpoint = yield* givenEndpoint(organization.id)
        expect(yield* endpoints.organizationOf(endpoint.id)).toStrictEqual(Option.some(organization.id))
        assert.isTrue(Option.isNone(yield* endpoints.organizationOf(nobody())))
      }))

    it.effect("answers the active endpoints of the organizations asked about", () =>
      Effect.gen(function*() {
        const endpoints = yield* WebhookEndpointRepository
        const [first, second, third] = [yield* givenOrganization(), yield* givenOrganization(), yield* givenOrganization()]
        const firstActive = [
          yield* givenEndpoint(first.id, { createdAt: instant(2) }),
          yield* givenEndpoint(first.id, { createdAt: instant(1) })
        ]
        yield* givenEndpoint(first.id, { status: "disabled", disabledReason: "failing" })
        const secondActive = yield* givenEndpoint(second.id)
        yield* givenEndpoint(third.id)

        const active = yield* endpoints.activeOf([first.id, second.id])
        expect(active.map((endpoint) => endpoint.id).sort()).toStrictEqual(
          [...firstActive, secondActive].map((endpoint) => endpoint.id).sort()
        )
        expect(yield* endpoints.activeOf([first.id])).toStrictEqual([firstActive[1], firstActive[0]])
        expect(yield* endpoints.activeOf([])).toStrictEqual([])
        expect(yield* endpoints.activeOf([OrganizationId.make(randomUUID())])).toStrictEqual([])
      }))

    it.effect("a failing endpoint keeps the start of its run of failures until it answers", () =>
      Effect.gen(function*() {
        const endpoints = yield* WebhookEndpointRepository
        const organization = yield* givenOrganization()
        const endpoint = yield* givenEndpoint(organization.id)
        const failingSince = (yield* endpoints.findById(organization.id, endpoint.id)).pipe(
          Option.map((found) => found.failingSince)
        )
        expect(failingSince).toStrictEqual(Option.some(null))

        expect(yield* endpoints.markFailed(endpoint.id, instant(10))).toStrictEqual(Option.some(instant(10)))
        expect(yield* endpoints.markFailed(endpoint.id, instant(20))).toStrictEqual(Option.some(instant(10)))
        expect(yield* endpoints.findById(organization.id, endpoint.id)).toStrictEqual(
          Option.some(new WebhookEndpoint({ ...endpoint, failingSince: instant(10) }))
        )

        yield* endpoints.markAnswered(endpoint.id)
        expect(yield* endpoints.findById(organization.id, endpoint.id)).toStrictEqual(Option.some(endpoint))
        yield* endpoints.markAnswered(endpoint.id)
        expect(yield* endpoints.markFailed(endpoint.id, instant(30))).toStrictEqual(Option.some(instant(30)))

        assert.isTrue(Option.isNone(yield* endpoints.markFailed(nobody(), instant(40))))
        yield* endpoints.markAnswered(nobody())
      }))

    it.effect("disables an active endpoint once: one already disabled keeps its reason", () =>
      Effect.gen(function*() {
        const endpoints = yield* WebhookEndpointRepository
        const organization = yield* givenOrganization()
        const endpoint = yield* givenEndpoint(organization.id)
        const paused = yield* givenEndpoint(organization.id, { status: "disabled", disabledReason: "by_user" })

        yield* endpoints.disable(endpoint.id, "gone", instant(50))
        const gone = new WebhookEndpoint({ ...endpoint, status: "disabled", disabledReason: "gone", updatedAt: instant(50) })
        expect(yield* endpoints.findById(organization.id, endpoint.id)).toStrictEqual(Option.some(gone))

        yield* endpoints.disable(endpoint.id, "failing", instant(60))
        yield* endpoints.disable(paused.id, "failing", instant(60))
        expect(yield* endpoints.findById(organization.id, endpoint.id)).toStrictEqual(Option.some(gone))
        expect(yield* endpoints.findById(organization.id, paused.id)).toStrictEqual(Option.some(paused))
        yield* endpoints.disable(nobody(), "gone", instant(70))
      }))
  })
