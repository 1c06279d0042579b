import { assert, expect, layer } from "@effect/vitest"
import { ConsentRepository, FormRepository, SignUpRepository, SubscriberRepository } from "@roster/application"
import { ApiKeyId, Consent, ConsentId, Form, FormId, type OrganizationId, PendingSignUp, SignUpId, TagId } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { deletingAfterwards, email, givenOrganization, givenSubscriber, instant, type PersistenceLayer } from "./fixtures.js"

const givenForm = (organizationId: OrganizationId) =>
  Effect.gen(function*() {
    const form = new Form({
      id: FormId.make(randomUUID()),
      organizationId,
      name: "Newsletter",
      tagIds: [],
      doubleOptIn: true,
      consentText: "Yes, please.",
      successUrl: null,
      confirmedUrl: null,
      allowedOrigins: [],
      confirmationTemplateId: null,
      createdAt: instant(0),
      updatedAt: instant(0)
    })
    yield* (yield* FormRepository).insert(form)
    return form
  })

/** A sign-up through `source`: a form, or the API of its organization (`id: null`). */
const aSignUp = (
  form: { readonly id: FormId | null; readonly organizationId: OrganizationId; readonly consentText: string | null },
  address: string, at: Date, fields: Partial<PendingSignUp> = {}) =>
  new PendingSignUp({
    id: SignUpId.make(randomUUID()),
    organizationId: form.organizationId,
    formId: form.id,
    apiKeyId: null,
    kind: "confirmation",
    tagIds: [],
    metadata: {},
    email: email(address),
    firstName: null,
    lastName: null,
    locale: "en",
    tokenId: randomUUID(),
    consentText: form.consentText,
    clientAddress: "203.0.113.0",
    userAgent: "Test/1.0",
    createdAt: at,
    expiresAt: new Date(at.getTime() + 7 * 86_400_000),
    mailDueAt: at,
    lastMailAt: null,
    confirmedAt: null,
    ...fields
  })

