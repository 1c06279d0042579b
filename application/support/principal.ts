import type { ApiKeyEnvironment, ApiKeyId, OrganizationId, PlanTier, Scope, UserId } from "@roster/domain"
import { allows } from "@roster/domain"
import { Effect, Schema } from "effect"

/** Who is calling, for which organization, with which permissions. */
export interface Principal {
  readonly organization: {
    readonly id: OrganizationId
    readonly tier: PlanTier
    readonly isPlatformAdmin: boolean
    /** Requests per minute it may make; `null` when it has no limit. */
    readonly requestsPerMinute: number | null
  }
  readonly scopes: ReadonlyArray<Scope>
  readonly credential:
    | { readonly kind: "api_key"; readonly id: ApiKeyId; readonly environment: ApiKeyEnvironment }
    | {
      readonly kind: "session"
      readonly userId: UserId
      readonly role: "owner" | "member"
      readonly sessionId: string
    }
}

/** No valid credential was presented. */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/** The credential is valid but lacks the permission the operation needs. */
export class MissingScope extends Schema.TaggedError<MissingScope>()("MissingScope", {
  scope: Schema.String
}) {
  override get message() {
    return `this credential lacks the scope ${this.scope}`
  }
}

export const authorize = (principal: Principal, scope: Scope): Effect.Effect<void, MissingScope> =>
  allows(principal.scopes, scope) ? Effect.void : Effect.fail(new MissingScope({ scope }))
