import { Organization, OrganizationId, type PlanTier, ResourceNotFound, type Slug } from "@roster/domain"
import { Effect, Option } from "effect"
import { now } from "./clock.js"
import { Ids } from "./ports/ids.js"
import { OrganizationRepository } from "./ports/organization-repository.js"

export interface NewOrganization {
  readonly name: string
  readonly slug: Slug
  readonly tier?: PlanTier | undefined
  readonly isPlatformAdmin?: boolean | undefined
}

/** Organizations as operators manage them. */
export class Organizations extends Effect.Service<Organizations>()("roster/Organizations", {
  effect: Effect.gen(function*() {
    const organizations = yield* OrganizationRepository
    const ids = yield* Ids

    const create = Effect.fn("Organizations.create")(function*(input: NewOrganization) {
      const at = yield* now
      const organization = new Organization({
        id: OrganizationId.make(yield* ids.next),
        name: input.name,
        slug: input.slug,
        tier: input.tier ?? "free",
        isPlatformAdmin: input.isPlatformAdmin ?? false,
        suspendedAt: null,
        subscriberCount: 0,
        createdAt: at,
        updatedAt: at
      })
      yield* organizations.insert(organization)
      return organization
    })

    const getBySlug = Effect.fn("Organizations.getBySlug")(function*(slug: string) {
      const found = yield* organizations.findBySlug(slug)
      if (Option.isNone(found)) return yield* new ResourceNotFound({ resource: "organization", id: slug })
      return found.value
    })

    return { create, getBySlug } as const
  })
}) {}
