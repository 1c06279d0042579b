import {
  customRateLimitProblem,
  InvalidInput,
  Membership,
  Organization,
  OrganizationId,
  type PlanTier,
  ResourceNotFound,
  type Slug,
  type UserId
} from "@roster/domain"
import { Effect, Option } from "effect"
import { now } from "./support/clock.js"
import { Ids } from "./ports/ids.js"
import { MembershipRepository } from "./ports/membership-repository.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"

export interface NewOrganization {
  readonly name: string
  readonly slug: Slug
  readonly tier?: PlanTier | undefined
  readonly isPlatformAdmin?: boolean | undefined
  /** Requests per minute instead of the plan's, on the top tier only; `0` for none. */
  readonly customRateLimit?: number | null | undefined
}

/** Organizations, as operators and signed-in users make them. */
export class Organizations extends Effect.Service<Organizations>()("roster/Organizations", {
  effect: Effect.gen(function*() {
    const organizations = yield* OrganizationRepository
    const memberships = yield* MembershipRepository
    const unitOfWork = yield* UnitOfWork
    const ids = yield* Ids

    const create = Effect.fnUntraced(function*(input: NewOrganization) {
      const tier = input.tier ?? "free"
      const customRateLimit = input.customRateLimit ?? null
      const problem = customRateLimitProblem(tier, customRateLimit)
      if (problem !== undefined) return yield* new InvalidInput({ field: "rate_limit", problem })
      const at = yield* now
      const organization = new Organization({
        id: OrganizationId.make(yield* ids.next),
        name: input.name,
        slug: input.slug,
        tier,
        isPlatformAdmin: input.isPlatformAdmin ?? false,
        suspendedAt: null,
        customRateLimit,
        subscriberCount: 0,
        createdAt: at,
        updatedAt: at
      })
      yield* organizations.insert(organization)
      return organization
    })

    const getBySlug = Effect.fnUntraced(function*(slug: string) {
      const found = yield* organizations.findBySlug(slug)
      if (Option.isNone(found)) return yield* new ResourceNotFound({ resource: "organization", id: slug })
      return found.value
    })

    /** A new free organization whose creator is its owner, both or neither. */
    const createForUser = Effect.fnUntraced(
      function*(userId: UserId, input: { readonly name: string; readonly slug: Slug }) {
        return yield* unitOfWork.transaction(Effect.gen(function*() {
          const organization = yield* create({ name: input.name, slug: input.slug })
          yield* memberships.upsert(
            new Membership({ organizationId: organization.id, userId, role: "owner", createdAt: organization.createdAt })
          )
          return organization
        }))
      }
    )

    /** The organizations a user belongs to, with the user's role in each. */
    const listForUser = Effect.fnUntraced(function*(userId: UserId) {
      return yield* memberships.listForUser(userId)
    })

    return { create, getBySlug, createForUser, listForUser } as const
  })
}) {}
