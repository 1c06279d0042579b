import { Slug } from "@roster/domain"
import { Effect, Option } from "effect"
import { ApiKeys, type IssuedApiKey } from "./api-keys.js"
import { Organizations } from "./organizations.js"
import { OrganizationRepository } from "./ports/organization-repository.js"

export const DEFAULT_ORGANIZATION_SLUG = Slug.make("default")

/**
 * The first start of an installation: organization `default` and one test key with every scope,
 * so that a new user can call the API at once. Nothing happens when `default` exists already.
 */
export class Onboarding extends Effect.Service<Onboarding>()("roster/Onboarding", {
  effect: Effect.gen(function*() {
    const organizationRepository = yield* OrganizationRepository
    const organizations = yield* Organizations
    const apiKeys = yield* ApiKeys

    const firstStart = Effect.gen(function*() {
      if (Option.isSome(yield* organizationRepository.findBySlug(DEFAULT_ORGANIZATION_SLUG))) {
        return Option.none<IssuedApiKey>()
      }
      const organization = yield* organizations.create({ name: "Default", slug: DEFAULT_ORGANIZATION_SLUG })
      const issued = yield* apiKeys.create({
        organizationId: organization.id,
        name: "First key",
        scopes: ["*"],
        environment: "test"
      })
      return Option.some(issued)
    }).pipe(
      // Two first starts at once: the slower one finds `default` taken and does nothing.
      Effect.catchTag("OrganizationSlugTaken", () => Effect.succeed(Option.none<IssuedApiKey>()))
    )

    return { firstStart } as const
  })
}) {}
