import { type OrganizationId, ResourceNotFound, ResourceOfAnotherOrganization, type ResourceKind } from "@roster/domain"
import { Effect, Option } from "effect"

/**
 * The resource if the caller's organization owns it. An id that names nothing is a
 * `ResourceNotFound`; one that names another organization's resource is a
 * `ResourceOfAnotherOrganization`, which tells nothing else about it.
 */
export const requireOwned = <A>(
  resource: ResourceKind,
  id: string,
  lookup: Effect.Effect<Option.Option<A>>,
  ownerOf: () => Effect.Effect<Option.Option<OrganizationId>>
): Effect.Effect<A, ResourceNotFound | ResourceOfAnotherOrganization> =>
  Effect.flatMap(lookup, (found) =>
    Option.isSome(found)
      ? Effect.succeed(found.value)
      // Asked only when the lookup found nothing: the answer that tells which of the two it is.
      : Effect.flatMap(ownerOf(), (owner) =>
        Effect.fail(
          Option.isSome(owner) ? new ResourceOfAnotherOrganization({ resource, id }) : new ResourceNotFound({ resource, id })
        )))

/**
 * The resource a lookup found, or `ResourceNotFound`: for lookups already confined to the caller's
 * organization, where another organization's resource is not found either and nothing of it is told.
 */
export const requireFound = <A, E, R>(
  resource: ResourceKind,
  id: string,
  lookup: Effect.Effect<Option.Option<A>, E, R>
): Effect.Effect<A, E | ResourceNotFound, R> =>
  Effect.flatMap(lookup, Option.match({
    onNone: () => Effect.fail(new ResourceNotFound({ resource, id })),
    onSome: Effect.succeed
  }))
