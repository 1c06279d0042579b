import type { Session, UserId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

export class SessionRepository extends Context.Tag("roster/SessionRepository")<SessionRepository, {
  readonly insert: (session: Session) => Effect.Effect<void>
  readonly findById: (id: string) => Effect.Effect<Option.Option<Session>>
  /** Whether an active session was revoked. */
  readonly revoke: (id: string, at: Date) => Effect.Effect<boolean>
  readonly revokeAllForUser: (userId: UserId, at: Date) => Effect.Effect<number>
}>() {}
