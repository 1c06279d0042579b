import { expect, layer } from "@effect/vitest"
import { SubscriberRepository, TagAssignments, TagRepository, UnitOfWork } from "@roster/application"
import { type OrganizationId, Tag, type TagId } from "@roster/domain"
import { Effect, Option } from "effect"
import { givenOrganization, givenSubscriber, givenTag, instant, type PersistenceLayer } from "./fixtures.js"

/** The stored subscriber count of each tag, in the order given. */
const countsOf = (organizationId: OrganizationId, tags: ReadonlyArray<Tag>) =>
  Effect.gen(function*() {
    const repository = yield* TagRepository
    return yield* Effect.forEach(tags, (tag) =>
      Effect.map(repository.findById(organizationId, tag.id), (found) => Option.getOrThrow(found).subscriberCount))
  })

const sorted = (ids: ReadonlyArray<string>) => [...ids].sort()

export const tagAssignmentsContract = (persistence: PersistenceLayer) =>
  layer(persistence)("TagAssignments", (it) => {
    it.effect("attach answers the tags it newly attached and counts each subscriber once", () =>
      Effect.gen(function*() {
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const [news, offers] = [yield* givenTag(organization.id), yield* givenTag(organization.id)]
        const subscriber = yield* givenSubscriber(organization.id)

        expect(yield* assignments.attach(organization.id, subscriber.id, [news.id], instant(1), null)).toStrictEqual(Option.some([news.id]))
        expect(yield* assignments.attach(organization.id, subscriber.id, [offers.id, news.id, offers.id], instant(2), null))
          .toStrictEqual(Option.some([offers.id]))
        expect(yield* assignments.attach(organization.id, subscriber.id, [news.id, offers.id], instant(3), null)).toStrictEqual(Option.some([]))
        expect(yield* assignments.attach(organization.id, subscriber.id, [], instant(3), null)).toStrictEqual(Option.some([]))
        expect(yield* countsOf(organization.id, [news, offers])).toStrictEqual([1, 1])
      }))

    it.effect("attach past the subscriber's limit attaches nothing; tags carried already do not count as new", () =>
      Effect.gen(function*() {
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const tags = yield* Effect.forEach(Array.from({ length: 5 }), () => givenTag(organization.id))
        const [a, b, c, d, e] = tags.map((tag) => tag.id) as [TagId, TagId, TagId, TagId, TagId]
        const subscriber = yield* givenSubscriber(organization.id)

        expect(yield* assignments.attach(organization.id, subscriber.id, [a, b], instant(1), 3)).toStrictEqual(Option.some([a, b]))
        expect(yield* assignments.attach(organization.id, subscriber.id, [c, d], instant(2), 3)).toStrictEqual(Option.none())
        expect(yield* assignments.attach(organization.id, subscriber.id, [a, b, c], instant(3), 3)).toStrictEqual(Option.some([c]))
        expect(yield* assignments.attach(organization.id, subscriber.id, [a, d], instant(4), 3)).toStrictEqual(Option.none())
        // Past a limit set later: what is carried stays, naming it again changes nothing, nothing new comes.
        expect(yield* assignments.attach(organization.id, subscriber.id, [a, b], instant(5), 2)).toStrictEqual(Option.some([]))
        expect(yield* assignments.attach(organization.id, subscriber.id, [e], instant(5), 2)).toStrictEqual(Option.none())
        expect(yield* countsOf(organization.id, tags)).toStrictEqual([1, 1, 1, 0, 0])
        const carried = (yield* assignments.tagsOf(organization.id, [subscriber.id])).get(subscriber.id) ?? []
        expect(sorted(carried.map(({ tag }) => tag.id))).toStrictEqual(sorted([a, b, c]))
      }))

    it.effect("concurrent attachments to one held subscriber never pass the limit together", () =>
      Effect.gen(function*() {
        const assignments = yield* TagAssignments
        const subscribers = yield* SubscriberRepository
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization()
        const tags = yield* Effect.forEach(Array.from({ length: 8 }), () => givenTag(organization.id))
        const subscriber = yield* givenSubscriber(organization.id)
        const outcomes = yield* Effect.forEach(tags, (tag, i) =>
          unitOfWork.transaction(Effect.zipRight(
            subscribers.findByIdForUpdate(organization.id, subscriber.id),
            assignments.attach(organization.id, subscriber.id, [tag.id], instant(i), 3)
          )), { concurrency: "unbounded" })
        expect(outcomes.filter(Option.isSome)).toHaveLength(3)
        expect((yield* assignments.tagsOf(organization.id, [subscriber.id])).get(subscriber.id)).toHaveLength(3)
      }))

    it.effect("offers the organization's public tags by name, each with when the subscriber took it", () =>
      Effect.gen(function*() {
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        const zebra = yield* givenTag(organization.id, { name: "zebra" })
        const apple = yield* givenTag(organization.id, { name: "Apple" })
        const mango = yield* givenTag(organization.id, { name: "mango" })
        const hidden = yield* givenTag(organization.id, { name: "Banana", visibility: "private" })
        yield* givenTag(other.id, { name: "Cherry" })
        const subscriber = yield* givenSubscriber(organization.id)
        const stranger = yield* givenSubscriber(other.id)
        yield* assignments.attach(organization.id, subscriber.id, [mango.id, hidden.id], instant(7), null)

        const offered = yield* assignments.offeredTo(organization.id, subscriber.id, 10)
        expect(offered.map(({ subscribedAt, tag }) => [tag.name, subscribedAt])).toStrictEqual([
          ["Apple", null],
          ["mango", instant(7)],
          ["zebra", null]
        ])
        expect(offered[1]!.tag).toStrictEqual(new Tag({ ...mango, subscriberCount: 1 }))
        expect((yield* assignments.offeredTo(organization.id, subscriber.id, 2)).map(({ tag }) => tag.id)).toStrictEqual([apple.id, mango.id])
        // Another organization's subscriber carries none of them.
        expect((yield* assignments.offeredTo(organization.id, stranger.id, 10)).map(({ subscribedAt }) => subscribedAt))
          .toStrictEqual([null, null, null])
        expect(zebra.visibility).toBe("public")
      }))

    it.effect("attach ignores tags of another organization and subscribers of another organization", () =>
      Effect.gen(function*() {
        const assignments = yield* TagAssignments
        const mine = yield* givenOrganization()
        const theirs = yield* givenOrganization()
        const ownTag = yield* givenTag(mine.id)
        const foreignTag = yield* givenTag(theirs.id)
        const subscriber = yield* givenSubscriber(mine.id)
        const foreigner = yield* givenSubscriber(theirs.id)

        expect(yield* assignments.attach(mine.id, subscriber.id, [foreignTag.id, ownTag.id], instant(1), null))
          .toStrictEqual(Option.some([ownTag.id]))
        expect(yield* assignments.attach(mine.id, foreigner.id, [ownTag.id], instant(1), null)).toStrictEqual(Option.some([]))
        expect(yield* countsOf(mine.id, [ownTag])).toStrictEqual([1])
        expect(yield* countsOf(theirs.id, [foreignTag])).toStrictEqual([0])
      }))

    it.effect("detach says whether the tag was attached and lowers its count", () =>
      Effect.gen(function*() {
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const tag = yield* givenTag(organization.id)
        const [ada, bob] = [yield* givenSubscriber(organization.id), yield* givenSubscriber(organization.id)]
        yield* assignments.attach(organization.id, ada.id, [tag.id], instant(1), null)
        yield* assignments.attach(organization.id, bob.id, [tag.id], instant(1), null)

        expect(yield* assignments.detach((yield* givenOrganization()).id, ada.id, tag.id)).toBe(false)
        expect(yield* assignments.detach(organization.id, ada.id, tag.id)).toBe(true)
        expect(yield* assignments.detach(organization.id, ada.id, tag.id)).toBe(false)
        expect(yield* countsOf(organization.id, [tag])).toStrictEqual([1])
      }))

    it.effect("detaching every tag of a subscriber answers those tags and lowers their counts", () =>
      Effect.gen(function*() {
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const tags = [yield* givenTag(organization.id), yield* givenTag(organization.id), yield* givenTag(organization.id)]
        const [ada, bob] = [yield* givenSubscriber(organization.id), yield* givenSubscriber(organization.id)]
        yield* assignments.attach(organization.id, ada.id, [tags[0]!.id, tags[1]!.id], instant(1), null)
        yield* assignments.attach(organization.id, bob.id, [tags[1]!.id, tags[2]!.id], instant(1), null)

        const detached = yield* assignments.detachAllFromSubscriber(organization.id, ada.id)
        expect(sorted(detached)).toStrictEqual(sorted([tags[0]!.id, tags[1]!.id]))
        expect(yield* assignments.detachAllFromSubscriber(organization.id, ada.id)).toStrictEqual([])
        expect(yield* countsOf(organization.id, tags)).toStrictEqual([0, 1, 1])
        expect((yield* assignments.tagsOf(organization.id, [ada.id])).has(ada.id)).toBe(false)
      }))

    it.effect("detaching a tag from everyone answers its carriers and empties its count", () =>
      Effect.gen(function*() {
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const [tag, other] = [yield* givenTag(organization.id), yield* givenTag(organization.id)]
        const carriers = [
          yield* givenSubscriber(organization.id, { email: "ada@example.com" }),
          yield* givenSubscriber(organization.id, { email: "Bob@example.com" })
        ]
        const bystander = yield* givenSubscriber(organization.id)
        for (const carrier of carriers) yield* assignments.attach(organization.id, carrier.id, [tag.id, other.id], instant(1), null)
        yield* assignments.attach(organization.id, bystander.id, [other.id], instant(1), null)

        expect(yield* assignments.detachAllFromTag((yield* givenOrganization()).id, tag.id)).toStrictEqual([])
        const detached = yield* assignments.detachAllFromTag(organization.id, tag.id)
        expect([...detached].sort((a, b) => a.email.localeCompare(b.email))).toStrictEqual([
          { id: carriers[0]!.id, email: "ada@example.com" },
          { id: carriers[1]!.id, email: "Bob@example.com" }
        ])
        expect(yield* countsOf(organization.id, [tag, other])).toStrictEqual([0, 3])
      }))

    it.effect("deleting a subscriber that still carries tags lowers their counts", () =>
      Effect.gen(function*() {
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const tags = [yield* givenTag(organization.id), yield* givenTag(organization.id)]
        const [ada, bob] = [yield* givenSubscriber(organization.id), yield* givenSubscriber(organization.id)]
        yield* assignments.attach(organization.id, ada.id, tags.map((t) => t.id), instant(1), null)
        yield* assignments.attach(organization.id, bob.id, [tags[0]!.id], instant(1), null)

        yield* (yield* SubscriberRepository).delete(organization.id, ada.id)
        expect(yield* countsOf(organization.id, tags)).toStrictEqual([1, 0])
      }))

    it.effect("lists each subscriber's tags oldest attachment first, ties by tag id", () =>
      Effect.gen(function*() {
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        const tags = yield* Effect.forEach(Array.from({ length: 4 }), () => givenTag(organization.id))
        const [ada, bob, idle] = [
          yield* givenSubscriber(organization.id),
          yield* givenSubscriber(organization.id),
          yield* givenSubscriber(organization.id)
        ]
        const foreigner = yield* givenSubscriber((yield* givenOrganization()).id)
        yield* assignments.attach(organization.id, ada.id, [tags[3]!.id], instant(5), null)
        yield* assignments.attach(organization.id, ada.id, [tags[0]!.id, tags[2]!.id], instant(9), null)
        yield* assignments.attach(organization.id, ada.id, [tags[1]!.id], instant(1), null)
        yield* assignments.attach(organization.id, bob.id, [tags[2]!.id], instant(2), null)

        const map = yield* assignments.tagsOf(organization.id, [ada.id, bob.id, idle.id, foreigner.id])
        const sameTime = sorted([tags[0]!.id, tags[2]!.id])
        expect(map.get(ada.id)?.map(({ subscribedAt, tag }) => [tag.id, subscribedAt.getTime()])).toStrictEqual([
          [tags[1]!.id, instant(1).getTime()],
          [tags[3]!.id, instant(5).getTime()],
          [sameTime[0], instant(9).getTime()],
          [sameTime[1], instant(9).getTime()]
        ])
        expect(map.get(bob.id)?.map(({ tag }) => [tag.id, tag.subscriberCount])).toStrictEqual([[tags[2]!.id, 2]])
        expect([...map.keys()].sort()).toStrictEqual(sorted([ada.id, bob.id]))
        expect((yield* assignments.tagsOf(organization.id, [])).size).toBe(0)
      }))

    it.effect("reads a subscriber with its tags in one go, as tagsOf and findById answer them, and nothing of another organization", () =>
      Effect.gen(function*() {
        const assignments = yield* TagAssignments
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const tags = yield* Effect.forEach(Array.from({ length: 3 }), () => givenTag(organization.id))
        const ada = yield* givenSubscriber(organization.id)
        const idle = yield* givenSubscriber(organization.id)
        yield* assignments.attach(organization.id, ada.id, [tags[2]!.id], instant(7), null)
        yield* assignments.attach(organization.id, ada.id, [tags[0]!.id, tags[1]!.id], instant(3), null)

        const found = Option.getOrThrow(yield* subscribers.findWithTags(organization.id, ada.id))
        expect(found.subscriber).toStrictEqual(Option.getOrThrow(yield* subscribers.findById(organization.id, ada.id)))
        expect(found.tags).toStrictEqual((yield* assignments.tagsOf(organization.id, [ada.id])).get(ada.id))
        expect(found.tags.map(({ tag }) => tag.id).slice(2)).toStrictEqual([tags[2]!.id])
        expect(Option.getOrThrow(yield* subscribers.findWithTags(organization.id, idle.id)).tags).toStrictEqual([])
        expect(yield* subscribers.findWithTags((yield* givenOrganization()).id, ada.id)).toStrictEqual(Option.none())
      }))

    it.effect("concurrent attaches and detaches of the same tags keep every count exact", () =>
      Effect.gen(function*() {
        const assignments = yield* TagAssignments
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization()
        const tags = yield* Effect.forEach(Array.from({ length: 4 }), () => givenTag(organization.id))
        const readers = yield* Effect.forEach(Array.from({ length: 12 }), () => givenSubscriber(organization.id))
        const ids: ReadonlyArray<TagId> = tags.map((tag) => tag.id)

        // Half attach in one order and half in the reverse, each in its own transaction.
        const reversed = [...ids].reverse()
        yield* Effect.forEach(readers, (reader, i) =>
          unitOfWork.transaction(assignments.attach(organization.id, reader.id, i % 2 === 0 ? ids : reversed, instant(i), null)),
          { concurrency: "unbounded" })
        expect(yield* countsOf(organization.id, tags)).toStrictEqual([12, 12, 12, 12])

        yield* Effect.forEach(readers.slice(0, 5), (reader) =>
          unitOfWork.transaction(assignments.detachAllFromSubscriber(organization.id, reader.id)),
          { concurrency: "unbounded" })
        expect(yield* countsOf(organization.id, tags)).toStrictEqual([7, 7, 7, 7])
      }))
  })
