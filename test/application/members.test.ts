import { describe, expect, it } from "@effect/vitest"
import {
  Auth,
  type Invitation,
  Members,
  Organizations,
  type Principal,
  UserRepository
} from "@roster/application"
import { EmailAddress, type Role, Slug, User, UserId } from "@roster/domain"
import { Effect, Either, Layer, Option, Ref, TestClock } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { InProcessRateLimiterLive } from "../../adapters/in-process/index.js"
import { makeJoseTokenSigner } from "../../adapters/jose/index.js"
import { keyFor, PrintedMail, PrintedMailLive, printedMail, tokenIn, UseCasesInMemory } from "./test-kit.js"

const MembersInMemory = Layer.mergeAll(Members.Default, Auth.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(
    UseCasesInMemory,
    makeJoseTokenSigner(new Uint8Array(randomBytes(32))),
    InProcessRateLimiterLive,
    PrintedMailLive
  ))
)

const managing = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, MembersInMemory)

/** How many emails have been printed so far. */
const printedCount = Effect.map(Effect.flatMap(PrintedMail, Ref.get), (all) => all.length)

/** An organization made by a signed-in user, who is its owner, and the principal of their session. */
const ownedOrganization = Effect.gen(function*() {
  const auth = yield* Auth
  const address = `owner-${randomUUID()}@example.com`
  const before = yield* printedCount
  yield* auth.requestSignInLink(EmailAddress.make(address), "en", "203.0.113.7")
  const owner = yield* auth.verify(tokenIn(yield* printedMail(before + 1)))
  const organization = yield* (yield* Organizations).createForUser(owner.user.id, {
    name: "Acme Newsletters",
    slug: Slug.make(`acme-${randomUUID().slice(0, 8)}`)
  })
  const principal = yield* auth.authenticate(owner.sessionToken, organization.id)
  return { organization, owner, principal }
})

/** Invites the address, then signs in with the invitation's link: the email, the session and its principal. */
const join = (inviter: Principal, invitation: Invitation) =>
  Effect.gen(function*() {
    const auth = yield* Auth
    const before = yield* printedCount
    const member = yield* (yield* Members).invite(inviter, invitation)
    const mail = yield* printedMail(before + 1)
    const signedIn = yield* auth.verify(tokenIn(mail))
    const principal = yield* auth.authenticate(signedIn.sessionToken, inviter.organization.id)
    return { member, mail, signedIn, principal }
  })

const invitation = (role: Role = "member"): Invitation => ({ email: `person-${randomUUID()}@example.com`, role })

const userIdOf = (principal: Principal): UserId => {
  if (principal.credential.kind !== "session") throw new Error("not a session")
  return principal.credential.userId
}

