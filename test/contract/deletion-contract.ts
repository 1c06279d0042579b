import { assert, expect, layer } from "@effect/vitest"
import {
  ApiKeyRepository,
  MembershipRepository,
  OrganizationRepository,
  Outbox,
  SessionRepository,
  SubscriberRepository,
  TagAssignments,
  TagRepository,
  UnitOfWork,
  UserRepository,
  WebhookDeliveryRepository,
  WebhookEndpointRepository
} from "@roster/application"
import { type OrganizationId, Tag, type UserId } from "@roster/domain"
import { Effect, Exit, type Layer, Option } from "effect"
import {
  anEraOfItsOwn,
  anEvent,
  aSession,
  givenAttempts,
  givenDelivery,
  givenEndpoint,
  givenApiKey,
  givenMembership,
  givenOrganization,
  givenSubscriber,
  givenTag,
  givenUser,
  instant,
  type Persistence
} from "./fixtures.js"

/**
 * Deleting a user straight in the database, as an operator would: no port deletes users yet, and
 * what goes with them is the schema's promise.
 */
export interface DirectDeletion<R> {
  readonly deleteUser: (id: UserId) => Effect.Effect<void, never, R>
}

/**
 * An organization with one of everything it can own: a tagged subscriber, an API key, a member,
 * events, a webhook endpoint with a delivery sent (one attempt) and one waiting.
 */
const givenFurnishedOrganization = Effect.gen(function*() {
  const organization = yield* givenOrganization()
  const subscriber = yield* givenSubscriber(organization.id)
  const tag = yield* givenTag(organization.id)
  yield* (yield* TagAssignments).attach(organization.id, subscriber.id, [tag.id], instant(1), null)
  const apiKey = yield* givenApiKey(organization.id)
  const member = yield* givenUser()
  const membership = yield* givenMembership(organization.id, member.id, { role: "owner" })
  const events = [anEvent(organization.id, "subscriber.created"), anEvent(organization.id, "tag.subscribed")]
  yield* (yield* Outbox).record(events)
  const endpoint = yield* givenEndpoint(organization.id)
  const era = anEraOfItsOwn()
  // Sent at once: nothing of it is left to claim.
  const sent = yield* givenAttempts(
    yield* givenDelivery(endpoint, { createdAt: era(1) }),
    [{ status: "succeeded", at: era(2) }],
    { status: "succeeded", nextAttemptAt: null }
  )
  const waiting = yield* givenDelivery(endpoint, { createdAt: instant(3), nextAttemptAt: instant(10 * 365 * 24 * 3600) })
  // The deliveries' events are recorded too.
  const recorded = yield* (yield* Outbox).recorded(organization.id)
  expect(recorded.slice(0, events.length)).toStrictEqual(events)
  return { organization, subscriber, tag, apiKey, member, membership, events: recorded, endpoint, sent, waiting }
})

/** Every attempt and waiting delivery of the organization, as its stats count them. */
const webhookStatsOf = (organizationId: OrganizationId) =>
  Effect.flatMap(WebhookDeliveryRepository, (deliveries) =>
    deliveries.stats({ organizationId, endpointId: Option.none(), since: new Date(0) })).pipe(
      Effect.map((stats) => ({ attempts: stats.attempts, pending: stats.pending }))
    )

