import {
  type EmailAddress,
  emailKey,
  expiresAt,
  InvalidToken,
  isSessionActive,
  isUuid,
  type Locale,
  MAGIC_LINK_REQUEST_LIMITS,
  MagicLinkAlreadyUsed,
  MagicLinkExpired,
  magicLinkState,
  type Membership,
  type Organization,
  OrganizationId,
  roleScopes,
  Session,
  SESSION_LIFETIME,
  User,
  UserId
} from "@roster/domain"
import { Effect, Option, Schema } from "effect"
import { now } from "./support/clock.js"
import { AuthMail } from "./ports/auth-mail.js"
import { Ids } from "./ports/ids.js"
import { MagicLinkRepository } from "./ports/magic-link-repository.js"
import { MembershipRepository } from "./ports/membership-repository.js"
import { RateLimiter } from "./ports/rate-limiter.js"
import { Secrets } from "./ports/secrets.js"
import { SessionRepository } from "./ports/session-repository.js"
import { TokenSigner } from "./ports/token-signer.js"
import { UserRepository } from "./ports/user-repository.js"
import { type Principal, Unauthenticated } from "./support/principal.js"
import { Limits } from "./support/limits.js"
import { MAGIC_LINK_MINUTES, magicLinkIssuer } from "./support/magic-links.js"
import { operations } from "./support/operation.js"

/** Too many sign-in links asked for; try again after `retryAfterSeconds`. */
export class SignInRateLimited extends Schema.TaggedError<SignInRateLimited>()("SignInRateLimited", {
  retryAfterSeconds: Schema.Number
}) {
  override get message() {
    return `too many sign-in links requested; try again in ${this.retryAfterSeconds} seconds`
  }
}

/** A session used without saying which organization it acts for. */
export class OrganizationNotChosen extends Schema.TaggedError<OrganizationNotChosen>()("OrganizationNotChosen", {}) {
  override get message() {
    return "a session must name its organization in the X-Organization-Id header"
  }
}

/** The session's user is not a member of the organization it names. */
export class NotAMember extends Schema.TaggedError<NotAMember>()("NotAMember", { organizationId: Schema.String }) {
  override get message() {
    return `you are not a member of organization ${this.organizationId}`
  }
}

export interface SignedIn {
  readonly user: User
  readonly organizations: ReadonlyArray<{ readonly membership: Membership; readonly organization: Organization }>
  /** The signed session token for the cookie, and when it ends. */
  readonly sessionToken: string
  readonly expiresAt: Date
}

/** The user behind a session, without an organization chosen yet (the `/auth/*` routes). */
export interface SessionUser {
  readonly user: User
  readonly sessionId: string
}

/** A signed-in user with the organizations they belong to and their role in each. */
export interface SignedInUser extends SessionUser {
  readonly organizations: ReadonlyArray<{ readonly membership: Membership; readonly organization: Organization }>
}

/**
 * Signing in without a password: a single-use link by email, then a session recorded server-side
 * and carried in a signed cookie.
 */
