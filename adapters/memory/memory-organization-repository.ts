import { OrganizationRepository } from "@roster/application"
import { Organization, OrganizationSlugTaken } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore } from "./memory-store.js"

export const MemoryOrganizationRepositoryLive = Layer.effect(
  OrganizationRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const adjust = (by: number) => (o: Organization) =>
      new Organization({ ...o, subscriberCount: o.subscriberCount + by })

    return OrganizationRepository.of({
      insert: (organization) =>
        Effect.flatten(store.write((t) => {
          for (const other of t.organizations.values()) {
            if (other.slug === organization.slug) return Effect.fail(new OrganizationSlugTaken({ slug: organization.slug }))
          }
          t.organizations.set(organization.id, organization)
          return Effect.void
        })),
      findById: (id) => store.read((t) => Option.fromNullable(t.organizations.get(id))),
      findBySlug: (slug) => store.read((t) => Option.fromNullable([...t.organizations.values()].find((o) => o.slug === slug))),
      reserveSubscriberSlots: (id, count, max) =>
        store.write((t) => {
          const organization = t.organizations.get(id)
          if (organization === undefined) return false
          if (max !== null && organization.subscriberCount + count > max) return false
          t.organizations.set(id, adjust(count)(organization))
          return true
        }),
      releaseSubscriberSlots: (id, count) =>
        store.write((t) => {
          const organization = t.organizations.get(id)
          if (organization !== undefined) {
            t.organizations.set(id, adjust(-Math.min(count, organization.subscriberCount))(organization))
          }
        })
    })
  })
)
