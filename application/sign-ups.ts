import {
  Consent,
  ConsentId,
  DomainEvent,
  type EmailAddress,
  EventId,
  type EventType,
  expiresAt,
  type Form,
  FORM_PAGE_LIFETIME,
  type FormId,
  InvalidToken,
  keptUserAgent,
  LIST_FULL_NOTICE_INTERVAL_MS,
  type Locale,
  looksAutomated,
  type OrganizationId,
  type PendingSignUp,
  PlanLimitExceeded,
  ResourceNotFound,
  SignUpId,
  signUpCollision,
  Subscriber,
  SubscriberId,
  truncateClientAddress
} from "@roster/domain"
import { Array, Effect, Option } from "effect"
import { EmailSettingsRepository } from "./ports/email-settings-repository.js"
import { FormRepository } from "./ports/form-repository.js"
import { Ids } from "./ports/ids.js"
import { Mailer } from "./ports/mailer.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { Outbox } from "./ports/outbox.js"
import { OutgoingMailConfig } from "./ports/outgoing-mail-config.js"
import { RateLimiter } from "./ports/rate-limiter.js"
import { ConsentRepository, SignUpRepository } from "./ports/sign-up-repository.js"
import { SubscriberRepository } from "./ports/subscriber-repository.js"
import { TagAssignments } from "./ports/tag-assignments.js"
import { TagRepository } from "./ports/tag-repository.js"
import { TemplateEngine } from "./ports/template-engine.js"
import { TemplateRepository } from "./ports/template-repository.js"
import { TokenSigner } from "./ports/token-signer.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { now } from "./support/clock.js"
import { subscriberSnapshot, tagSubscriptionData } from "./support/event-payloads.js"
import { Limits } from "./support/limits.js"
import { operations } from "./support/operation.js"
import { signPreferenceToken } from "./support/preference-tokens.js"
import { makeSenderOf } from "./support/sender.js"
import { makeSignUpKeeping, type SignUpPerson } from "./support/sign-up-keeping.js"
import { alreadySubscribedMail, confirmationUrl, defaultConfirmationMail } from "./support/sign-up-mail.js"
import { attachWithinLimit } from "./support/tag-limits.js"
import { preferencesUrl, templateScope } from "./support/template-scope.js"

/** What a reader sends in a form. */
export interface SignUpSubmission {
  readonly email: EmailAddress
  readonly firstName?: string | undefined
  readonly lastName?: string | undefined
  /** The hidden field people leave empty. */
  readonly honeypot?: string | undefined
  /** When the form's page was shown, when the page says so: a form sent back too soon is a robot's. */
  readonly shownAt?: Date | undefined
}

/** Where a submission comes from, as its consent keeps it (the address is cut to its network here). */
export interface ClientInfo {
  readonly address?: string | undefined
  readonly userAgent?: string | undefined
  readonly locale: Locale
}

/**
 * What the reader is told: the same for every address, known or not. `confirm_by_email` for a
 * form with double opt-in, `subscribed` for one without.
 */
export interface SignUpAnswer {
  readonly form: Form
  readonly outcome: "confirm_by_email" | "subscribed"
}

/**
 * A form as its hosted page shows it, with the page's stamp: a signed token of when the page was
 * shown, which the page sends back so that the time it took to fill in cannot be made up.
 */
export interface ShownForm {
  readonly form: Form
  readonly stamp: string
}

/**
 * What a confirmation did: `subscribed` now, or `already_confirmed` by an earlier use of the link.
 * `form` is the form signed up through, `null` for a sign-up through the API; `name` is what the
 * reader signed up to (the form's name, or the organization's).
 */
export interface Confirmation {
  readonly form: Form | null
  readonly name: string
  readonly outcome: "subscribed" | "already_confirmed"
}

/** A link that names no sign-up waiting for confirmation: tampered with, replaced, expired or of a deleted form. */
const invalidLink = new InvalidToken({ reason: "the confirmation link is not valid (any longer); sign up again" })