describe("inviting people to an organization", () => {
  it.effect("an owner invites by email: the person gets a sign-in link naming the organization and the owner, and is a member once signed in", () =>
    managing(Effect.gen(function*() {
      const { organization, owner, principal } = yield* ownedOrganization
      yield* TestClock.adjust("1 minute")
      const address = `Grace-${randomUUID()}@Example.com`
      const before = yield* printedCount
      const member = yield* (yield* Members).invite(principal, { email: `  ${address} `, role: "member" })
      expect(member).toMatchObject({ email: address, role: "member" })

      const mail = yield* printedMail(before + 1)
      expect(mail).toContain(`To: ${address}`)
      expect(mail).toContain("Subject: You are invited to Acme Newsletters on Roster")
      expect(mail).toContain(`${owner.user.email} has invited you to join Acme Newsletters on Roster`)
      expect(mail).toMatch(/http:\/\/localhost:3000\/auth\/sign-in\?token=/)
      expect(mail).toContain("expires in 15 minutes")

      const signedIn = yield* (yield* Auth).verify(tokenIn(mail))
      expect(signedIn.user.id).toBe(member.userId)
      expect(signedIn.organizations.map((o) => [o.organization.id, o.membership.role])).toEqual([[organization.id, "member"]])
      const listed = yield* (yield* Organizations).listForUser(member.userId)
      expect(listed.map((o) => o.organization.name)).toEqual(["Acme Newsletters"])
      const asMember = yield* (yield* Auth).authenticate(signedIn.sessionToken, organization.id)
      expect(asMember.credential).toMatchObject({ kind: "session", userId: member.userId, role: "member" })
      expect(asMember.scopes).not.toContain("*")
    })))

  it.effect("the invitation is written in the language asked for", () =>
    managing(Effect.gen(function*() {
      const { principal } = yield* ownedOrganization
      const { mail } = yield* join(principal, { ...invitation(), locale: "de" })
      expect(mail).toContain("Subject: Einladung zu Acme Newsletters bei Roster")
      expect(mail).toContain("hat Sie eingeladen, bei Acme Newsletters auf Roster mitzuarbeiten")
    })))

  it.effect("a person who has a user already keeps it, and is not marked as signed in by the invitation", () =>
    managing(Effect.gen(function*() {
      const { principal } = yield* ownedOrganization
      const users = yield* UserRepository
      const at = new Date(Date.UTC(2026, 0, 2))
      const existing = yield* users.signIn(
        new User({
          id: UserId.make(randomUUID()),
          email: EmailAddress.make(`known-${randomUUID()}@example.com`),
          createdAt: at,
          lastSignedInAt: at
        }),
        at
      )
      const member = yield* (yield* Members).invite(principal, { email: existing.email.toUpperCase(), role: "owner" })
      expect(member).toMatchObject({ userId: existing.id, email: existing.email, role: "owner" })
      expect(Option.getOrThrow(yield* users.findById(existing.id))).toStrictEqual(existing)
    })))

  it.effect("a person made a user by the invitation has not signed in yet", () =>
    managing(Effect.gen(function*() {
      const { principal } = yield* ownedOrganization
      const member = yield* (yield* Members).invite(principal, invitation())
      const user = Option.getOrThrow(yield* (yield* UserRepository).findById(member.userId))
      expect(user.lastSignedInAt).toBeNull()
    })))

  it.effect("inviting someone who is a member already is refused, whatever the letter case", () =>
    managing(Effect.gen(function*() {
      const { owner, principal } = yield* ownedOrganization
      const members = yield* Members
      const { member } = yield* join(principal, invitation())
      const again = yield* Effect.flip(members.invite(principal, { email: member.email.toUpperCase(), role: "owner" }))
      expect(again._tag).toBe("MemberAlreadyExists")
      expect(again.message).toContain(member.email)
      // The owner is a member too.
      const self = yield* Effect.flip(members.invite(principal, { email: owner.user.email, role: "member" }))
      expect(self._tag).toBe("MemberAlreadyExists")
      expect((yield* members.list(principal)).find((m) => m.userId === member.userId)?.role).toBe("member")
    })))

  it.effect("an address that is not one is refused, naming email", () =>
    managing(Effect.gen(function*() {
      const { principal } = yield* ownedOrganization
      const members = yield* Members
      for (const [address, problem] of [
        ["not-an-address", "must contain exactly one @"],
        ["", "must not be empty"],
        ["ada lovelace@example.com", "must not contain spaces or control characters"],
        ["ada@localhost", "domain must contain a dot"]
      ] as const) {
        const refused = yield* Effect.flip(members.invite(principal, { email: address, role: "member" }))
        expect(refused).toMatchObject({ _tag: "InvalidInput", field: "email", problem })
      }
      expect(yield* members.list(principal)).toHaveLength(1)
    })))

  it.effect("a key with * invites too; the email then names no inviter", () =>
    managing(Effect.gen(function*() {
      const { organization } = yield* ownedOrganization
      const key = yield* keyFor(organization.id, ["*"])
      const { mail, principal } = yield* join(key, invitation("owner"))
      expect(mail).toContain("You have been invited to join Acme Newsletters on Roster")
      expect(principal.scopes).toEqual(["*"])
    })))
})