export class Auth extends Effect.Service<Auth>()("roster/Auth", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const users = yield* UserRepository
    const memberships = yield* MembershipRepository
    const magicLinks = yield* MagicLinkRepository
    const sessions = yield* SessionRepository
    const tokens = yield* TokenSigner
    const limiter = yield* RateLimiter
    const mail = yield* AuthMail
    const secrets = yield* Secrets
    const ids = yield* Ids
    const limits = yield* Limits
    const issueLink = yield* magicLinkIssuer

    const limited = (key: string, limit: { readonly requests: number; readonly windowMs: number }) =>
      Effect.flatMap(limiter.consume(key, limit.requests, limit.windowMs), (decision) =>
        decision.allowed
          ? Effect.void
          : Effect.flatMap(now, (at) =>
            Effect.fail(
              new SignInRateLimited({
                retryAfterSeconds: Math.max(1, Math.ceil((decision.resetAt.getTime() - at.getTime()) / 1000))
              })
            )))

    /**
     * Emails a sign-in link to `email`. Every address gets the same answer, whether or not a user
     * has it (users are made on the first verified link), and the email goes out in the background
     * so the answer takes the same time either way.
     */
    const requestSignInLink = operation("Auth.requestSignInLink")(
      function*(email: EmailAddress, locale: Locale, clientAddress: string) {
        yield* limited(`sign-in:ip:${clientAddress}`, MAGIC_LINK_REQUEST_LIMITS.perIp)
        yield* limited(`sign-in:email:${yield* secrets.sha256(emailKey(email))}`, MAGIC_LINK_REQUEST_LIMITS.perEmail)
        const token = yield* issueLink(email, locale)
        yield* Effect.forkDaemon(mail.sendSignInLink({ to: email, token, locale, expiresInMinutes: MAGIC_LINK_MINUTES }))
      }
    )

    /** Uses a sign-in link: the user (made on first use), their organizations and a new session. */
    const verify = operation("Auth.verify")(function*(token: string) {
      const tokenHash = yield* secrets.sha256(token)
      const at = yield* now
      const consumed = yield* magicLinks.consume(tokenHash, at)
      if (Option.isNone(consumed)) {
        const known = yield* magicLinks.findByHash(tokenHash)
        if (Option.isNone(known)) return yield* new InvalidToken({ reason: "this sign-in link is not valid" })
        return yield* magicLinkState(known.value, at) === "used" ? new MagicLinkAlreadyUsed() : new MagicLinkExpired()
      }
      const user = yield* users.signIn(
        new User({ id: UserId.make(yield* ids.next), email: consumed.value.email, createdAt: at, lastSignedInAt: at }),
        at
      )
      const session = new Session({
        id: yield* ids.next,
        userId: user.id,
        createdAt: at,
        expiresAt: expiresAt(at, SESSION_LIFETIME),
        revokedAt: null
      })
      yield* sessions.insert(session)
      const sessionToken = yield* tokens.sign("session", {
        subject: user.id,
        id: session.id,
        issuedAt: at,
        expiresAt: session.expiresAt
      })
      return {
        user,
        organizations: yield* memberships.listForUser(user.id),
        sessionToken,
        expiresAt: session.expiresAt
      } satisfies SignedIn
    })

    /** The signed-in user of a session cookie; revoked, expired or forged sessions are refused. */
    const sessionUser = operation("Auth.sessionUser")(function*(sessionToken: string) {
      const at = yield* now
      const claims = yield* tokens.verify("session", sessionToken, at).pipe(
        Effect.mapError(() => new Unauthenticated({ reason: "the session is not valid; sign in again" }))
      )
      // The service names sessions and users by UUIDs; a token naming anything else was not issued here.
      if (!isUuid(claims.id) || !isUuid(claims.subject)) {
        return yield* new Unauthenticated({ reason: "the session is not valid; sign in again" })
      }
      const session = yield* sessions.findById(claims.id)
      if (Option.isNone(session) || !isSessionActive(session.value, at) || session.value.userId !== claims.subject) {
        return yield* new Unauthenticated({ reason: "the session has ended; sign in again" })
      }
      const user = yield* users.findById(session.value.userId)
      if (Option.isNone(user)) return yield* new Unauthenticated({ reason: "the session has ended; sign in again" })
      return { user: user.value, sessionId: session.value.id } satisfies SessionUser
    })

    /** The signed-in user of a session cookie with their organizations, read once. */
    const signedIn = operation("Auth.signedIn")(function*(sessionToken: string) {
      const session = yield* sessionUser(sessionToken)
      return { ...session, organizations: yield* memberships.listForUser(session.user.id) } satisfies SignedInUser
    })

    /**
     * The principal of a signed-in user acting for the organization it names, from the
     * organizations read with the session: the user must be a member, and the organization must
     * not be suspended.
     */
    const actFor = (signed: SignedInUser, organizationId: string | undefined) =>
      Effect.gen(function*() {
        const { organizations, sessionId, user } = signed
        if (organizationId === undefined || organizationId.trim() === "") return yield* new OrganizationNotChosen()
        const decoded = Schema.decodeUnknownOption(OrganizationId)(organizationId.trim())
        if (Option.isNone(decoded)) return yield* new NotAMember({ organizationId })
        const found = organizations.find(({ organization }) => organization.id === decoded.value)
        if (found === undefined) return yield* new NotAMember({ organizationId: decoded.value })
        if (found.organization.isSuspended) return yield* new Unauthenticated({ reason: "the organization is suspended" })
        return {
          organization: {
            id: found.organization.id,
            tier: found.organization.tier,
            isPlatformAdmin: found.organization.isPlatformAdmin,
            requestsPerMinute: limits.requestsPerMinute(found.organization.tier, found.organization.customRateLimit)
          },
          scopes: roleScopes[found.membership.role],
          credential: { kind: "session", userId: user.id, role: found.membership.role, sessionId }
        } satisfies Principal
      })

    /** The principal of a session acting for the organization it names (see {@link actFor}). */
    const authenticate = operation("Auth.authenticate")(
      function*(sessionToken: string, organizationId: string | undefined) {
        return yield* actFor(yield* signedIn(sessionToken), organizationId)
      }
    )

    /** Ends the session at once, whatever copies of its cookie exist. */
    const signOut = operation("Auth.signOut")(function*(sessionToken: string) {
      const { sessionId } = yield* sessionUser(sessionToken)
      yield* sessions.revoke(sessionId, yield* now)
    })

    return { requestSignInLink, verify, sessionUser, signedIn, actFor, authenticate, signOut } as const
  })
}) {}
