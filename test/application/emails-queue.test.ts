/**
 * An email queued under an id of the caller's: made again (a worker's trigger firing taken over
 * after a crash), it is stored and counted once.
 */
import { EmailUsage, Emails, Ids, MessageRepository, Organizations, OutgoingMailConfig, SubscriberRepository } from "@roster/application"
import { EmailAddress, MessageId, Slug, Subscriber, SubscriberId, Tag, TagId, usageMonth } from "@roster/domain"
import { expect, it } from "@effect/vitest"
import { Clock, Effect, Either, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { InProcessWorkSignalLive, MemoryPersistenceLive } from "../../adapters/in-process/index.js"
import { makeJoseTokenSigner } from "../../adapters/jose/index.js"
import { LiquidTemplateEngineLive } from "../../adapters/liquid/index.js"
import { CryptoLive } from "../../adapters/node/index.js"

const queueing = Layer.mergeAll(Emails.Default, Organizations.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(
    MemoryPersistenceLive,
    CryptoLive,
    makeJoseTokenSigner(new Uint8Array(32).fill(7)),
    LiquidTemplateEngineLive,
    InProcessWorkSignalLive,
    Layer.succeed(OutgoingMailConfig, { defaultFrom: "x@example.com", publicBaseUrl: "http://roster.test", unsubscribeMailto: null })
  ))
)

it.effect("an email queued twice under one id is one message, counted once", () =>
  Effect.gen(function*() {
    const ids = yield* Ids
    const organization = yield* (yield* Organizations).create({ name: "Acme", slug: Slug.make(`acme-${yield* ids.next}`) })
    const at = new Date(yield* Clock.currentTimeMillis)
    const subscriber = new Subscriber({
      id: SubscriberId.make(randomUUID()),
      organizationId: organization.id,
      email: EmailAddress.make("ada@example.com"),
      status: "active",
      metadata: {},
      firstName: "Ada",
      lastName: null,
      createdAt: at,
      updatedAt: at
    })
    yield* (yield* SubscriberRepository).insert(subscriber).pipe(Effect.orDie)
    const messageId = MessageId.make(randomUUID())
    const email = {
      source: { subject: "Welcome, {{ subscriber.first_name }}", html: "<p>Hi</p>", text: null },
      templateId: null,
      data: {},
      kind: "marketing" as const,
      sandboxed: false,
      messageId
    }
    const emails = yield* Emails
    const first = yield* emails.queue(organization, subscriber, email)
    const again = yield* emails.queue(organization, subscriber, email)
    expect(first.message.id).toBe(messageId)
    expect(again.message.id).toBe(messageId)
    const messages = yield* MessageRepository
    expect(Option.map(yield* messages.findById(organization.id, messageId), (m) => m.subject)).toStrictEqual(
      Option.some("Welcome, Ada")
    )
    expect(yield* messages.history(messageId)).toHaveLength(1)
    expect(yield* (yield* EmailUsage).sentIn(organization.id, usageMonth(at))).toBe(1)
  }).pipe(Effect.provide(queueing)))

it.effect("the organization and tags a caller read in its transaction are rendered as given, not read again", () =>
  Effect.gen(function*() {
    const ids = yield* Ids
    const organization = yield* (yield* Organizations).create({ name: "Acme", slug: Slug.make(`acme-${yield* ids.next}`) })
    const at = new Date(yield* Clock.currentTimeMillis)
    const subscriber = new Subscriber({
      id: SubscriberId.make(randomUUID()),
      organizationId: organization.id,
      email: EmailAddress.make("ada@example.com"),
      status: "active",
      metadata: {},
      firstName: "Ada",
      lastName: null,
      createdAt: at,
      updatedAt: at
    })
    yield* (yield* SubscriberRepository).insert(subscriber).pipe(Effect.orDie)
    // A tag the store does not know the subscriber by: only the caller's reading names it.
    const tag = new Tag({
      id: TagId.make(randomUUID()),
      organizationId: organization.id,
      name: "Early reader",
      slug: Slug.make("early-reader"),
      description: null,
      displayName: null,
      category: null,
      visibility: "public",
      metadata: {},
      subscriberCount: 1,
      createdAt: at,
      updatedAt: at
    })
    const email = {
      recipient: subscriber,
      source: { subject: "{{ organization.name }}: {{ subscriber.tags | join: ', ' }}", html: "<p>Hi</p>", text: null },
      templateId: null,
      data: {},
      kind: "marketing" as const,
      sandboxed: false
    }
    const emails = yield* Emails
    const [given] = yield* emails.queueMany(organization, [email], {
      organization: { ...organization, name: "Acme as read" } as typeof organization,
      tags: new Map([[subscriber.id, [{ tag, subscribedAt: at }]]])
    })
    expect(Either.map(given!, (record) => record.message.subject)).toStrictEqual(Either.right("Acme as read: Early reader"))
    const [read] = yield* emails.queueMany(organization, [email])
    expect(Either.map(read!, (record) => record.message.subject)).toStrictEqual(Either.right("Acme:"))
  }).pipe(Effect.provide(queueing)))
