import { describe, expect, it } from "@effect/vitest"
import { Auth, MembershipRepository, Organizations } from "@roster/application"
import { EmailAddress, type Locale, Membership, OrganizationId, Slug } from "@roster/domain"
import { Effect, Either, Layer, Ref, Schema, TestClock } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { CryptoLive } from "../../adapters/node/index.js"
import { InProcessRateLimiterLive, MemoryPersistenceLive } from "../../adapters/in-process/index.js"
import { signInTemplates } from "../../adapters/liquid/index.js"
import { makeJoseTokenSigner } from "../../adapters/jose/index.js"
import { PrintedMail, PrintedMailLive, printedMail, tokenIn } from "./test-kit.js"

const SignInLive = Layer.mergeAll(Auth.Default, Organizations.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(
    MemoryPersistenceLive,
    CryptoLive,
    makeJoseTokenSigner(new Uint8Array(randomBytes(32))),
    InProcessRateLimiterLive,
    PrintedMailLive
  ))
)

const signingIn = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, SignInLive)

const email = (text: string) => Schema.decodeSync(EmailAddress)(text)

/** Asks for a link for `address` and returns the token the email carries. */
const linkFor = (address: string, locale: Locale = "en") =>
  Effect.gen(function*() {
    const before = (yield* Ref.get(yield* PrintedMail)).length
    yield* (yield* Auth).requestSignInLink(email(address), locale, "203.0.113.7")
    return tokenIn(yield* printedMail(before + 1))
  })

describe("signing in with a magic link", () => {
  it.effect("the first verified link makes the user and starts a session; the link is then spent", () =>
    signingIn(Effect.gen(function*() {
      const auth = yield* Auth
      const token = yield* linkFor("Ada@Example.com")
      const signedIn = yield* auth.verify(token)
      expect(signedIn.user.email).toBe("Ada@Example.com")
      expect(signedIn.organizations).toEqual([])
      expect(signedIn.sessionToken.split(".")).toHaveLength(3)
      expect((yield* auth.sessionUser(signedIn.sessionToken)).user.id).toBe(signedIn.user.id)

      const again = yield* Effect.flip(auth.verify(token))
      expect(again._tag).toBe("MagicLinkAlreadyUsed")

      // The same person later, with other letter case: the same user.
      const later = yield* auth.verify(yield* linkFor("ada@example.COM"))
      expect(later.user.id).toBe(signedIn.user.id)
    })))

  it.effect("a link is good for 15 minutes and not a moment longer", () =>
    signingIn(Effect.gen(function*() {
      const auth = yield* Auth
      const early = yield* linkFor("early@example.com")
      const late = yield* linkFor("late@example.com")
      yield* TestClock.adjust("14 minutes")
      yield* TestClock.adjust("59 seconds")
      expect((yield* auth.verify(early)).user.email).toBe("early@example.com")
      yield* TestClock.adjust("1 second")
      expect((yield* Effect.flip(auth.verify(late)))._tag).toBe("MagicLinkExpired")
    })))

  it.effect("of 25 concurrent verifies of one link exactly one signs in", () =>
    signingIn(Effect.gen(function*() {
      const auth = yield* Auth
      const token = yield* linkFor("race@example.com")
      const results = yield* Effect.all(Array.from({ length: 25 }, () => Effect.either(auth.verify(token))), {
        concurrency: "unbounded"
      })
      expect(results.filter(Either.isRight)).toHaveLength(1)
      expect(results.filter(Either.isLeft).map((r) => r.left._tag)).toEqual(Array(24).fill("MagicLinkAlreadyUsed"))
    })))

  it.effect("a token that names no link is refused as invalid", () =>
    signingIn(Effect.gen(function*() {
      const error = yield* Effect.flip((yield* Auth).verify("not-a-token"))
      expect(error._tag).toBe("InvalidToken")
    })))

  it.effect("the email is written in the language asked for and carries the sign-in page's link", () =>
    signingIn(Effect.gen(function*() {
      yield* linkFor("de@example.com", "de")
      const mail = yield* printedMail(1)
      expect(mail).toContain(`Subject: ${signInTemplates.de.subject}`)
      expect(mail).toContain("To: de@example.com")
      expect(mail).toMatch(/http:\/\/localhost:3000\/auth\/sign-in\?token=/)
    })))

  it.effect("links are limited per address; the limit lifts when its window ends", () =>
    signingIn(Effect.gen(function*() {
      const auth = yield* Auth
      for (let i = 0; i < 5; i++) yield* auth.requestSignInLink(email("busy@example.com"), "en", `198.51.100.${i}`)
      const refused = yield* Effect.flip(auth.requestSignInLink(email("BUSY@example.com"), "en", "198.51.100.9"))
      expect(refused._tag).toBe("SignInRateLimited")
      expect(refused.retryAfterSeconds).toBeGreaterThan(0)
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(15 * 60)
      yield* auth.requestSignInLink(email("other@example.com"), "en", "198.51.100.9")
      yield* TestClock.adjust("15 minutes")
      yield* auth.requestSignInLink(email("busy@example.com"), "en", "198.51.100.9")
    })))
})

