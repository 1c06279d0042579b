import {
  type ApiKeyId,
  type EmailAddress,
  expiresAt,
  type FormId,
  type Locale,
  type Metadata,
  mayMailAgain,
  type OrganizationId,
  PendingSignUp,
  SIGN_UP_LIFETIME,
  SignUpId,
  type SignUpKind,
  type TagId
} from "@roster/domain"
import { Effect, Encoding, Option } from "effect"
import { Ids } from "../ports/ids.js"
import { Secrets } from "../ports/secrets.js"
import { SignUpRepository } from "../ports/sign-up-repository.js"

/** Where a sign-up comes from: a form of the organization, or its API (no form) through a key. */
export interface SignUpSource {
  readonly organizationId: OrganizationId
  readonly formId: FormId | null
  readonly apiKeyId: ApiKeyId | null
}

/** Who signs up, and what they are made with on confirming. */
export interface SignUpPerson {
  readonly email: EmailAddress
  readonly firstName: string | null
  readonly lastName: string | null
  readonly consentText: string | null
  /** Cut to its network already. */
  readonly clientAddress: string | null
  readonly userAgent: string | null
  readonly tagIds: ReadonlyArray<TagId>
  readonly metadata: Metadata
}

/**
 * Keeps sign-ups waiting, for forms and the API alike: one unconfirmed sign-up per source and
 * address, whose email goes out at most once in the mail interval.
 */
export const makeSignUpKeeping = Effect.gen(function*() {
  const signUps = yield* SignUpRepository
  const secrets = yield* Secrets
  const ids = yield* Ids

  const newTokenId = Effect.map(secrets.randomBytes(16), Encoding.encodeBase64Url)

  /**
   * Keeps the sign-up of `person` through `source`, of `kind`, and queues its email unless one
   * went to the address through the source in the last ten minutes. A sign-up past its week starts
   * over (a new link, a new week, what was sent now); one of another kind (the address was
   * subscribed meanwhile, or has gone) becomes this kind with a new link. With `mailing` false
   * (a test key's) it is kept without its email.
   */
  const keep = (
    source: SignUpSource,
    person: SignUpPerson,
    kind: SignUpKind,
    locale: Locale,
    at: Date,
    mailing: boolean
  ) =>
    Effect.gen(function*() {
      const fresh = {
        ...person,
        kind,
        apiKeyId: source.apiKeyId,
        locale,
        tokenId: yield* newTokenId,
        createdAt: at,
        expiresAt: expiresAt(at, SIGN_UP_LIFETIME)
      }
      const waiting = yield* signUps.findUnconfirmed(source.organizationId, source.formId, person.email)
      if (Option.isNone(waiting)) {
        // Two submissions at once: the second finds the first's sign-up next time.
        yield* signUps.insert(new PendingSignUp({
          id: SignUpId.make(yield* ids.next),
          organizationId: source.organizationId,
          formId: source.formId,
          ...fresh,
          tagIds: [...person.tagIds],
          mailDueAt: mailing ? at : null,
          lastMailAt: null,
          confirmedAt: null
        }))
        return
      }
      const current = waiting.value
      if (current.expiresAt.getTime() <= at.getTime()) {
        yield* signUps.update(new PendingSignUp({
          ...current,
          ...fresh,
          tagIds: [...person.tagIds],
          mailDueAt: mailing ? at : null,
          lastMailAt: null
        }))
        return
      }
      const due = mailing && current.mailDueAt === null && mayMailAgain(current.lastMailAt, at) ? at : current.mailDueAt
      if (current.kind !== kind) {
        yield* signUps.update(new PendingSignUp({ ...current, ...fresh, tagIds: [...person.tagIds], mailDueAt: due }))
      } else if (due !== current.mailDueAt) {
        yield* signUps.update(new PendingSignUp({ ...current, mailDueAt: due }))
      }
    })

  return { keep, newTokenId } as const
})