describe("who may manage members", () => {
  it.effect("a member may list, but not invite, change roles or remove others", () =>
    managing(Effect.gen(function*() {
      const { owner, principal } = yield* ownedOrganization
      const members = yield* Members
      const { principal: asMember } = yield* join(principal, invitation())
      const { member: other } = yield* join(principal, invitation())
      expect((yield* members.list(asMember)).map((m) => m.userId)).toContain(other.userId)

      const refusals = [
        yield* Effect.flip(members.invite(asMember, invitation())),
        yield* Effect.flip(members.changeRole(asMember, other.userId, "owner")),
        yield* Effect.flip(members.changeRole(asMember, userIdOf(asMember), "owner")),
        yield* Effect.flip(members.remove(asMember, other.userId)),
        yield* Effect.flip(members.remove(asMember, owner.user.id))
      ]
      for (const refused of refusals) expect(refused).toMatchObject({ _tag: "MissingScope", scope: "*" })
      expect(yield* members.list(principal)).toHaveLength(3)
    })))

  it.effect("a key without * may not even list the members", () =>
    managing(Effect.gen(function*() {
      const { organization } = yield* ownedOrganization
      const narrow = yield* keyFor(organization.id, ["subscribers:read", "subscribers:write"])
      expect(yield* Effect.flip((yield* Members).list(narrow))).toMatchObject({ _tag: "MissingScope", scope: "*" })
      expect((yield* (yield* Members).list(yield* keyFor(organization.id, ["*"])))).toHaveLength(1)
    })))
})

describe("members and their roles", () => {
  it.effect("lists every member with their email and role, oldest first", () =>
    managing(Effect.gen(function*() {
      const { organization, owner, principal } = yield* ownedOrganization
      yield* TestClock.adjust("1 hour")
      const { member: first } = yield* join(principal, invitation("owner"))
      yield* TestClock.adjust("1 hour")
      const { member: second } = yield* join(principal, invitation())
      const listed = yield* (yield* Members).list(principal)
      expect(listed).toEqual([
        { userId: owner.user.id, email: owner.user.email, role: "owner", since: organization.createdAt },
        first,
        second
      ])
      expect(listed.map((m) => m.since.getTime())).toEqual([0, 3_600_000, 7_200_000])
    })))

  it.effect("an owner changes roles; the member's session has the new role's permissions on its next request", () =>
    managing(Effect.gen(function*() {
      const { organization, principal } = yield* ownedOrganization
      const members = yield* Members
      const auth = yield* Auth
      const { member, signedIn } = yield* join(principal, invitation())

      expect(yield* members.changeRole(principal, member.userId, "owner")).toEqual({ ...member, role: "owner" })
      expect((yield* auth.authenticate(signedIn.sessionToken, organization.id)).scopes).toEqual(["*"])
      // Unchanged when the role is the same.
      expect(yield* members.changeRole(principal, member.userId, "owner")).toEqual({ ...member, role: "owner" })

      expect(yield* members.changeRole(principal, member.userId, "member")).toEqual(member)
      const demoted = yield* auth.authenticate(signedIn.sessionToken, organization.id)
      expect(demoted.scopes).not.toContain("*")
      expect(demoted.credential).toMatchObject({ role: "member" })
    })))

  it.effect("the last owner cannot become a member; with a second owner they can", () =>
    managing(Effect.gen(function*() {
      const { owner, principal } = yield* ownedOrganization
      const members = yield* Members
      const refused = yield* Effect.flip(members.changeRole(principal, owner.user.id, "member"))
      expect(refused).toMatchObject({ _tag: "LastOwner", userId: owner.user.id, change: "demote" })
      expect(refused.message).toContain("last owner")

      const { member: second, principal: asSecond } = yield* join(principal, invitation("owner"))
      expect((yield* members.changeRole(asSecond, owner.user.id, "member")).role).toBe("member")
      expect(yield* Effect.flip(members.changeRole(asSecond, second.userId, "member"))).toMatchObject({ _tag: "LastOwner" })
    })))

  it.effect("two owners demoting each other at once: one change is made, the other refused", () =>
    managing(Effect.gen(function*() {
      const { owner, principal } = yield* ownedOrganization
      const members = yield* Members
      const { member: second, principal: asSecond } = yield* join(principal, invitation("owner"))
      const results = yield* Effect.all([
        Effect.either(members.changeRole(principal, second.userId, "member")),
        Effect.either(members.changeRole(asSecond, owner.user.id, "member"))
      ], { concurrency: "unbounded" })
      expect(results.filter(Either.isRight)).toHaveLength(1)
      expect(results.filter(Either.isLeft).map((r) => r.left._tag)).toEqual(["LastOwner"])
      expect((yield* members.list(principal)).filter((m) => m.role === "owner")).toHaveLength(1)
    })))

  it.effect("changing the role of someone who is not a member is a not-found refusal", () =>
    managing(Effect.gen(function*() {
      const { principal } = yield* ownedOrganization
      const stranger = UserId.make(randomUUID())
      const refused = yield* Effect.flip((yield* Members).changeRole(principal, stranger, "owner"))
      expect(refused).toMatchObject({ _tag: "ResourceNotFound", resource: "membership", id: stranger })
    })))
})