export const signUpRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("SignUpRepository and ConsentRepository", (it) => {
    it.effect("keeps one unconfirmed sign-up per form and address in any letter case, confirms it once with its token", () =>
      Effect.gen(function*() {
        const signUps = yield* SignUpRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const form = yield* givenForm(organization.id)
          const first = aSignUp(form, "Ada@example.com", instant(1))
          assert.isTrue(yield* signUps.insert(first))
          assert.isFalse(yield* signUps.insert(aSignUp(form, "ada@EXAMPLE.com", instant(2))))
          expect(yield* signUps.findUnconfirmed(organization.id, form.id, email("ada@example.com"))).toStrictEqual(Option.some(first))
          expect(yield* signUps.findById(first.id)).toStrictEqual(Option.some(first))

          assert.isTrue(Option.isNone(yield* signUps.confirm(first.id, "another token", instant(3))))
          assert.isTrue(Option.isNone(yield* signUps.confirm(first.id, first.tokenId, first.expiresAt)))
          const confirmed = yield* signUps.confirm(first.id, first.tokenId, instant(3))
          expect(Option.map(confirmed, (s) => s.confirmedAt)).toStrictEqual(Option.some(instant(3)))
          assert.isTrue(Option.isNone(yield* signUps.confirm(first.id, first.tokenId, instant(4))))
          // Once confirmed, the address may sign up through the form again.
          assert.isTrue(Option.isNone(yield* signUps.findUnconfirmed(organization.id, form.id, email("ada@example.com"))))
          assert.isTrue(yield* signUps.insert(aSignUp(form, "ada@example.com", instant(5))))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("keeps one unconfirmed sign-up through the API per organization and address, beside those of forms, with its key, kind, tags and metadata", () =>
      Effect.gen(function*() {
        const signUps = yield* SignUpRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const form = yield* givenForm(organization.id)
          const api = { id: null, organizationId: organization.id, consentText: "By the API." }
          const tag = TagId.make(randomUUID())
          const first = aSignUp(api, "Grace@example.com", instant(1), {
            apiKeyId: ApiKeyId.make(randomUUID()),
            tagIds: [tag],
            metadata: { plan: "pro", seats: 3 }
          })
          assert.isTrue(yield* signUps.insert(first))
          assert.isFalse(yield* signUps.insert(aSignUp(api, "grace@EXAMPLE.com", instant(2))))
          // The form's sign-ups, and another organization's through its API, are others.
          assert.isTrue(yield* signUps.insert(aSignUp(form, "grace@example.com", instant(2))))
          assert.isTrue(yield* signUps.insert(aSignUp({ ...api, organizationId: other.id }, "grace@example.com", instant(2))))
          expect(yield* signUps.findUnconfirmed(organization.id, null, email("GRACE@example.com"))).toStrictEqual(Option.some(first))
          expect((yield* signUps.findUnconfirmed(organization.id, form.id, email("grace@example.com"))).pipe(Option.map((s) => s.formId)))
            .toStrictEqual(Option.some(form.id))
          assert.isTrue(Option.isNone(yield* signUps.findUnconfirmed(organization.id, null, email("ada@example.com"))))

          const told = new PendingSignUp({ ...first, kind: "already_subscribed", tagIds: [], metadata: {}, lastMailAt: instant(3) })
          yield* signUps.update(told)
          expect(yield* signUps.findById(first.id)).toStrictEqual(Option.some(told))
          const confirmed = yield* signUps.confirm(first.id, first.tokenId, instant(4))
          expect(Option.map(confirmed, (s) => [s.formId, s.apiKeyId, s.confirmedAt])).toStrictEqual(Option.some([null, first.apiKeyId, instant(4)]))
          assert.isTrue(yield* signUps.insert(aSignUp(api, "grace@example.com", instant(5))))
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("hands each due confirmation email out once, and clears sign-ups past their week", () =>
      Effect.gen(function*() {
        const signUps = yield* SignUpRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const form = yield* givenForm(organization.id)
          const due = aSignUp(form, `due-${randomUUID()}@example.com`, instant(1))
          const later = aSignUp(form, `later-${randomUUID()}@example.com`, instant(1), { mailDueAt: instant(100) })
          yield* signUps.insert(due)
          yield* signUps.insert(later)
          const taken = (yield* signUps.takeDueMail(instant(10), 1000)).filter((s) => s.formId === form.id)
          expect(taken.map((s) => s.id)).toEqual([due.id])
          expect(taken[0]).toMatchObject({ mailDueAt: null, lastMailAt: instant(10) })
          expect((yield* signUps.takeDueMail(instant(10), 1000)).filter((s) => s.formId === form.id)).toEqual([])
          yield* signUps.update(new PendingSignUp({ ...later, mailDueAt: instant(5) }))
          expect((yield* signUps.takeDueMail(instant(10), 1000)).filter((s) => s.formId === form.id).map((s) => s.id))
            .toEqual([later.id])

          yield* signUps.deleteExpired(new Date(instant(1).getTime() + 7 * 86_400_000), 1000)
          assert.isTrue(Option.isNone(yield* signUps.findById(due.id)))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("counts each form's sign-ups waiting for confirmation and the subscribers who joined through it", () =>
      Effect.gen(function*() {
        const signUps = yield* SignUpRepository
        const consents = yield* ConsentRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const form = yield* givenForm(organization.id)
          const quiet = yield* givenForm(organization.id)
          const foreign = yield* givenForm(other.id)
          const now = instant(10)
          // Waiting: two; confirmed, expired, told they are subscribed already and through the API: not.
          yield* signUps.insert(aSignUp(form, "a@example.com", instant(1)))
          yield* signUps.insert(aSignUp(form, "b@example.com", instant(2)))
          const confirmed = aSignUp(form, "c@example.com", instant(3))
          yield* signUps.insert(confirmed)
          yield* signUps.confirm(confirmed.id, confirmed.tokenId, instant(4))
          yield* signUps.insert(aSignUp(form, "d@example.com", instant(1), { expiresAt: instant(10) }))
          yield* signUps.insert(aSignUp(form, "e@example.com", instant(1), { kind: "already_subscribed" }))
          yield* signUps.insert(aSignUp({ id: null, organizationId: organization.id, consentText: null }, "f@example.com", instant(1)))
          yield* signUps.insert(aSignUp(foreign, "a@example.com", instant(1)))
          // Joined: two subscribers, one of them twice; another form's consent and one by the API are not this form's.
          const ada = yield* givenSubscriber(organization.id)
          const grace = yield* givenSubscriber(organization.id)
          const consent = (subscriberId: typeof ada.id, formId: FormId | null) =>
            new Consent({
              id: ConsentId.make(randomUUID()),
              organizationId: organization.id,
              subscriberId,
              formId,
              apiKeyId: null,
              text: null,
              clientAddress: null,
              userAgent: null,
              agreedAt: instant(5),
              confirmedAt: instant(6)
            })
          yield* consents.record(consent(ada.id, form.id))
          yield* consents.record(consent(ada.id, form.id))
          yield* consents.record(consent(grace.id, form.id))
          yield* consents.record(consent(grace.id, null))
          const counts = yield* signUps.countsByForm(organization.id, [form.id, quiet.id, foreign.id], now)
          expect(counts.get(form.id)).toStrictEqual({ pending: 2, confirmed: 2 })
          expect(counts.get(quiet.id)).toStrictEqual({ pending: 0, confirmed: 0 })
          // Another organization's form counts nothing here.
          expect(counts.get(foreign.id)).toStrictEqual({ pending: 0, confirmed: 0 })
          expect((yield* signUps.countsByForm(other.id, [foreign.id], now)).get(foreign.id)).toStrictEqual({ pending: 1, confirmed: 0 })
          // Later, the waiting ones have expired.
          const aWeekOn = new Date(instant(2).getTime() + 7 * 86_400_000)
          expect((yield* signUps.countsByForm(organization.id, [form.id], aWeekOn)).get(form.id)).toStrictEqual({ pending: 0, confirmed: 2 })
          expect((yield* signUps.countsByForm(organization.id, [], now)).size).toBe(0)
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("keeps consents oldest first, for their organization alone; they stay when their form is deleted and go with their subscriber", () =>
      Effect.gen(function*() {
        const consents = yield* ConsentRepository
        const organization = yield* givenOrganization()
        const stranger = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const form = yield* givenForm(organization.id)
          const subscriber = yield* givenSubscriber(organization.id)
          const consent = (at: Date, formId: FormId | null) =>
            new Consent({
              id: ConsentId.make(randomUUID()),
              organizationId: organization.id,
              subscriberId: subscriber.id,
              formId,
              apiKeyId: null,
              text: "Yes, please.",
              clientAddress: "2001:db8:1::",
              userAgent: null,
              agreedAt: at,
              confirmedAt: null
            })
          const late = consent(instant(9), form.id)
          const early = consent(instant(1), null)
          yield* consents.record(late)
          yield* consents.record(early)
          expect(yield* consents.listFor(organization.id, subscriber.id)).toStrictEqual([early, late])
          yield* (yield* FormRepository).delete(organization.id, form.id)
          expect((yield* consents.listFor(organization.id, subscriber.id)).map((c) => c.formId)).toEqual([null, null])
          const byKey = new Consent({ ...consent(instant(5), null), apiKeyId: ApiKeyId.make(randomUUID()), confirmedAt: instant(6) })
          yield* consents.record(byKey)
          expect(yield* consents.listFor(organization.id, subscriber.id)).toStrictEqual([early, byKey, new Consent({ ...late, formId: null })])
          // Another organization asking for the subscriber's consents finds none.
          expect(yield* consents.listFor(form.organizationId === organization.id ? stranger.id : organization.id, subscriber.id))
            .toEqual([])
          yield* (yield* SubscriberRepository).delete(organization.id, subscriber.id)
          expect(yield* consents.listFor(organization.id, subscriber.id)).toEqual([])
        }).pipe(deletingAfterwards([organization.id, stranger.id]))
      }))
  })
