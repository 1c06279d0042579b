/**
 * Sign-ups through forms: double opt-in with its confirmation email sent by the worker's part, the
 * collision rule, the mail interval, the seven-day expiry, robots, and the subscriber and consent
 * a confirmation makes.
 */
import {
  ConsentRepository,
  EmailSettingsRepository,
  Forms,
  Ids,
  ApiKeys,
  Organizations,
  OutgoingMailConfig,
  type Principal,
  SignUps,
  SubscriberRepository,
  Subscribers,
  TagAssignments,
  Tags
} from "@roster/application"
import { EmailAddress, EmailSettings, type FormId, type PlanTier, Slug } from "@roster/domain"
import { expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Ref, TestClock } from "effect"
import { InProcessRateLimiterLive, makeConsoleMailer, MemoryPersistenceLive } from "../../adapters/in-process/index.js"
import { makeJoseTokenSigner } from "../../adapters/jose/index.js"
import { LiquidTemplateEngineLive } from "../../adapters/liquid/index.js"
import { CryptoLive } from "../../adapters/node/index.js"
import { keyFor, recordedTypes } from "./test-kit.js"

const Sent = Effect.runSync(Ref.make<ReadonlyArray<string>>([]))

const signingUp = Layer.mergeAll(
  SignUps.Default,
  Forms.Default,
  Organizations.Default,
  Subscribers.Default,
  Tags.Default,
  ApiKeys.Default
).pipe(
  Layer.provideMerge(Layer.mergeAll(
    MemoryPersistenceLive,
    InProcessRateLimiterLive,
    CryptoLive,
    makeJoseTokenSigner(new Uint8Array(32).fill(9)),
    LiquidTemplateEngineLive,
    makeConsoleMailer((text) => Ref.update(Sent, (all) => [...all, text])),
    Layer.succeed(OutgoingMailConfig, { defaultFrom: "x@example.com", publicBaseUrl: "http://roster.test", unsubscribeMailto: null })
  ))
)

const email = (address: string) => EmailAddress.make(address)
const client = { address: "203.0.113.77", userAgent: "Test/1.0", locale: "en" as const }

/** An organization with an owner's principal and a form of `fields`. */
const givenForm = (fields: { readonly doubleOptIn?: boolean; readonly tier?: PlanTier } = {}) =>
  Effect.gen(function*() {
    const ids = yield* Ids
    const organization = yield* (yield* Organizations).create({
      name: "Acme",
      slug: Slug.make(`acme-${yield* ids.next}`),
      tier: fields.tier
    })
    const owner: Principal = yield* keyFor(organization.id, ["*"])
    const tag = yield* (yield* Tags).create(owner, { name: "Weekly" })
    const view = yield* (yield* Forms).create(owner, {
      name: "Newsletter",
      tagIds: [tag.id],
      consentText: "Send me the weekly letter.",
      doubleOptIn: fields.doubleOptIn
    })
    return { owner, organization, form: view.form, tag }
  })

