import type { Consent, EmailAddress, FormId, OrganizationId, PendingSignUp, SignUpId, SubscriberId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

/** A form's sign-ups: waiting for their confirmation, and the subscribers who joined through it. */
export interface FormSignUpCounts {
  readonly pending: number
  readonly confirmed: number
}

/**
 * Sign-ups waiting for their confirmation: at most one unconfirmed sign-up per form and address
 * (letter case aside), and one per organization and address of those through the API (no form),
 * kept until confirmed or, once expired, cleared away.
 */
export class SignUpRepository extends Context.Tag("roster/SignUpRepository")<SignUpRepository, {
  /** Keeps a new sign-up; `false` when its form (or the API) already has an unconfirmed one for the address. */
  readonly insert: (signUp: PendingSignUp) => Effect.Effect<boolean>
  /** Stores every field as given. */
  readonly update: (signUp: PendingSignUp) => Effect.Effect<void>
  readonly findById: (id: SignUpId) => Effect.Effect<Option.Option<PendingSignUp>>
  /**
   * The unconfirmed sign-up for the address (in any letter case) through the form `formId` of the
   * organization, or through its API when `formId` is `null`; expired or not.
   */
  readonly findUnconfirmed: (
    organizationId: OrganizationId,
    formId: FormId | null,
    email: EmailAddress
  ) => Effect.Effect<Option.Option<PendingSignUp>>
  /**
   * Marks the sign-up confirmed at `at` if it is unconfirmed, unexpired and its token is still
   * `tokenId`: one conditional write, so of concurrent confirmations exactly one gets it.
   */
  readonly confirm: (id: SignUpId, tokenId: string, at: Date) => Effect.Effect<Option.Option<PendingSignUp>>
  /**
   * Takes up to `limit` sign-ups whose confirmation email is due at `at`, oldest first, marking
   * them mailed at `at`: a sign-up is taken by one worker once.
   */
  readonly takeDueMail: (at: Date, limit: number) => Effect.Effect<ReadonlyArray<PendingSignUp>>
  /**
   * For each of the organization's forms named, how many sign-ups wait for their confirmation at
   * `at` (unconfirmed and unexpired, of kind `confirmation`), and how many subscribers joined
   * through it (those with a consent naming it, confirmed by email or through a form without
   * double opt-in). A form with neither is answered with zeros.
   */
  readonly countsByForm: (
    organizationId: OrganizationId,
    formIds: ReadonlyArray<FormId>,
    at: Date
  ) => Effect.Effect<ReadonlyMap<FormId, FormSignUpCounts>>
  /** Deletes up to `limit` sign-ups that expired unconfirmed before `at`, and confirmed ones as old; how many. */
  readonly deleteExpired: (at: Date, limit: number) => Effect.Effect<number>
}>() {}

/** What subscribers agreed to: kept while they are (unsubscribed too), erased with them. */
export class ConsentRepository extends Context.Tag("roster/ConsentRepository")<ConsentRepository, {
  readonly record: (consent: Consent) => Effect.Effect<void>
  /** The subscriber's consents, oldest first. */
  readonly listFor: (organizationId: OrganizationId, subscriberId: SubscriberId) => Effect.Effect<ReadonlyArray<Consent>>
}>() {}
