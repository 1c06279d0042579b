import type { User, UserId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"
import type { OldestFirstQuery } from "./subscriber-repository.js"

export class UserRepository extends Context.Tag("roster/UserRepository")<UserRepository, {
  /**
   * The user with this email (compared by its key), marked as signed in at `at`; when there is
   * none, `candidate` is stored and returned. Atomic: concurrent sign-ins of one address give one user.
   */
  readonly signIn: (candidate: User, at: Date) => Effect.Effect<User>
  readonly findById: (id: UserId) => Effect.Effect<Option.Option<User>>
  readonly findByEmail: (email: string) => Effect.Effect<Option.Option<User>>
  /** Oldest first, after `after` (keyset pages) or past the first `offset` rows (numbered pages). */
  readonly list: (query: OldestFirstQuery) => Effect.Effect<
    ReadonlyArray<User>
  >
  readonly count: Effect.Effect<number>
}>() {}