/** The emails sent since the test began, and the confirmation token of the last. */
const sentMail = Effect.gen(function*() {
  const all = yield* Ref.get(Sent)
  return all
})
const tokenOf = (text: string) => decodeURIComponent(/f\/confirm\?token=([^\s&"]+)/.exec(text)![1]!)

const sendDue = Effect.flatMap(SignUps, (s) => s.sendDueConfirmations(100))

const mailTo = (address: string) => Effect.map(sentMail, (all) => all.filter((m) => m.includes(address)))

it.effect("with double opt-in, a sign-up waits for its confirmation, which subscribes the reader with the form's tags, its events and consent", () =>
  Effect.gen(function*() {
    const { form, organization, tag } = yield* givenForm()
    const signUps = yield* SignUps
    const address = "ada-confirm@example.com"
    yield* TestClock.adjust("1 hour")
    const answer = yield* signUps.submit(form.id, { email: email(address) }, client)
    expect(answer.outcome).toBe("confirm_by_email")
    const subscribers = yield* SubscriberRepository
    expect(Option.isNone(yield* subscribers.findByEmail(organization.id, address))).toBe(true)

    expect(yield* sendDue).toBe(1)
    const [mail] = yield* mailTo(address)
    expect(mail).toContain("Please confirm your subscription to Acme")
    const token = tokenOf(mail!)
    const inspected = yield* signUps.inspect(token)
    expect(inspected.confirmed).toBe(false)
    expect(Option.isNone(yield* subscribers.findByEmail(organization.id, address))).toBe(true)

    expect((yield* signUps.confirm(token)).outcome).toBe("subscribed")
    const subscriber = Option.getOrThrow(yield* subscribers.findByEmail(organization.id, address))
    expect(subscriber.status).toBe("active")
    const tags = (yield* (yield* TagAssignments).tagsOf(organization.id, [subscriber.id])).get(subscriber.id) ?? []
    expect(tags.map((t) => t.tag.id)).toEqual([tag.id])
    expect(yield* recordedTypes(organization.id)).toEqual(["subscriber.created", "tag.subscribed", "subscriber.confirmed"])
    const [consent] = yield* (yield* ConsentRepository).listFor(organization.id, subscriber.id)
    expect(consent).toMatchObject({
      formId: form.id,
      text: "Send me the weekly letter.",
      clientAddress: "203.0.113.0",
      userAgent: "Test/1.0"
    })
    expect(consent!.confirmedAt).not.toBeNull()
    expect((yield* signUps.confirm(token)).outcome).toBe("already_confirmed")
  }).pipe(Effect.provide(signingUp)))

it.effect("sends one email per address and form in ten minutes, and another after", () =>
  Effect.gen(function*() {
    const { form } = yield* givenForm()
    const signUps = yield* SignUps
    const address = "ada-throttle@example.com"
    yield* TestClock.adjust("1 hour")
    yield* signUps.submit(form.id, { email: email(address) }, client)
    yield* signUps.submit(form.id, { email: email(address.toUpperCase()) }, client)
    yield* sendDue
    yield* signUps.submit(form.id, { email: email(address) }, client)
    yield* TestClock.adjust("9 minutes")
    yield* signUps.submit(form.id, { email: email(address) }, client)
    yield* sendDue
    expect(yield* mailTo(address)).toHaveLength(1)
    yield* TestClock.adjust("1 minute")
    yield* signUps.submit(form.id, { email: email(address) }, client)
    yield* sendDue
    const mails = yield* mailTo(address)
    expect(mails).toHaveLength(2)
    // Both links name the same sign-up, and either confirms it.
    expect((yield* signUps.confirm(tokenOf(mails[0]!))).outcome).toBe("subscribed")
  }).pipe(Effect.provide(signingUp)))

it.effect("a confirmation link is good for seven days; a sign-up after that starts over with a new link", () =>
  Effect.gen(function*() {
    const { form } = yield* givenForm()
    const signUps = yield* SignUps
    const address = "ada-expiry@example.com"
    yield* TestClock.adjust("1 hour")
    yield* signUps.submit(form.id, { email: email(address) }, client)
    yield* sendDue
    const old = tokenOf((yield* mailTo(address))[0]!)
    yield* TestClock.adjust("7 days")
    expect(Exit.isFailure(yield* Effect.exit(signUps.confirm(old)))).toBe(true)
    yield* signUps.submit(form.id, { email: email(address) }, client)
    yield* sendDue
    const fresh = tokenOf((yield* mailTo(address))[1]!)
    const refused = yield* Effect.flip(signUps.confirm(old))
    expect(refused._tag).toBe("InvalidToken")
    expect((yield* signUps.confirm(fresh)).outcome).toBe("subscribed")
    expect(Exit.isFailure(yield* Effect.exit(signUps.confirm("not-a-token")))).toBe(true)
  }).pipe(Effect.provide(signingUp)))

it.effect("an active address is answered the same and told it is subscribed; a bounced or complained one is sent nothing; an unsubscribed one becomes active again", () =>
  Effect.gen(function*() {
    const { form, organization, owner } = yield* givenForm()
    const signUps = yield* SignUps
    const subscribersUseCase = yield* Subscribers
    const repository = yield* SubscriberRepository
    yield* TestClock.adjust("1 hour")
    for (const status of ["active", "bounced", "complained"] as const) {
      const address = `known-${status}@example.com`
      const made = yield* subscribersUseCase.create(owner, { email: email(address) })
      if (status !== "active") {
        yield* repository.update({ ...made.subscriber, status } as typeof made.subscriber)
      }
      expect((yield* signUps.submit(form.id, { email: email(address) }, client)).outcome).toBe("confirm_by_email")
    }
    yield* sendDue
    const told = (yield* sentMail).filter((m) => m.includes("known-"))
    expect(told).toHaveLength(1)
    expect(told[0]).toContain("To: known-active@example.com")
    expect(told[0]).toContain("Subject: You are already subscribed to Acme")
    expect(told[0]).toContain("http://roster.test/preference-center?token=")
    expect(told[0]).not.toContain("/f/confirm")
    expect(Option.isSome(yield* repository.findByEmail(organization.id, "known-active@example.com"))).toBe(true)

    const address = "came-back@example.com"
    const gone = yield* subscribersUseCase.create(owner, { email: email(address) })
    yield* subscribersUseCase.update(owner, gone.subscriber.id, { status: "unsubscribed" })
    yield* signUps.submit(form.id, { email: email(address) }, client)
    yield* sendDue
    yield* signUps.confirm(tokenOf((yield* mailTo(address))[0]!))
    const back = Option.getOrThrow(yield* repository.findByEmail(organization.id, address))
    expect(back.id).toBe(gone.subscriber.id)
    expect(back.status).toBe("active")
  }).pipe(Effect.provide(signingUp)))

it.effect("without double opt-in the subscriber is made at once; a robot's submission does nothing", () =>
  Effect.gen(function*() {
    const { form, organization } = yield* givenForm({ doubleOptIn: false })
    const signUps = yield* SignUps
    const repository = yield* SubscriberRepository
    yield* TestClock.adjust("1 hour")
    expect((yield* signUps.submit(form.id, { email: email("at-once@example.com") }, client)).outcome).toBe("subscribed")
    expect(Option.isSome(yield* repository.findByEmail(organization.id, "at-once@example.com"))).toBe(true)

    yield* signUps.submit(form.id, { email: email("bot-1@example.com"), honeypot: "http://spam" }, client)
    const shownAt = new Date(yield* TestClock.currentTimeMillis)
    yield* signUps.submit(form.id, { email: email("bot-2@example.com"), shownAt }, client)
    expect(Option.isNone(yield* repository.findByEmail(organization.id, "bot-1@example.com"))).toBe(true)
    expect(Option.isNone(yield* repository.findByEmail(organization.id, "bot-2@example.com"))).toBe(true)
    const unknown = yield* Effect.flip(signUps.submit("0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10" as FormId, { email: email("x@example.com") }, client))
    expect(unknown._tag).toBe("ResourceNotFound")
  }).pipe(Effect.provide(signingUp)))

it.effect("an active subscriber is told at most once per address and form in ten minutes, in their language, and not once they have gone", () =>
  Effect.gen(function*() {
    const { form, owner } = yield* givenForm()
    const other = (yield* givenForm()).form
    const signUps = yield* SignUps
    const subscribersUseCase = yield* Subscribers
    const address = "told-once@example.com"
    const made = yield* subscribersUseCase.create(owner, { email: email(address) })
    yield* TestClock.adjust("1 hour")
    yield* signUps.submit(form.id, { email: email(address) }, { ...client, locale: "de" })
    yield* sendDue
    yield* signUps.submit(form.id, { email: email(address.toUpperCase()) }, client)
    yield* TestClock.adjust("9 minutes")
    yield* signUps.submit(form.id, { email: email(address) }, client)
    yield* sendDue
    const first = yield* mailTo(address)
    expect(first).toHaveLength(1)
    expect(first[0]).toContain("Subject: Sie sind bereits bei Acme angemeldet")
    expect(first[0]).toContain("„Newsletter“")

    // Another form of another organization is another source: the address is not theirs.
    yield* signUps.submit(other.id, { email: email(address) }, client)
    yield* sendDue
    expect((yield* mailTo(address)).filter((m) => m.includes("To: told-once"))).toHaveLength(2)

    yield* TestClock.adjust("1 minute")
    yield* signUps.submit(form.id, { email: email(address) }, client)
    // Gone before the worker came round: nothing is sent.
    yield* subscribersUseCase.update(owner, made.subscriber.id, { status: "unsubscribed" })
    yield* sendDue
    expect(yield* mailTo(address)).toHaveLength(2)
  }).pipe(Effect.provide(signingUp)))

it.effect("confirmation emails come from the organization's sender settings", () =>
  Effect.gen(function*() {
    const { form, organization } = yield* givenForm()
    const signUps = yield* SignUps
    yield* (yield* EmailSettingsRepository).save(new EmailSettings({
      organizationId: organization.id,
      fromName: "Acme Letters",
      fromAddress: null,
      updatedAt: new Date(0)
    }))
    yield* TestClock.adjust("1 hour")
    yield* signUps.submit(form.id, { email: email("sender@example.com") }, client)
    yield* sendDue
    const [mail] = yield* mailTo("sender@example.com")
    expect(mail).toContain('From: "Acme Letters" <x@example.com>')
  }).pipe(Effect.provide(signingUp)))

it.effect("through the API with double opt-in, the address confirms first and becomes a subscriber with the tags, metadata, names and consent given", () =>
  Effect.gen(function*() {
    const { organization, tag } = yield* givenForm()
    const ids = yield* Ids
    const apiKeys = yield* ApiKeys
    const { apiKey, key } = yield* apiKeys.create({ organizationId: organization.id, name: "site", scopes: ["*"], environment: "live" })
    const caller = yield* Effect.orDie(apiKeys.authenticate(key))
    const subscribersUseCase = yield* Subscribers
    const signUps = yield* SignUps
    const repository = yield* SubscriberRepository
    const address = `api-${yield* ids.next}@example.com`
    yield* TestClock.adjust("1 hour")
    const answer = yield* subscribersUseCase.requestConfirmation(caller, {
      email: email(address),
      tagIds: [tag.id],
      metadata: { plan: "pro" },
      firstName: "Grace",
      consent: { text: "Yes to the weekly letter.", clientAddress: "2001:db8:1:2::7", userAgent: "Browser/2" }
    })
    expect(answer).toStrictEqual({ email: address })
    expect(Option.isNone(yield* repository.findByEmail(organization.id, address))).toBe(true)
    // Asked again at once: one sign-up, one email.
    yield* subscribersUseCase.requestConfirmation(caller, { email: email(address) })
    expect(yield* sendDue).toBe(1)
    const [mail] = yield* mailTo(address)
    expect(mail).toContain("Please confirm your subscription to Acme")
    expect(mail).toContain("You (or someone using your address) signed up at Acme.")
    const token = tokenOf(mail!)
    expect(yield* signUps.inspect(token)).toMatchObject({ form: null, name: "Acme", confirmed: false })

    expect(yield* signUps.confirm(token)).toMatchObject({ form: null, name: "Acme", outcome: "subscribed" })
    const subscriber = Option.getOrThrow(yield* repository.findByEmail(organization.id, address))
    expect(subscriber).toMatchObject({ status: "active", metadata: { plan: "pro" }, firstName: "Grace" })
    const tags = (yield* (yield* TagAssignments).tagsOf(organization.id, [subscriber.id])).get(subscriber.id) ?? []
    expect(tags.map((t) => t.tag.id)).toEqual([tag.id])
    const [consent] = yield* subscribersUseCase.consents(caller, subscriber.id)
    expect(consent!.form).toBeNull()
    expect(consent!.consent).toMatchObject({
      formId: null,
      apiKeyId: apiKey.id,
      text: "Yes to the weekly letter.",
      clientAddress: "2001:db8:1::",
      userAgent: "Browser/2"
    })
    expect(consent!.consent.confirmedAt).not.toBeNull()

    // Asked again once subscribed: the same answer, no second record, and the note after ten minutes.
    yield* TestClock.adjust("10 minutes")
    expect(yield* subscribersUseCase.requestConfirmation(caller, { email: email(address.toUpperCase()) })).toStrictEqual({
      email: address.toUpperCase()
    })
    yield* sendDue
    const mails = yield* mailTo(address)
    expect(mails).toHaveLength(2)
    expect(mails[1]).toContain("Subject: You are already subscribed to Acme")
    expect(yield* subscribersUseCase.consents(caller, subscriber.id)).toHaveLength(1)
  }).pipe(Effect.provide(signingUp)))

it.effect("a test key's double opt-in keeps the sign-up but sends nothing; bounced addresses are answered the same", () =>
  Effect.gen(function*() {
    const { organization, owner } = yield* givenForm()
    const subscribersUseCase = yield* Subscribers
    const repository = yield* SubscriberRepository
    yield* TestClock.adjust("1 hour")
    expect(yield* subscribersUseCase.requestConfirmation(owner, { email: email("sandboxed@example.com") })).toStrictEqual({
      email: "sandboxed@example.com"
    })
    const bounced = yield* subscribersUseCase.create(owner, { email: email("bounced-api@example.com") })
    yield* repository.update({ ...bounced.subscriber, status: "bounced" } as typeof bounced.subscriber)
    expect(yield* subscribersUseCase.requestConfirmation(owner, { email: email("bounced-api@example.com") })).toStrictEqual({
      email: "bounced-api@example.com"
    })
    expect(yield* sendDue).toBe(0)
    expect(yield* mailTo("sandboxed@example.com")).toHaveLength(0)
    expect(Option.isNone(yield* repository.findByEmail(organization.id, "sandboxed@example.com"))).toBe(true)
    const refused = yield* Effect.flip(subscribersUseCase.requestConfirmation(owner, {
      email: email("tagged@example.com"),
      tagIds: ["0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10" as never]
    }))
    expect(refused).toMatchObject({ _tag: "InvalidInput", field: "tags[0]" })
  }).pipe(Effect.provide(signingUp)))

it.effect("a consent given with a subscriber made at once is kept naming the API key; none is kept when none is given", () =>
  Effect.gen(function*() {
    const { owner } = yield* givenForm()
    const subscribersUseCase = yield* Subscribers
    const made = yield* subscribersUseCase.create(owner, {
      email: email("consented@example.com"),
      consent: { text: "Agreed on the phone.", clientAddress: "198.51.100.23" }
    })
    const [kept] = yield* subscribersUseCase.consents(owner, made.subscriber.id)
    expect(kept!.consent).toMatchObject({
      apiKeyId: owner.credential.kind === "api_key" ? owner.credential.id : null,
      formId: null,
      text: "Agreed on the phone.",
      clientAddress: "198.51.100.0",
      userAgent: null,
      confirmedAt: null
    })
    const plain = yield* subscribersUseCase.create(owner, { email: email("plain@example.com") })
    expect(yield* subscribersUseCase.consents(owner, plain.subscriber.id)).toEqual([])
    const stranger = yield* givenForm()
    expect(yield* Effect.flip(subscribersUseCase.consents(stranger.owner, made.subscriber.id))).toMatchObject({ _tag: "ResourceNotFound" })
  }).pipe(Effect.provide(signingUp)))
