import { assert, expect, layer } from "@effect/vitest"
import {
  ImportJobRepository,
  OrganizationRepository,
  Outbox,
  type Principal,
  type SubscriberPage,
  SubscriberRepository,
  Subscribers,
  TagRepository,
  Tags
} from "@roster/application"
import { ApiKeyId, type Organization, planLimits, reason, rowProblem } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { NodeIdsLive, NodeSecretsLive } from "../../adapters/node/index.js"
import { deletingAfterwards, email, givenImportJob, givenOrganization, type PersistenceLayer } from "./fixtures.js"

const principalOf = (organization: Organization): Principal => ({
  organization: {
    id: organization.id,
    tier: organization.tier,
    isPlatformAdmin: false,
    requestsPerMinute: organization.requestsPerMinute
  },
  scopes: ["*"],
  credential: { kind: "api_key", id: ApiKeyId.make(randomUUID()), environment: "test" }
})

const FREE_LIMIT = planLimits.free.maxSubscribers!

/** An organization on the free plan with `free` slots left before its subscriber limit. */
const givenOrganizationWithRoom = (free: number) =>
  Effect.gen(function*() {
    const organization = yield* givenOrganization({ tier: "free" })
    yield* (yield* OrganizationRepository).reserveSubscriberSlots(organization.id, FREE_LIMIT - free, null)
    return organization
  })

const reservedSlots = (organization: Organization) =>
  Effect.flatMap(OrganizationRepository, (organizations) =>
    Effect.map(organizations.findById(organization.id), (found) => Option.getOrThrow(found).subscriberCount))

/** The use cases over the persistence under test, so that their transactions are the adapter's. */
const useCasesOver = (persistence: PersistenceLayer) =>
  Layer.mergeAll(Subscribers.Default, Tags.Default).pipe(Layer.provideMerge(Layer.mergeAll(persistence, NodeIdsLive, NodeSecretsLive)))