describe("sessions", () => {
  const signedInWithOrganization = Effect.gen(function*() {
    const auth = yield* Auth
    const signedIn = yield* auth.verify(yield* linkFor(`owner-${randomUUID()}@example.com`))
    const organization = yield* (yield* Organizations).createForUser(signedIn.user.id, {
      name: "Acme",
      slug: Slug.make(`acme-${randomUUID().slice(0, 8)}`)
    })
    return { signedIn, organization }
  })

  it.effect("a session acts for an organization its user belongs to, with the role's permissions", () =>
    signingIn(Effect.gen(function*() {
      const auth = yield* Auth
      const { organization, signedIn } = yield* signedInWithOrganization
      const principal = yield* auth.authenticate(signedIn.sessionToken, organization.id)
      expect(principal.organization.id).toBe(organization.id)
      expect(principal.scopes).toEqual(["*"])
      expect(principal.credential).toMatchObject({ kind: "session", userId: signedIn.user.id, role: "owner" })

      const member = yield* auth.verify(yield* linkFor(`member-${randomUUID()}@example.com`))
      yield* (yield* MembershipRepository).upsert(
        new Membership({ organizationId: organization.id, userId: member.user.id, role: "member", createdAt: new Date(0) })
      )
      const asMember = yield* auth.authenticate(member.sessionToken, organization.id)
      expect(asMember.scopes).not.toContain("*")
      expect(asMember.scopes).toContain("subscribers:write")
    })))

  it.effect("a session never acts for an organization its user is not a member of", () =>
    signingIn(Effect.gen(function*() {
      const auth = yield* Auth
      const { signedIn } = yield* signedInWithOrganization
      const other = yield* signedInWithOrganization
      expect((yield* Effect.flip(auth.authenticate(signedIn.sessionToken, other.organization.id)))._tag).toBe("NotAMember")
      expect((yield* Effect.flip(auth.authenticate(signedIn.sessionToken, "not-an-id")))._tag).toBe("NotAMember")
      expect((yield* Effect.flip(auth.authenticate(signedIn.sessionToken, OrganizationId.make(randomUUID()))))._tag)
        .toBe("NotAMember")
      expect((yield* Effect.flip(auth.authenticate(signedIn.sessionToken, undefined)))._tag).toBe("OrganizationNotChosen")
    })))

  it.effect("removing a member ends that session's access to the organization at once", () =>
    signingIn(Effect.gen(function*() {
      const auth = yield* Auth
      const { organization, signedIn } = yield* signedInWithOrganization
      yield* auth.authenticate(signedIn.sessionToken, organization.id)
      yield* (yield* MembershipRepository).remove(organization.id, signedIn.user.id)
      expect((yield* Effect.flip(auth.authenticate(signedIn.sessionToken, organization.id)))._tag).toBe("NotAMember")
    })))

  it.effect("signing out ends the session everywhere, whatever copies of the cookie exist", () =>
    signingIn(Effect.gen(function*() {
      const auth = yield* Auth
      const { organization, signedIn } = yield* signedInWithOrganization
      yield* auth.signOut(signedIn.sessionToken)
      const refused = yield* Effect.flip(auth.authenticate(signedIn.sessionToken, organization.id))
      expect(refused._tag).toBe("Unauthenticated")
      expect((yield* Effect.flip(auth.signOut(signedIn.sessionToken)))._tag).toBe("Unauthenticated")
    })))

  it.effect("a session lasts seven days", () =>
    signingIn(Effect.gen(function*() {
      const auth = yield* Auth
      const { organization, signedIn } = yield* signedInWithOrganization
      yield* TestClock.adjust("6 days")
      yield* auth.authenticate(signedIn.sessionToken, organization.id)
      yield* TestClock.adjust("1 day")
      expect((yield* Effect.flip(auth.authenticate(signedIn.sessionToken, organization.id)))._tag).toBe("Unauthenticated")
    })))

  it.effect("a forged or altered session token is refused", () =>
    signingIn(Effect.gen(function*() {
      const auth = yield* Auth
      const { organization, signedIn } = yield* signedInWithOrganization
      const [header, payload, signature] = signedIn.sessionToken.split(".")
      const altered = [header, payload!.slice(0, -2) + (payload!.endsWith("A") ? "BB" : "AA"), signature].join(".")
      for (const token of [altered, "garbage", `${header}.${payload}.`]) {
        expect((yield* Effect.flip(auth.authenticate(token, organization.id)))._tag).toBe("Unauthenticated")
      }
    })))
})
