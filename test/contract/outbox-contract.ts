import { expect, layer } from "@effect/vitest"
import { Outbox } from "@roster/application"
import { OrganizationId } from "@roster/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { anEvent, givenOrganization, type PersistenceLayer } from "./fixtures.js"

export const outboxContract = (persistence: PersistenceLayer) =>
  layer(persistence)("Outbox", (it) => {
    it.effect("answers an organization's events in the order they were recorded", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        const first = anEvent(organization.id, "subscriber.created", {
          subscriber: { id: "s1", first_name: null, metadata: { camel_case: false, list: [1, "two", { three: 3 }] } }
        })
        const batch = [
          anEvent(organization.id, "tag.subscribed"),
          anEvent(other.id, "subscriber.deleted"),
          anEvent(organization.id, "tag.unsubscribed"),
          anEvent(organization.id, "subscriber.updated")
        ]
        yield* outbox.record([first])
        yield* outbox.record(batch)
        yield* outbox.record([])
        const last = anEvent(organization.id, "subscriber.deleted")
        yield* outbox.record([last])

        expect(yield* outbox.recorded(organization.id)).toStrictEqual([
          first,
          batch[0],
          batch[2],
          batch[3],
          last
        ])
        expect(yield* outbox.recorded(other.id)).toStrictEqual([batch[1]])
      }))

    it.effect("records a batch larger than one statement can carry, in order", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        const organization = yield* givenOrganization()
        const many = Array.from({ length: 14_000 }, (_, i) => anEvent(organization.id, "tag.unsubscribed", { n: i }))
        yield* outbox.record(many)
        const recorded = yield* outbox.recorded(organization.id)
        expect(recorded.map((event) => event.data.n)).toStrictEqual(many.map((_, i) => i))
      }), 60_000)

    it.effect("keeps events apart from the organizations they describe", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        // Events outlive what they describe: no organization row is needed.
        const event = anEvent(OrganizationId.make(randomUUID()), "subscriber.deleted")
        yield* outbox.record([event])
        expect(yield* outbox.recorded(event.organizationId)).toStrictEqual([event])
      }))
  })