export const subscriberUseCasesContract = (persistence: PersistenceLayer) =>
  layer(useCasesOver(persistence))("Subscribers and Tags over the adapter", (it) => {
    it.effect("list totals match the rows of every filter, through creates, tagging, status changes and deletes", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization({ tier: "pro" })
        const principal = principalOf(organization)
        const subscribers = yield* Subscribers
        const news = yield* (yield* Tags).create(principal, { name: "News" })
        const offers = yield* (yield* Tags).create(principal, { name: "Offers" })
        const created = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) =>
          subscribers.create(principal, {
            email: email(`reader${i}@example.com`),
            tagIds: i % 2 === 0 ? [news.id] : i % 3 === 0 ? [news.id, offers.id] : []
          }))
        yield* subscribers.attachTags(principal, created[1]!.subscriber.id, [offers.id])
        yield* subscribers.detachTag(principal, created[0]!.subscriber.id, news.id)
        yield* subscribers.update(principal, created[2]!.subscriber.id, { status: "unsubscribed" })
        yield* subscribers.update(principal, created[3]!.subscriber.id, { status: "unsubscribed" })
        yield* subscribers.remove(principal, created[4]!.subscriber.id)
        yield* subscribers.remove(principal, created[9]!.subscriber.id)

        const walk = (filter: { status?: "active" | "unsubscribed"; tagId?: typeof news.id }) =>
          Effect.gen(function*() {
            let cursor: string | undefined = undefined
            let seen = 0
            let total = -1
            do {
              const page: SubscriberPage = yield* subscribers.list(principal, { ...filter, sort: "created_at", order: "desc", limit: 5, cursor })
              seen += page.items.length
              total = page.total
              cursor = page.nextCursor ?? undefined
            } while (cursor !== undefined)
            return { seen, total }
          })

        for (const filter of [{}, { status: "active" as const }, { status: "unsubscribed" as const }, { tagId: news.id },
          { tagId: offers.id }, { tagId: news.id, status: "active" as const }]) {
          const { seen, total } = yield* walk(filter)
          expect({ filter, total }).toStrictEqual({ filter, total: seen })
        }
        expect((yield* walk({})).seen).toBe(10)
      }))

    it.effect("a create that hits the plan limit leaves no subscriber, no attachment and no event", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganizationWithRoom(0)
        const principal = principalOf(organization)
        const tag = yield* (yield* Tags).create(principal, { name: "News" })

        const error = yield* Effect.flip(
          (yield* Subscribers).create(principal, { email: email("late@example.com"), tagIds: [tag.id] })
        )
        expect(error._tag).toBe("PlanLimitExceeded")
        assert.isTrue(Option.isNone(yield* (yield* SubscriberRepository).findByEmail(organization.id, "late@example.com")))
        expect(Option.getOrThrow(yield* (yield* TagRepository).findById(organization.id, tag.id)).subscriberCount).toBe(0)
        expect(yield* (yield* Outbox).recorded(organization.id)).toStrictEqual([])
        expect(yield* reservedSlots(organization)).toBe(FREE_LIMIT)
      }))

    it.effect("concurrent creates near the limit never exceed it", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganizationWithRoom(5)
        const subscribers = yield* Subscribers
        const outcomes = yield* Effect.forEach(
          Array.from({ length: 12 }, (_, i) => email(`reader-${i}@example.com`)),
          (address) => Effect.either(subscribers.create(principalOf(organization), { email: address })),
          { concurrency: "unbounded" }
        )
        const refused = outcomes.flatMap((outcome) => outcome._tag === "Left" ? [outcome.left._tag] : [])
        expect(outcomes.length - refused.length).toBe(5)
        expect(new Set(refused)).toStrictEqual(new Set(["PlanLimitExceeded"]))
        expect(yield* reservedSlots(organization)).toBe(FREE_LIMIT)
        expect(yield* (yield* SubscriberRepository).count(organization.id, {})).toBe(5)
        expect((yield* (yield* Outbox).recorded(organization.id)).map((e) => e.type)).toStrictEqual(
          Array.from({ length: 5 }, () => "subscriber.created")
        )
      }))

    it.effect("creates without a limit, many at once, are each counted, and a limit set later counts them all", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization({ tier: "enterprise" })
        const subscribers = yield* Subscribers
        yield* Effect.forEach(
          Array.from({ length: 40 }, (_, i) => email(`many-${i}@example.com`)),
          (address) => subscribers.create(principalOf(organization), { email: address }),
          { concurrency: "unbounded" }
        )
        expect(yield* reservedSlots(organization)).toBe(40)

        // On the free plan, the 40 count against its limit: room for exactly FREE_LIMIT - 40 more.
        const organizations = yield* OrganizationRepository
        assert.isFalse(yield* organizations.reserveSubscriberSlots(organization.id, FREE_LIMIT - 39, FREE_LIMIT))
        assert.isTrue(yield* organizations.reserveSubscriberSlots(organization.id, FREE_LIMIT - 41, FREE_LIMIT))
        const unlimited = principalOf(organization)
        const onFree: Principal = { ...unlimited, organization: { ...unlimited.organization, tier: "free" } }
        yield* subscribers.create(onFree, { email: email("last@example.com") })
        const refused = yield* Effect.flip(subscribers.create(onFree, { email: email("over@example.com") }))
        expect(refused._tag).toBe("PlanLimitExceeded")
        expect(yield* reservedSlots(organization)).toBe(FREE_LIMIT)

        // Back without a limit, creates are counted again from where the count stands.
        yield* subscribers.create(principalOf(organization), { email: email("again@example.com") })
        expect(yield* reservedSlots(organization)).toBe(FREE_LIMIT + 1)
      }))

    it.effect("a duplicate email is refused and leaves nothing behind", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const principal = principalOf(organization)
        const tag = yield* (yield* Tags).create(principal, { name: "News" })
        const subscribers = yield* Subscribers
        yield* subscribers.create(principal, { email: email("ada@example.com"), tagIds: [tag.id] })

        const error = yield* Effect.flip(subscribers.create(principal, { email: email("ADA@example.com"), tagIds: [tag.id] }))
        expect(error._tag).toBe("EmailAlreadyExists")
        expect((yield* (yield* Outbox).recorded(organization.id)).map((e) => e.type)).toStrictEqual([
          "subscriber.created",
          "tag.subscribed"
        ])
        expect(Option.getOrThrow(yield* (yield* TagRepository).findById(organization.id, tag.id)).subscriberCount).toBe(1)
        expect(yield* reservedSlots(organization)).toBe(1)
      }))

    it.effect("an erased subscriber's address is taken out of the problem rows of the organization's imports", () =>
      Effect.gen(function*() {
        const [organization, other] = [yield* givenOrganization(), yield* givenOrganization()]
        yield* Effect.gen(function*() {
          const subscribers = yield* Subscribers
          const jobs = yield* ImportJobRepository
          const leaving = (yield* subscribers.create(principalOf(organization), { email: email("ada@example.com") })).subscriber
          const problem = (line: number, address: string) => rowProblem(line, "status", reason("statusOneOf", { statuses: "active" }), address)
          const imported = yield* givenImportJob(organization.id, {
            status: "completed",
            problems: [problem(2, "ADA@example.com"), problem(3, "grace@example.com")],
            problemCount: 2
          })
          const elsewhere = yield* givenImportJob(other.id, { status: "completed", problems: [problem(2, "ada@example.com")], problemCount: 1 })

          expect(yield* (yield* SubscriberRepository).requestErasure(organization.id, leaving.id, new Date())).toBe(true)
          // Other tests' erasures are carried out too.
          yield* Effect.iterate(1, { while: (erased) => erased > 0, body: () => subscribers.eraseRequested(100) })

          const after = Option.getOrThrow(yield* jobs.find(organization.id, imported.id))
          expect([after.problems, after.problemCount]).toStrictEqual([
            [rowProblem(2, "status", reason("statusOneOf", { statuses: "active" })), problem(3, "grace@example.com")],
            2
          ])
          expect(yield* jobs.find(other.id, elsewhere.id)).toStrictEqual(Option.some(elsewhere))
          assert.isTrue(Option.isNone(yield* (yield* SubscriberRepository).findById(organization.id, leaving.id)))
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("deleting a tag unsubscribes every carrier in one go", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const principal = principalOf(organization)
        const tag = yield* (yield* Tags).create(principal, { name: "News" })
        const subscribers = yield* Subscribers
        for (const address of ["ada@example.com", "bob@example.com"]) {
          yield* subscribers.create(principal, { email: email(address), tagIds: [tag.id] })
        }
        yield* (yield* Tags).remove(principal, tag.id)
        const unsubscribed = (yield* (yield* Outbox).recorded(organization.id)).filter((e) => e.type === "tag.unsubscribed")
        expect(unsubscribed).toHaveLength(2)
        const page = yield* subscribers.list(principal, { sort: "email", order: "asc", limit: 10 })
        expect(page.items.map((view) => [view.subscriber.email, view.tags.length])).toStrictEqual([
          ["ada@example.com", 0],
          ["bob@example.com", 0]
        ])
      }))

    it.effect("concurrent creates naming the same new tags, in either order, all succeed and make each tag once", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization({ tier: "pro" })
        const principal = principalOf(organization)
        const subscribers = yield* Subscribers
        const names = [["Launch news", "Beta testers", "新闻"], ["新闻", "BETA TESTERS", "launch NEWS"]] as const
        const created = yield* Effect.forEach(
          Array.from({ length: 10 }, (_, i) => i),
          (i) => subscribers.create(principal, { email: email(`early-${i}@example.com`), tagNames: names[i % 2]! }),
          { concurrency: "unbounded" }
        )
        const tags = yield* TagRepository
        expect(yield* tags.count(organization.id)).toBe(3)
        const stored = yield* tags.findByNames(organization.id, ["launch news", "beta testers", "新闻"])
        expect(stored.map((tag) => tag.subscriberCount)).toStrictEqual([10, 10, 10])
        for (const [i, view] of created.entries()) {
          const byName = new Map(stored.map((tag) => [tag.name.toLowerCase(), tag.id] as const))
          expect(view.tags.map(({ tag }) => tag.id)).toStrictEqual(names[i % 2]!.map((name) => byName.get(name.toLowerCase())))
        }
        const events = (yield* (yield* Outbox).recorded(organization.id)).map((e) => e.type)
        expect(events.filter((type) => type === "tag.subscribed")).toHaveLength(30)
      }))

    it.effect("changing tags by name attaches, makes and detaches in one transaction, with an event per real change", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const principal = principalOf(organization)
        const subscribers = yield* Subscribers
        const news = yield* (yield* Tags).create(principal, { name: "News" })
        const offers = yield* (yield* Tags).create(principal, { name: "Offers" })
        const ada = yield* subscribers.create(principal, { email: email("ada@example.com"), tagIds: [news.id, offers.id] })
        const before = (yield* (yield* Outbox).recorded(organization.id)).length

        const changed = yield* subscribers.changeTags(principal, ada.subscriber.id, {
          add: ["news", "Events"],
          remove: ["OFFERS", "Nothing by this name"]
        })
        expect(changed.tags.map(({ tag }) => tag.name)).toStrictEqual(["News", "Events"])
        const events = (yield* (yield* Outbox).recorded(organization.id)).slice(before)
        expect(events.map((e) => [e.type, (e.data as { tag: { name: string } }).tag.name])).toStrictEqual([
          ["tag.subscribed", "Events"],
          ["tag.unsubscribed", "Offers"]
        ])
        const tags = yield* TagRepository
        expect(Option.getOrThrow(yield* tags.findById(organization.id, offers.id)).subscriberCount).toBe(0)
        expect(Option.getOrThrow(yield* tags.findByName(organization.id, "events")).subscriberCount).toBe(1)
        expect(yield* tags.findByName(organization.id, "Nothing by this name")).toStrictEqual(Option.none())
      }))
  })
