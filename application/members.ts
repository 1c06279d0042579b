import {
  EmailAddress,
  emailAddressReason,
  InvalidInput,
  type Locale,
  Membership,
  reason,
  ResourceNotFound,
  type Role,
  User,
  UserId
} from "@roster/domain"
import { Effect, Option, Schema } from "effect"
import { AuthMail } from "./ports/auth-mail.js"
import { Ids } from "./ports/ids.js"
import { MembershipRepository } from "./ports/membership-repository.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { UserRepository } from "./ports/user-repository.js"
import { now } from "./support/clock.js"
import { MAGIC_LINK_MINUTES, magicLinkIssuer } from "./support/magic-links.js"
import { operations } from "./support/operation.js"
import { requireFound } from "./support/ownership.js"
import { authorize, type Principal } from "./support/principal.js"

/** The person invited is a member of the organization already. */
export class MemberAlreadyExists extends Schema.TaggedError<MemberAlreadyExists>()("MemberAlreadyExists", {
  email: Schema.String
}) {
  override get message() {
    return `${this.email} is a member of the organization already; change their role instead`
  }
}

/** The change would leave the organization without an owner. */
export class LastOwner extends Schema.TaggedError<LastOwner>()("LastOwner", {
  userId: Schema.String,
  change: Schema.Literal("remove", "demote")
}) {
  override get message() {
    const what = this.change === "remove" ? "be removed" : "become a member"
    return `user ${this.userId} is the organization's last owner and cannot ${what}; make another member an owner first`
  }
}

/** A member of the organization as its owners see them. */
export interface Member {
  readonly userId: UserId
  readonly email: EmailAddress
  readonly role: Role
  /** When they joined the organization. */
  readonly since: Date
}

export interface Invitation {
  /** The address as typed; it is checked here. */
  readonly email: string
  readonly role: Role
  /** The language of the invitation email; English unless given. */
  readonly locale?: Locale | undefined
}

const memberOf = (membership: Membership, user: User): Member => ({
  userId: user.id,
  email: user.email,
  role: membership.role,
  since: membership.createdAt
})

/** Whether `userId` is the only one of these owners. */
const isLastOwner = (owners: ReadonlyArray<UserId>, userId: UserId) => owners.length === 1 && owners[0] === userId

/** The address, or an `InvalidInput` naming `email` that says what is wrong with it. */
const checkedEmail = (text: string) =>
  Option.match(Schema.decodeUnknownOption(EmailAddress)(text), {
    onNone: () =>
      Effect.fail(
        new InvalidInput({ field: "email", reason: emailAddressReason(text.trim()) ?? reason("notAnEmailAddress") })
      ),
    onSome: Effect.succeed
  })

/**
 * An organization's people, as its owners manage them: every member sees who belongs; owners
 * (a session with the owner role, or a key with `*`) invite by email, change roles and remove
 * members; anyone may leave. An organization with an owner always keeps one. A session reads its
 * membership on every request, so a change reaches the member's next request.
 */
export class Members extends Effect.Service<Members>()("roster/Members", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const organizations = yield* OrganizationRepository
    const users = yield* UserRepository
    const memberships = yield* MembershipRepository
    const unitOfWork = yield* UnitOfWork
    const ids = yield* Ids
    const mail = yield* AuthMail
    const issueLink = yield* magicLinkIssuer

    /** A member's session, or an owner's credential. */
    const mayList = (principal: Principal) =>
      principal.credential.kind === "session" ? Effect.void : authorize(principal, "*")

    const isSelf = (principal: Principal, userId: UserId) =>
      principal.credential.kind === "session" && principal.credential.userId === userId

    const userById = (id: UserId) => requireFound("user", id, users.findById(id))

    /** The organization's members, oldest first. */
    const list = operation("Members.list")(function*(principal: Principal) {
      yield* mayList(principal)
      const members = yield* memberships.listForOrganization(principal.organization.id)
      return members.map(({ membership, user }) => memberOf(membership, user))
    })

    /**
     * Makes the person a member with the role (and a user, if they are none yet), and emails them
     * a sign-in link that names the organization and who invited them.
     */
    const invite = operation("Members.invite")(function*(principal: Principal, invitation: Invitation) {
      yield* authorize(principal, "*")
      const email = yield* checkedEmail(invitation.email)
      const locale = invitation.locale ?? "en"
      const organizationId = principal.organization.id
      const invited = yield* unitOfWork.transaction(Effect.gen(function*() {
        const organization = yield* requireFound("organization", organizationId, organizations.findById(organizationId))
        const at = yield* now
        const known = yield* users.findByEmail(email)
        const user = Option.isSome(known)
          ? known.value
          : yield* users.signIn(new User({ id: UserId.make(yield* ids.next), email, createdAt: at, lastSignedInAt: null }), at)
        if (Option.isSome(yield* memberships.find(organizationId, user.id))) {
          return yield* new MemberAlreadyExists({ email: user.email })
        }
        const membership = new Membership({ organizationId, userId: user.id, role: invitation.role, createdAt: at })
        yield* memberships.upsert(membership)
        return { organization, member: memberOf(membership, user), token: yield* issueLink(user.email, locale) }
      }))
      const invitedBy = principal.credential.kind === "session"
        ? Option.getOrNull(Option.map(yield* users.findById(principal.credential.userId), (user) => user.email))
        : null
      // Like a sign-in link, the email goes out in the background; a failed delivery is logged.
      yield* Effect.forkDaemon(mail.sendInvitation({
        to: invited.member.email,
        token: invited.token,
        locale,
        expiresInMinutes: MAGIC_LINK_MINUTES,
        organizationName: invited.organization.name,
        invitedBy
      }))
      return invited.member
    })

    /** Gives a member another role; the last owner stays an owner. */
    const changeRole = operation("Members.changeRole")(function*(principal: Principal, userId: UserId, role: Role) {
      yield* authorize(principal, "*")
      const organizationId = principal.organization.id
      return yield* unitOfWork.transaction(Effect.gen(function*() {
        const owners = yield* memberships.holdOwners(organizationId)
        const current = yield* requireFound("membership", userId, memberships.find(organizationId, userId))
        const user = yield* userById(userId)
        if (current.role === role) return memberOf(current, user)
        if (isLastOwner(owners, userId)) return yield* new LastOwner({ userId, change: "demote" })
        const changed = new Membership({ ...current, role })
        yield* memberships.upsert(changed)
        return memberOf(changed, user)
      }))
    })

    /** Takes a member out of the organization: an owner may remove anyone, a member themselves; never the last owner. */
    const remove = operation("Members.remove")(function*(principal: Principal, userId: UserId) {
      if (!isSelf(principal, userId)) yield* authorize(principal, "*")
      const organizationId = principal.organization.id
      yield* unitOfWork.transaction(Effect.gen(function*() {
        const owners = yield* memberships.holdOwners(organizationId)
        if (isLastOwner(owners, userId)) return yield* new LastOwner({ userId, change: "remove" })
        if (!(yield* memberships.remove(organizationId, userId))) {
          return yield* new ResourceNotFound({ resource: "membership", id: userId })
        }
      }))
    })

    return { list, invite, changeRole, remove } as const
  })
}) {}