/** Everything the organization owned is gone, as seen through every port. */
const assertNothingLeftOf = (owned: Effect.Effect.Success<typeof givenFurnishedOrganization>) =>
  Effect.gen(function*() {
    const { apiKey, endpoint, member, organization, sent, subscriber, tag, waiting } = owned
    const subscribers = yield* SubscriberRepository
    const endpoints = yield* WebhookEndpointRepository
    const deliveries = yield* WebhookDeliveryRepository
    const tags = yield* TagRepository
    const apiKeys = yield* ApiKeyRepository
    const memberships = yield* MembershipRepository
    assert.isTrue(Option.isNone(yield* (yield* OrganizationRepository).findById(organization.id)))
    assert.isTrue(Option.isNone(yield* subscribers.organizationOf(subscriber.id)))
    expect(yield* subscribers.count(organization.id, {})).toBe(0)
    assert.isTrue(Option.isNone(yield* tags.organizationOf(tag.id)))
    expect(yield* tags.count(organization.id)).toBe(0)
    expect(yield* (yield* TagAssignments).tagsOf(organization.id, [subscriber.id])).toStrictEqual(new Map())
    assert.isTrue(Option.isNone(yield* apiKeys.findByHash(apiKey.keyHash)))
    assert.isTrue(Option.isNone(yield* apiKeys.organizationOf(apiKey.id)))
    expect(yield* apiKeys.listByOrganization(organization.id)).toStrictEqual([])
    assert.isTrue(Option.isNone(yield* memberships.find(organization.id, member.id)))
    expect(yield* memberships.countMembers([organization.id])).toStrictEqual(new Map())
    expect(yield* (yield* Outbox).recorded(organization.id)).toStrictEqual([])
    assert.isTrue(Option.isNone(yield* endpoints.findById(organization.id, endpoint.id)))
    assert.isTrue(Option.isNone(yield* endpoints.organizationOf(endpoint.id)))
    expect(yield* endpoints.countByOrganization(organization.id)).toBe(0)
    assert.isTrue(Option.isNone(yield* deliveries.findById(organization.id, endpoint.id, sent.delivery.id)))
    assert.isTrue(Option.isNone(yield* deliveries.findById(organization.id, endpoint.id, waiting.id)))
    expect(yield* webhookStatsOf(organization.id)).toStrictEqual({ attempts: 0, pending: 0 })
  })

/** Everything the organization owns is still there, as it was given. */
const assertAllLeftOf = (owned: Effect.Effect.Success<typeof givenFurnishedOrganization>) =>
  Effect.gen(function*() {
    const { apiKey, endpoint, events, member, membership, organization, sent, subscriber, tag, waiting } = owned
    assert.isTrue(Option.isSome(yield* (yield* OrganizationRepository).findById(organization.id)))
    expect(yield* (yield* SubscriberRepository).findById(organization.id, subscriber.id)).toStrictEqual(Option.some(subscriber))
    expect(yield* (yield* TagAssignments).tagsOf(organization.id, [subscriber.id])).toStrictEqual(
      new Map([[subscriber.id, [{ tag: new Tag({ ...tag, subscriberCount: 1 }), subscribedAt: instant(1) }]]])
    )
    expect(Option.map(yield* (yield* ApiKeyRepository).findByHash(apiKey.keyHash), (found) => found.apiKey)).toStrictEqual(
      Option.some(apiKey)
    )
    expect(yield* (yield* MembershipRepository).find(organization.id, member.id)).toStrictEqual(Option.some(membership))
    expect(yield* (yield* Outbox).recorded(organization.id)).toStrictEqual(events)
    expect(yield* (yield* WebhookEndpointRepository).findById(organization.id, endpoint.id)).toStrictEqual(
      Option.some(endpoint)
    )
    const deliveries = yield* WebhookDeliveryRepository
    expect(yield* deliveries.findById(organization.id, endpoint.id, sent.delivery.id)).toStrictEqual(Option.some(sent))
    expect(yield* deliveries.findById(organization.id, endpoint.id, waiting.id)).toStrictEqual(
      Option.some({ delivery: waiting, attempts: [] })
    )
    expect(yield* webhookStatsOf(organization.id)).toStrictEqual({ attempts: 1, pending: 1 })
  })

/**
 * What goes with a deleted organization, on every database; what goes with a deleted user, on a
 * database that can delete users directly (`direct`).
 */
