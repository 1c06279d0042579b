/**
 * What the use-case tests share: the application services over the in-memory database and the
 * node crypto adapters, and a way to open a fresh organization with a key of chosen scopes.
 * Used by `*.test.ts` files only; like a composition root, it may reach into adapters/.
 */
import { EmailAddress, type EventType, type PlanTier, type Scope, type SendResult, Slug, type WebhookEndpoint } from "@roster/domain"
import { Context, Deferred, Effect, Layer, Option, Ref } from "effect"
import { CryptoLive } from "../../adapters/node/index.js"
import { makeConsoleMailer, MemoryPersistenceLive } from "../../adapters/in-process/index.js"
import { makeTemplatedAuthMail } from "../../adapters/liquid/index.js"
import { makeRecordingWebhookTransport } from "../support/recording-webhook-transport.js"
import {
  ApiKeys,
  Ids,
  Organizations,
  Outbox,
  type Principal,
  Subscribers,
  Tags,
  WebhookDispatch,
  type WebhookMessage,
  Webhooks
} from "@roster/application"

/** The services with every port they need, and the ports themselves for setting up and looking. */
export const UseCasesInMemory = Layer.mergeAll(Subscribers.Default, Tags.Default, ApiKeys.Default, Organizations.Default).pipe(
  Layer.provideMerge(Layer.merge(MemoryPersistenceLive, CryptoLive))
)

/** The emails the console mailer printed, in order. */
export class PrintedMail extends Context.Tag("test/PrintedMail")<PrintedMail, Ref.Ref<ReadonlyArray<string>>>() {}

/** The sign-in emails, written as the service writes them and printed by the console mailer into {@link PrintedMail}. */
export const PrintedMailLive = Layer.unwrapEffect(
  Effect.map(PrintedMail, (printed) =>
    makeTemplatedAuthMail({ publicBaseUrl: "http://localhost:3000" }).pipe(
      Layer.provide(makeConsoleMailer((text) => Ref.update(printed, (all) => [...all, text])))
    ))
).pipe(Layer.provideMerge(Layer.effect(PrintedMail, Ref.make<ReadonlyArray<string>>([]))))

/** The sign-in emails go out in the background; wait until the `count`th has been printed. */
export const printedMail = (count: number) =>
  Effect.gen(function*() {
    const printed = yield* PrintedMail
    for (let turn = 0; turn < 10_000; turn++) {
      const all = yield* Ref.get(printed)
      if (all.length >= count) return all[count - 1]!
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage(`no sign-in email number ${count} was printed`)
  })

/** The token of the sign-in link a printed email carries. */
export const tokenIn = (mail: string) => decodeURIComponent(/sign-in\?token=([^\s&]+)/.exec(mail)![1]!)

/** A new organization and a principal acting for it through an API key with `scopes`. */
export const openOrganization = (
  options: { readonly tier?: PlanTier; readonly scopes?: ReadonlyArray<Scope>; readonly customRateLimit?: number } = {}
) =>
  Effect.gen(function*() {
    const ids = yield* Ids
    const organization = yield* (yield* Organizations).create({
      name: "Acme Newsletters",
      slug: Slug.make(`acme-${yield* ids.next}`),
      tier: options.tier,
      customRateLimit: options.customRateLimit
    })
    const principal = yield* keyFor(organization.id, options.scopes ?? ["*"])
    return { organization, principal }
  })

/** Another credential of the same organization, with other scopes. */
export const keyFor = (organizationId: Principal["organization"]["id"], scopes: ReadonlyArray<Scope>) =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const { key } = yield* apiKeys.create({ organizationId, name: "test key", scopes, environment: "test" })
    return yield* Effect.orDie(apiKeys.authenticate(key))
  })

/** The kinds of the events an organization has recorded, oldest first. */
export const recordedTypes = (organizationId: Principal["organization"]["id"]) =>
  Effect.map(Effect.flatMap(Outbox, (outbox) => outbox.recorded(organizationId)), (events) => events.map((e) => e.type))

export const email = (address: string): EmailAddress => EmailAddress.make(address)

/**
 * The webhook use cases over a fresh in-memory database and a transport that records every
 * message and answers as `answer` says; `run` provides them to a test.
 */
export const withReceiver = (answer: (message: WebhookMessage) => SendResult | Effect.Effect<SendResult>) => {
  const transport = makeRecordingWebhookTransport({ answer, allowPrivateTargets: false })
  const layer = Layer.mergeAll(
    Organizations.Default,
    ApiKeys.Default,
    Subscribers.Default,
    Webhooks.Default,
    WebhookDispatch.Default
  ).pipe(Layer.provideMerge(Layer.mergeAll(MemoryPersistenceLive, CryptoLive, transport.layer)))
  return { sent: transport.sent, run: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, layer) }
}

/** A receiver's answer of `status`, 12 ms after the send. */
export const answered = (status: number, retryAfterMs?: number): SendResult => ({
  _tag: "Answered",
  status,
  durationMs: 12,
  retryAfterMs: Option.fromNullable(retryAfterMs)
})

/** A receiver that answers each message only when the test opens its gate. */
export const gatedReceiver = () => {
  const gates: Array<Deferred.Deferred<SendResult>> = []
  const receiver = withReceiver(() =>
    Effect.flatMap(Deferred.make<SendResult>(), (gate) => {
      gates.push(gate)
      return Deferred.await(gate)
    })
  )
  return { ...receiver, gates }
}

/** An endpoint of the principal's organization hearing `events` (every kind unless given). */
export const register = (principal: Principal, events?: ReadonlyArray<EventType>) =>
  Effect.flatMap(Webhooks, (webhooks) => webhooks.create(principal, { url: "https://hooks.example.com/roster", events }))

/** A new subscriber of the principal's organization. */
export const subscribe = (principal: Principal, address: string) =>
  Effect.flatMap(Subscribers, (subscribers) => subscribers.create(principal, { email: email(address) }))

/** Every delivery of an endpoint with its attempts, newest first. */
export const deliveriesOf = (principal: Principal, endpoint: WebhookEndpoint) =>
  Effect.map(
    Effect.flatMap(Webhooks, (webhooks) => webhooks.listDeliveries(principal, endpoint.id, { limit: 100 })),
    (page) => page.items
  )