describe("removing members", () => {
  it.effect("an owner removes a member, whose session stops reaching the organization at once", () =>
    managing(Effect.gen(function*() {
      const { organization, principal } = yield* ownedOrganization
      const members = yield* Members
      const auth = yield* Auth
      const { member, signedIn } = yield* join(principal, invitation())
      yield* members.remove(principal, member.userId)
      expect((yield* members.list(principal)).map((m) => m.userId)).not.toContain(member.userId)
      const refused = yield* Effect.flip(auth.authenticate(signedIn.sessionToken, organization.id))
      expect(refused._tag).toBe("NotAMember")
      // The session itself lives on, for the user's other organizations.
      expect((yield* auth.sessionUser(signedIn.sessionToken)).user.id).toBe(member.userId)
      expect(yield* (yield* Organizations).listForUser(member.userId)).toEqual([])
    })))

  it.effect("a member may leave", () =>
    managing(Effect.gen(function*() {
      const { organization, principal } = yield* ownedOrganization
      const members = yield* Members
      const { member, principal: asMember, signedIn } = yield* join(principal, invitation())
      yield* members.remove(asMember, member.userId)
      expect(yield* members.list(principal)).toHaveLength(1)
      expect((yield* Effect.flip((yield* Auth).authenticate(signedIn.sessionToken, organization.id)))._tag).toBe("NotAMember")
    })))

  it.effect("the last owner can never be removed, by themselves or by a key; another owner may leave", () =>
    managing(Effect.gen(function*() {
      const { organization, owner, principal } = yield* ownedOrganization
      const members = yield* Members
      const key = yield* keyFor(organization.id, ["*"])
      for (const caller of [principal, key]) {
        const refused = yield* Effect.flip(members.remove(caller, owner.user.id))
        expect(refused).toMatchObject({ _tag: "LastOwner", userId: owner.user.id, change: "remove" })
      }
      const { member: second, principal: asSecond } = yield* join(principal, invitation("owner"))
      yield* members.remove(asSecond, second.userId)
      expect(yield* Effect.flip(members.remove(principal, owner.user.id))).toMatchObject({ _tag: "LastOwner" })

      const { member: third } = yield* join(principal, invitation("owner"))
      yield* members.remove(principal, owner.user.id)
      expect((yield* members.list(key)).map((m) => [m.userId, m.role])).toEqual([[third.userId, "owner"]])
    })))

  it.effect("removing someone who is not a member is a not-found refusal", () =>
    managing(Effect.gen(function*() {
      const { principal } = yield* ownedOrganization
      const members = yield* Members
      const { member } = yield* join(principal, invitation())
      yield* members.remove(principal, member.userId)
      for (const userId of [member.userId, UserId.make(randomUUID())]) {
        const refused = yield* Effect.flip(members.remove(principal, userId))
        expect(refused).toMatchObject({ _tag: "ResourceNotFound", resource: "membership", id: userId })
      }
    })))

  it.effect("a member of another organization is not found here, and stays a member there", () =>
    managing(Effect.gen(function*() {
      const acme = yield* ownedOrganization
      const other = yield* ownedOrganization
      const members = yield* Members
      const { member } = yield* join(other.principal, invitation())
      const refused = yield* Effect.flip(members.remove(acme.principal, member.userId))
      expect(refused._tag).toBe("ResourceNotFound")
      expect(yield* Effect.flip(members.changeRole(acme.principal, member.userId, "owner"))).toMatchObject({
        _tag: "ResourceNotFound"
      })
      expect((yield* members.list(other.principal)).map((m) => m.userId)).toContain(member.userId)
      expect((yield* members.list(acme.principal)).map((m) => m.userId)).not.toContain(member.userId)
    })))
})