export const deletionContract = <R>(persistence: Layer.Layer<Persistence | R, unknown>, direct?: DirectDeletion<R>) =>
  layer(persistence)("What goes with a deleted organization or user", (it) => {
    const deleteOrganization = (id: OrganizationId) =>
      Effect.flatMap(OrganizationRepository, (organizations) => organizations.delete(id))

    it.effect("everything an organization owns goes with it, from subscribers to webhook attempts; another's stays", () =>
      Effect.gen(function*() {
        const [deleted, kept] = [yield* givenFurnishedOrganization, yield* givenFurnishedOrganization]
        // A member of both keeps the other membership.
        const elsewhere = yield* givenMembership(kept.organization.id, deleted.member.id)

        assert.isTrue(yield* deleteOrganization(deleted.organization.id))

        yield* assertNothingLeftOf(deleted)
        yield* assertAllLeftOf(kept)
        expect(yield* (yield* MembershipRepository).listForUser(deleted.member.id)).toStrictEqual([
          { membership: elsewhere, organization: kept.organization }
        ])
      }))

    it.effect("an organization's memberships and keys go with it; its members stay, with their other memberships", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const [organization, other] = [yield* givenOrganization(), yield* givenOrganization()]
        const [owner, member] = [yield* givenUser(), yield* givenUser()]
        yield* givenMembership(organization.id, owner.id, { role: "owner" })
        yield* givenMembership(organization.id, member.id)
        const elsewhere = yield* givenMembership(other.id, owner.id, { role: "owner" })
        const apiKey = yield* givenApiKey(organization.id)

        yield* deleteOrganization(organization.id)

        assert.isTrue(Option.isNone(yield* memberships.find(organization.id, owner.id)))
        expect(yield* memberships.listForOrganization(organization.id)).toStrictEqual([])
        expect(yield* memberships.countWithRole(organization.id, "owner")).toBe(0)
        expect(yield* memberships.listForUser(owner.id)).toStrictEqual([{ membership: elsewhere, organization: other }])
        expect(yield* memberships.listForUser(member.id)).toStrictEqual([])
        assert.isTrue(Option.isSome(yield* (yield* UserRepository).findById(member.id)))
        assert.isTrue(Option.isNone(yield* (yield* ApiKeyRepository).organizationOf(apiKey.id)))
      }))

    it.effect("a deletion inside a transaction that fails leaves everything, events included", () =>
      Effect.gen(function*() {
        const owned = yield* givenFurnishedOrganization
        const exit = yield* (yield* UnitOfWork).transaction(
          Effect.zipRight(deleteOrganization(owned.organization.id), Effect.fail("changed my mind"))
        ).pipe(Effect.exit)
        expect(exit).toStrictEqual(Exit.fail("changed my mind"))
        yield* assertAllLeftOf(owned)
      }))

    if (direct !== undefined) {
      it.effect("a user's memberships and sessions go with the user; other members' stay", () =>
        Effect.gen(function*() {
          const memberships = yield* MembershipRepository
          const sessions = yield* SessionRepository
          const organization = yield* givenOrganization()
          const [leaving, staying] = [yield* givenUser(), yield* givenUser()]
          yield* givenMembership(organization.id, leaving.id, { role: "owner" })
          const kept = yield* givenMembership(organization.id, staying.id)
          const [ended, continuing] = [aSession(leaving.id), aSession(staying.id)]
          yield* sessions.insert(ended)
          yield* sessions.insert(continuing)

          yield* direct.deleteUser(leaving.id)

          assert.isTrue(Option.isNone(yield* (yield* UserRepository).findById(leaving.id)))
          assert.isTrue(Option.isNone(yield* memberships.find(organization.id, leaving.id)))
          expect(yield* memberships.listForOrganization(organization.id)).toStrictEqual([{ membership: kept, user: staying }])
          assert.isTrue(Option.isNone(yield* sessions.findById(ended.id)))
          expect(yield* sessions.findById(continuing.id)).toStrictEqual(Option.some(continuing))
        }))
    }
  })