/**
 * Sign-ups through forms, without an API key (and the confirmations and emails of those the API
 * asks for, `Subscribers.requestConfirmation`). With double opt-in a sign-up is kept pending (not
 * a subscriber, not counted against the plan) for seven days, and a confirmation email waits for
 * the worker; confirming creates the subscriber (or makes an unsubscribed one active again) with
 * the form's tags. The answer to a submission never tells whether the address was known: an
 * active subscriber gets no second record but an email saying they are subscribed already, with
 * their preference link; a bounced or complained address gets nothing sent; and submissions
 * within ten minutes of the last email send nothing new. Emails come from the organization's
 * sender, as its other emails do. A sign-up through a form that a full list turns away is told
 * to the form's owner by a `form.list_full` event, at most once an hour per form.
 */
export class SignUps extends Effect.Service<SignUps>()("roster/SignUps", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const forms = yield* FormRepository
    const signUps = yield* SignUpRepository
    const consents = yield* ConsentRepository
    const subscribers = yield* SubscriberRepository
    const tags = yield* TagRepository
    const assignments = yield* TagAssignments
    const organizations = yield* OrganizationRepository
    const templates = yield* TemplateRepository
    const engine = yield* TemplateEngine
    const unitOfWork = yield* UnitOfWork
    const outbox = yield* Outbox
    const signer = yield* TokenSigner
    const mailer = yield* Mailer
    const mail = yield* OutgoingMailConfig
    const emailSettings = yield* EmailSettingsRepository
    const sender = yield* makeSenderOf
    const keeping = yield* makeSignUpKeeping
    const limits = yield* Limits
    const limiter = yield* RateLimiter
    const ids = yield* Ids

    const event = (organizationId: OrganizationId, type: EventType, occurredAt: Date, data: Record<string, unknown>) =>
      Effect.map(ids.next, (id) => new DomainEvent({ id: EventId.make(id), organizationId, type, occurredAt, data }, true))

    const publicForm = (id: FormId) =>
      Effect.flatMap(forms.findPublic(id), Option.match({
        onNone: () => Effect.fail(new ResourceNotFound({ resource: "form", id })),
        onSome: Effect.succeed
      }))

    const newTokenId = keeping.newTokenId

    const organizationNameOf = (organizationId: OrganizationId) =>
      Effect.map(organizations.findById(organizationId), Option.match({ onNone: () => "", onSome: (o) => o.name }))

    /**
     * Tells the form's owner, by a `form.list_full` event, that a reader was turned away because
     * the plan holds no more subscribers: once an hour per form at most (the window is shared by
     * every process through the rate limiter's store), so that a crowd of readers, or a robot,
     * does not flood the owner's webhooks.
     */
    const noticeListFull = (form: Form) => (refusal: PlanLimitExceeded) =>
      Effect.gen(function*() {
        const first = yield* limiter.consume(`notice:form-list-full:${form.id}`, 1, LIST_FULL_NOTICE_INTERVAL_MS)
        if (!first.allowed) return
        const notice = yield* event(form.organizationId, "form.list_full", yield* now, {
          form: { id: form.id, name: form.name },
          tier: refusal.tier,
          max_subscribers: refusal.max
        })
        yield* unitOfWork.transaction(outbox.record([notice]))
      })

    /**
     * Within a transaction: the address becomes an active subscriber of the organization with the
     * form's tags (none without a form) and those the sign-up names, its consent kept (naming the
     * form, or the API key that asked); the events of what changed are recorded. A bounced or
     * complained address stays as it is.
     */
    const subscribe = (
      source: { readonly organizationId: OrganizationId; readonly form: Form | null; readonly apiKeyId: PendingSignUp["apiKeyId"] },
      person: SignUpPerson,
      agreedAt: Date,
      confirmedAt: Date | null,
      at: Date
    ) =>
      Effect.gen(function*() {
        const { form, organizationId } = source
        const existing = yield* subscribers.findByEmail(organizationId, person.email)
        if (Option.isSome(existing) && signUpCollision(existing.value.status) === "undeliverable") return
        const events: Array<DomainEvent> = []
        let subscriber: Subscriber
        if (Option.isNone(existing)) {
          subscriber = new Subscriber({
            id: SubscriberId.make(yield* ids.next),
            organizationId,
            email: person.email,
            status: "active",
            metadata: person.metadata,
            firstName: person.firstName,
            lastName: person.lastName,
            createdAt: at,
            updatedAt: at
          })
          // Two confirmations of one address at once: the second finds the first's subscriber next time.
          yield* subscribers.insert(subscriber).pipe(Effect.orDie)
          events.push(yield* event(organizationId, "subscriber.created", at, { subscriber: subscriberSnapshot(subscriber, []) }))
        } else if (existing.value.status === "unsubscribed") {
          subscriber = new Subscriber({ ...existing.value, status: "active", updatedAt: at })
          yield* subscribers.update(subscriber)
          events.push(yield* event(organizationId, "subscriber.updated", at, {
            subscriber: subscriberSnapshot(subscriber, []),
            changed: ["status"]
          }))
        } else {
          subscriber = existing.value
        }
        const wanted = Array.dedupe([...(form?.tagIds ?? []), ...person.tagIds])
        const joined = yield* tags.findByIds(organizationId, wanted)
        const attached = yield* attachWithinLimit(assignments, organizationId, subscriber.id, joined.map((t) => t.id), at, "tags")
          .pipe(Effect.orDie)
        for (const tag of joined.filter((t) => attached.includes(t.id))) {
          events.push(yield* event(organizationId, "tag.subscribed", at, tagSubscriptionData(subscriber, tag)))
        }
        if (confirmedAt !== null) {
          events.push(yield* event(organizationId, "subscriber.confirmed", at, {
            subscriber: { id: subscriber.id, email: subscriber.email },
            form: form === null ? null : { id: form.id, name: form.name },
            ...(source.apiKeyId === null ? {} : { api_key: { id: source.apiKeyId } })
          }))
        }
        yield* outbox.record(events)
        yield* consents.record(new Consent({
          id: ConsentId.make(yield* ids.next),
          organizationId,
          subscriberId: subscriber.id,
          formId: form?.id ?? null,
          apiKeyId: source.apiKeyId,
          text: person.consentText,
          clientAddress: person.clientAddress,
          userAgent: person.userAgent,
          agreedAt,
          confirmedAt
        }))
        if (Option.isNone(existing)) {
          // Last, so that the organization is held for as short a time as possible.
          const organization = yield* organizations.findById(organizationId)
          const tier = Option.match(organization, { onNone: () => "free" as const, onSome: (o) => o.tier })
          const max = limits.subscribers(tier)
          if (!(yield* organizations.reserveSubscriberSlots(organizationId, 1, max))) {
            return yield* new PlanLimitExceeded({ limit: "subscribers", tier, max: max ?? Number.POSITIVE_INFINITY })
          }
        }
      })

    /**
     * A reader's submission of a form. Without double opt-in the subscriber is made at once (a
     * full list is a `PlanLimitExceeded`); with it, a pending sign-up is kept and its email queued
     * (the confirmation, or for an active subscriber the note that they are subscribed already),
     * unless one went out in the last ten minutes. A robot's submission (hidden field filled, sent
     * back too soon) is answered the same and does nothing.
     */
    const submit = operation("SignUps.submit")(function*(formId: FormId, submission: SignUpSubmission, client: ClientInfo) {
      const form = yield* publicForm(formId)
      const at = yield* now
      const answer: SignUpAnswer = { form, outcome: form.doubleOptIn ? "confirm_by_email" : "subscribed" }
      if (looksAutomated(submission.honeypot, submission.shownAt, at)) return answer
      const person: SignUpPerson = {
        email: submission.email,
        firstName: submission.firstName ?? null,
        lastName: submission.lastName ?? null,
        consentText: form.consentText,
        clientAddress: client.address === undefined ? null : truncateClientAddress(client.address),
        userAgent: keptUserAgent(client.userAgent),
        tagIds: [],
        metadata: {}
      }
      const known = yield* subscribers.findByEmail(form.organizationId, submission.email)
      const collision = signUpCollision(Option.getOrUndefined(known)?.status)
      const source = { organizationId: form.organizationId, formId: form.id, apiKeyId: null }
      if (!form.doubleOptIn) {
        if (collision === "proceed") {
          yield* unitOfWork.transaction(subscribe({ ...source, form }, person, at, null, at)).pipe(
            Effect.tapErrorTag("PlanLimitExceeded", noticeListFull(form))
          )
        }
        return answer
      }
      if (collision === "undeliverable") return answer
      yield* keeping.keep(source, person, collision === "proceed" ? "confirmation" : "already_subscribed", client.locale, at, true)
      return answer
    })

    /** A form as readers reach it, without a page: what a script on another site may do with it. */
    const find = operation("SignUps.find")(function*(formId: FormId) {
      return yield* publicForm(formId)
    })

    /** The form for its hosted page, and the page's stamp of when it was shown. */
    const show = operation("SignUps.show")(function*(formId: FormId) {
      const form = yield* publicForm(formId)
      const at = yield* now
      // Token times are whole seconds: the token's id carries the milliseconds, under the signature too.
      const stamp = yield* signer.sign("formPage", {
        subject: form.id,
        id: `${at.getTime()}.${yield* newTokenId}`,
        issuedAt: at,
        expiresAt: expiresAt(at, FORM_PAGE_LIFETIME)
      })
      return { form, stamp } satisfies ShownForm
    })

    /**
     * When the page of `formId` that carried `stamp` was shown; `undefined` when the stamp is not
     * one of this form's pages (made up, of another form) or is older than a day.
     */
    const shownAt = operation("SignUps.shownAt")(function*(formId: FormId, stamp: string) {
      const claims = yield* Effect.option(signer.verify("formPage", stamp, yield* now))
      if (Option.isNone(claims) || claims.value.subject !== formId) return undefined
      const { id, issuedAt } = claims.value
      const millis = Number(id.slice(0, id.indexOf(".")))
      return Number.isSafeInteger(millis) && Math.floor(millis / 1000) * 1000 === issuedAt.getTime() ? new Date(millis) : issuedAt
    })

    /**
     * What a confirmation link names, checked: the sign-up, its form (`null` for one through the
     * API) and the name of what it signs up to. A sign-up of an address already subscribed has no
     * link to confirm.
     */
    const opened = (token: string, at: Date) =>
      Effect.gen(function*() {
        const claims = yield* signer.verify("signUp", token, at)
        const signUp = yield* Effect.flatMap(signUps.findById(SignUpId.make(claims.subject)), Option.match({
          onNone: () => Effect.fail(invalidLink),
          onSome: Effect.succeed
        }))
        if (signUp.tokenId !== claims.id || signUp.kind !== "confirmation") return yield* invalidLink
        if (signUp.formId === null) return { signUp, form: null, name: yield* organizationNameOf(signUp.organizationId) }
        const form = yield* Effect.flatMap(forms.findPublic(signUp.formId), Option.match({
          onNone: () => Effect.fail(invalidLink),
          onSome: Effect.succeed
        }))
        return { signUp, form, name: form.name }
      })

    /** What a confirmation link is for, to show its page: opening the link changes nothing. */
    const inspect = operation("SignUps.inspect")(function*(token: string) {
      const { form, name, signUp } = yield* opened(token, yield* now)
      return { form, name, confirmed: signUp.confirmedAt !== null, locale: signUp.locale }
    })

    /**
     * Confirms the sign-up a link names: the subscriber is created or made active again with the
     * form's tags, `subscriber.confirmed` is recorded with the other events, and the consent kept
     * with its confirmation time. A second use of the link changes nothing. A full list is a
     * `PlanLimitExceeded`, and the sign-up stays waiting.
     */
    const confirm = operation("SignUps.confirm")(function*(token: string) {
      const at = yield* now
      const { form, name, signUp } = yield* opened(token, at)
      if (signUp.confirmedAt !== null) return { form, name, outcome: "already_confirmed" } satisfies Confirmation
      return yield* unitOfWork.transaction(Effect.gen(function*() {
        const confirmed = yield* signUps.confirm(signUp.id, signUp.tokenId, at)
        if (Option.isNone(confirmed)) return yield* invalidLink
        const source = { organizationId: signUp.organizationId, form, apiKeyId: confirmed.value.apiKeyId }
        yield* subscribe(source, confirmed.value, confirmed.value.createdAt, at, at)
        return { form, name, outcome: "subscribed" } satisfies Confirmation
      })).pipe(Effect.tapErrorTag("PlanLimitExceeded", (refusal) => form === null ? Effect.void : noticeListFull(form)(refusal)))
    })

    /** The confirmation email of a sign-up: the form's template, else the service's own. */
    const confirmationMail = (signUp: PendingSignUp, form: Form | null, organizationName: string) =>
      Effect.gen(function*() {
        const token = yield* signer.sign("signUp", {
          subject: signUp.id,
          id: signUp.tokenId,
          organizationId: signUp.organizationId,
          issuedAt: signUp.createdAt,
          expiresAt: signUp.expiresAt
        })
        const confirmUrl = confirmationUrl(mail.publicBaseUrl, token, signUp.locale)
        const custom = form === null || form.confirmationTemplateId === null
          ? Option.none()
          : yield* templates.findById(signUp.organizationId, form.confirmationTemplateId)
        if (Option.isNone(custom)) {
          return { ...defaultConfirmationMail(signUp.locale, { organizationName, formName: form?.name ?? null, confirmUrl }), html: null }
        }
        return yield* engine.render(custom.value, templateScope({
          subscriber: {
            email: signUp.email,
            first_name: signUp.firstName,
            last_name: signUp.lastName,
            // What the reader will be once they confirm.
            status: "active",
            metadata: signUp.metadata,
            tags: []
          },
          organizationName,
          unsubscribeUrl: "",
          preferencesUrl: "",
          data: { confirm_url: confirmUrl, form_name: form?.name ?? organizationName }
        }))
      })

    /**
     * The email to an address subscribed already, with its preference link; none when it is no
     * longer an active subscriber (it unsubscribed, bounced or went meanwhile).
     */
    const alreadySubscribed = (signUp: PendingSignUp, form: Form | null, organizationName: string, at: Date) =>
      Effect.gen(function*() {
        const subscriber = yield* subscribers.findByEmail(signUp.organizationId, signUp.email)
        if (Option.isNone(subscriber) || subscriber.value.status !== "active") return Option.none()
        const access = yield* subscribers.preferenceAccess(signUp.organizationId, subscriber.value.id)
        const link = yield* signPreferenceToken(signer, {
          tokenId: yield* ids.next,
          organizationId: signUp.organizationId,
          subscriberId: subscriber.value.id,
          version: Option.match(access, { onNone: () => 0, onSome: (a) => a.tokenVersion }),
          issuedAt: at
        })
        return Option.some({
          // The address as the subscriber has it, whatever its letter case in the sign-up.
          to: subscriber.value.email,
          ...alreadySubscribedMail(signUp.locale, {
            organizationName,
            formName: form?.name ?? null,
            preferencesUrl: preferencesUrl(mail.publicBaseUrl, link.token)
          }),
          html: null
        })
      })

    /**
     * The worker's part: sends up to `limit` emails of sign-ups that are due, each once (a failed
     * one is logged; the reader can sign up again after ten minutes): the confirmation, or the
     * note to an address subscribed already. They come from the organization's sender. How many
     * were taken.
     */
    const sendDueConfirmations = operation("SignUps.sendDueConfirmations")(function*(limit: number) {
      const at = yield* now
      const due = yield* signUps.takeDueMail(at, limit)
      yield* Effect.forEach(due, (signUp) =>
        Effect.gen(function*() {
          const form = signUp.formId === null ? Option.some(null) : yield* forms.findPublic(signUp.formId)
          if (Option.isNone(form)) return
          const [organization, settings] = yield* Effect.all([
            organizations.findById(signUp.organizationId),
            emailSettings.find(signUp.organizationId)
          ], { concurrency: 2 })
          if (Option.isNone(organization)) return
          const organizationName = organization.value.name
          const content = signUp.kind === "already_subscribed"
            ? yield* alreadySubscribed(signUp, form.value, organizationName, at)
            : Option.some({ to: signUp.email, ...yield* confirmationMail(signUp, form.value, organizationName) })
          if (Option.isNone(content)) return
          const { html, subject, text, to } = content.value
          yield* mailer.send({
            to,
            from: yield* sender.senderOf(organization.value, settings, organizationName),
            subject,
            ...(html === null ? {} : { html }),
            ...(text === null ? {} : { text }),
            idempotencyKey: `sign-up/${signUp.id}/${at.getTime()}`
          })
        }).pipe(Effect.catchAll((error) => Effect.logWarning("a sign-up email was not sent", error))))
      return due.length
    })

    /** Clears away up to `limit` sign-ups past their week; how many. */
    const clearExpired = operation("SignUps.clearExpired")(function*(limit: number) {
      return yield* signUps.deleteExpired(yield* now, limit)
    })

    return { find, show, shownAt, submit, inspect, confirm, sendDueConfirmations, clearExpired } as const
  })
}) {}
