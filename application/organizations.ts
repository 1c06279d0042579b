import {
  customRateLimitReason,
  InvalidInput,
  type LimitPolicy,
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
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { changeOrganization, type OrganizationChanges } from "./support/organization-changes.js"
import { PrincipalCache } from "./support/principal-cache.js"
import { Ids } from "./ports/ids.js"
import { MembershipRepository } from "./ports/membership-repository.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { Limits } from "./support/limits.js"
import { operations } from "./support/operation.js"

export interface NewOrganization {
  readonly name: string
  readonly slug: Slug
  readonly tier?: PlanTier | undefined
  readonly isPlatformAdmin?: boolean | undefined
  /** Requests per minute instead of the plan's, on the top tier only; `0` for none. */
  readonly customRateLimit?: number | null | undefined
}

/** An organization with how many members it has. */
export interface OrganizationOverview {
  readonly organization: Organization
  readonly memberCount: number
  /** Requests a minute it may make, as the deployment's limit policy says; `null` for no limit. */
  readonly requestsPerMinute: number | null
  /** Subscribers it may keep, as the deployment's limit policy says; `null` for no limit. */
  readonly subscriberLimit: number | null
  /** Emails it may hand to the provider in a calendar month; `null` for no limit. */
  readonly emailLimit: number | null
}

/** An organization's overview under `limits`. */
export const overviewOf = (limits: LimitPolicy, organization: Organization, memberCount: number): OrganizationOverview => ({
  organization,
  memberCount,
  requestsPerMinute: limits.requestsPerMinute(organization.tier, organization.customRateLimit),
  subscriberLimit: limits.subscribers(organization.tier),
  emailLimit: limits.emailsPerMonth(organization.tier)
})

export interface OrganizationPageRequest {
  readonly cursor?: string | undefined
  readonly limit: number
}

/** Operators' lists sort by creation, oldest first. */
const SORT = "created_at"
const ORDER = "asc" as const

/**
 * Organizations, as operators and signed-in users make them; operators (who hold the database)
 * also list, inspect and change any of them by slug.
 */
export class Organizations extends Effect.Service<Organizations>()("roster/Organizations", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const organizations = yield* OrganizationRepository
    const memberships = yield* MembershipRepository
    const unitOfWork = yield* UnitOfWork
    const ids = yield* Ids
    const principals = yield* PrincipalCache
    const limits = yield* Limits

    const create = operation("Organizations.create")(function*(input: NewOrganization) {
      const tier = input.tier ?? "free"
      const customRateLimit = input.customRateLimit ?? null
      const problem = customRateLimitReason(tier, customRateLimit)
      if (problem !== undefined) return yield* new InvalidInput({ field: "rate_limit", reason: problem })
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

    const getBySlug = operation("Organizations.getBySlug")(function*(slug: string) {
      const found = yield* organizations.findBySlug(slug)
      if (Option.isNone(found)) return yield* new ResourceNotFound({ resource: "organization", id: slug })
      return found.value
    })

    /** A new free organization whose creator is its owner, both or neither. */
    const createForUser = operation("Organizations.createForUser")(
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
    const listForUser = operation("Organizations.listForUser")(function*(userId: UserId) {
      return yield* memberships.listForUser(userId)
    })

    const overview = operation("Organizations.overview")(function*(organization: Organization) {
      const counts = yield* memberships.countMembers([organization.id])
      return overviewOf(limits, organization, counts.get(organization.id) ?? 0)
    })

    /** One page of every organization, oldest first, with the total. */
    const list = operation("Organizations.list")(function*(request: OrganizationPageRequest) {
      const after = yield* positionFromCursor(request.cursor, SORT, ORDER)
      const [rows, total] = yield* Effect.all([organizations.list({ after, limit: request.limit + 1 }), organizations.count], {
        concurrency: 2
      })
      const page = cutPage(rows, request.limit, SORT, ORDER, (o) => o.createdAt.toISOString())
      const counts = yield* memberships.countMembers(page.items.map((o) => o.id))
      return {
        items: page.items.map((organization) => overviewOf(limits, organization, counts.get(organization.id) ?? 0)),
        total,
        nextCursor: page.nextCursor
      }
    })

    const show = operation("Organizations.show")(function*(slug: string) {
      return yield* overview(yield* getBySlug(slug))
    })

    /**
     * Renames, moves between tiers, grants or takes the platform-admin flag, suspends or lifts a
     * suspension, by the same rules as the platform admin's; cached principals are forgotten once
     * the change is committed.
     */
    const update = operation("Organizations.update")(function*(slug: string, changes: OrganizationChanges) {
      const changed = yield* unitOfWork.transaction(Effect.gen(function*() {
        const organization = yield* changeOrganization(yield* getBySlug(slug), changes, yield* now)
        yield* organizations.update(organization)
        return organization
      }))
      yield* principals.invalidate
      return yield* overview(changed)
    })

    return { create, getBySlug, createForUser, listForUser, list, show, overview, update } as const
  }),
  dependencies: [PrincipalCache.Default]
}) {}
