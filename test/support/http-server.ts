/**
 * The real HTTP server of the reference form on a free port, over the in-memory database, for
 * tests that speak HTTP with `fetch`. Emails are printed by the console mailer into a list the
 * test reads (sign-in links included), and the server's clock can be moved forward. Like a
 * composition root it reaches into adapters/.
 */
import { CsvParseReaderLive } from "../../adapters/csv/index.js"
import { HttpServer } from "@effect/platform"
import {
  ApiKeyRepository,
  ApiKeys,
  MembershipRepository,
  Organizations,
  OrganizationRepository,
  RateLimiter,
  Secrets,
  SubscriberIntake,
  SubscriberRepository
} from "@roster/application"
import {
  ApiKey,
  type ApiKeyEnvironment,
  ApiKeyId,
  apiKeyHint,
  Membership,
  Organization,
  OrganizationId,
  type PlanTier,
  type Role,
  type Scope,
  Slug,
  UserId
} from "@roster/domain"
import { Clock, ConfigProvider, Duration, Effect, Layer, Logger, ManagedRuntime } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { MovableClock } from "./movable-clock.js"
import { unwatchServer, watchServer } from "./conformance-servers.js"
import { CryptoLive } from "../../adapters/node/index.js"
import { makeHttpServerLive } from "../../adapters/http/index.js"
import { readResendEvent } from "../../adapters/resend/index.js"
import { stripePaymentEvents } from "../../adapters/stripe/index.js"
import {
  InProcessCacheHealthLive,
  InProcessIdempotencyStoreLive,
  InProcessRateLimiterLive,
  InProcessWorkSignalLive,
  makeConsoleMailer,
  MemoryPersistenceLive
} from "../../adapters/in-process/index.js"
import { makeTemplatedAuthMail } from "../../adapters/liquid/index.js"
import { makeJoseTokenSigner } from "../../adapters/jose/index.js"
import { makeHttpWebhookTransport } from "../../adapters/http-client/index.js"
// The use cases of the running service; no worker runs beside the test server, and tests move
// webhook work with WebhookDispatch through `run`.
import { UseCasesLive } from "../../apps/shared/application.js"
import { logRecord } from "../../apps/shared/logging.js"
import { httpSettingsOf, publicBaseUrl, RosterConfig } from "../../apps/shared/config.js"
import { domainVerifierLayer, emailLayer, limitsLayer, paymentLayer } from "../../apps/shared/layers.js"

/** The secret that signs this test process's session tokens. */
export const testSigningSecret: Uint8Array = randomBytes(32)

/**
 * Every port in memory or in process; emails go to `write`. Webhooks go out over real HTTP, through
 * the real target guard: loopback receivers of a test are refused unless `allowPrivateTargets`.
 * Sending domains are registered in process, or at RESEND_BASE_URL when RESEND_API_KEY is given.
 */
const adaptersLive = (write: (text: string) => Effect.Effect<void>, config: RosterConfig) =>
  Layer.mergeAll(
    MemoryPersistenceLive,
    InProcessCacheHealthLive,
    CryptoLive,
    makeJoseTokenSigner(testSigningSecret),
    InProcessRateLimiterLive,
    InProcessIdempotencyStoreLive,
    makeTemplatedAuthMail({ publicBaseUrl: publicBaseUrl(config) }).pipe(Layer.provide(makeConsoleMailer(write))),
    makeConsoleMailer(write, { from: config.emailFrom }),
    InProcessWorkSignalLive,
    makeHttpWebhookTransport({ allowPrivateTargets: config.webhookAllowPrivateTargets }),
    emailLayer(config),
    domainVerifierLayer(config),
    paymentLayer(config),
    limitsLayer(config),
    CsvParseReaderLive
  )

/**
 * A rate limiter that lets everything through, for suites that sign in more often than the
 * limits per client address allow (every request of a test comes from 127.0.0.1), or that send an
 * organization more API requests in a minute than its plan allows.
 */
export const UnlimitedRateLimiterLive = Layer.succeed(
  RateLimiter,
  RateLimiter.of({
    consume: (_key, limit, windowMs) =>
      Effect.map(Clock.currentTimeMillis, (now) => ({
        allowed: true,
        limit,
        remaining: limit,
        resetAt: new Date(now + windowMs)
      })),
    hold: () => Effect.void,
    heldFor: () => Effect.succeed(0),
    rateOf: (_key, rate) => Effect.succeed(rate.max),
    slowDown: (_key, rate) => Effect.succeed(rate.max),
    speedUp: (_key, rate) => Effect.succeed(rate.max)
  })
)


type AdapterServices = Layer.Layer.Success<ReturnType<typeof adaptersLive>>
type UseCaseServices = Layer.Layer.Success<typeof UseCasesLive>

/** What `run` can reach: the use cases and every port, for seeding and looking. */
export type ServerServices = AdapterServices | UseCaseServices

export interface StartOptions {
  /**
   * Configuration seen by the server instead of the environment (which tests never see).
   * `WEBHOOK_ALLOW_PRIVATE_TARGETS: "true"` lets webhooks reach the test's local receivers.
   */
  readonly config?: Readonly<Record<string, string>>
  /** Ports that replace the in-memory ones, e.g. a repository that fails, or another webhook transport. */
  readonly adapters?: Layer.Layer<never>
  /** Receives every log line; without it, the server logs nothing. */
  readonly logger?: Logger.Logger<unknown, void>
  /** The wire form served (`API_FORM`); `reference` unless told, or unless `config` names one. */
  readonly form?: "reference" | "overview"
  /** `false` serves every request through the HttpApi, the direct lane's requests included. */
  readonly directLane?: boolean
}

/** A user signed in through the real flow: a magic link by email, then `GET /auth/verify`. */
export interface SignedInUser {
  readonly email: string
  readonly userId: string
  /** The session token, the value of the `svc_session` cookie. */
  readonly sessionToken: string
  /** `svc_session=<token>`, as a browser sends it back in the Cookie header. */
  readonly cookie: string
  /** The `Set-Cookie` header of the verify answer. */
  readonly setCookie: string
  /** The body of the verify answer. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly verified: any
  /** The headers of a request with this session, acting for `organizationId` when given. */
  readonly headers: (organizationId?: string) => Record<string, string>
}

export interface SeededOrganization {
  readonly organization: Organization
  /** A full API key of the organization with the scopes asked for (`*` by default). */
  readonly key: string
}

export interface OrganizationOptions {
  readonly tier?: PlanTier
  readonly isPlatformAdmin?: boolean
  /** Requests per minute instead of the plan's (enterprise only); 0 for none. */
  readonly customRateLimit?: number
}

export interface TestHttpServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly baseUrl: string
  readonly run: <A, E>(effect: Effect.Effect<A, E, ServerServices>) => Promise<A>
  /** A new organization made by the Organizations use case, as operators make them. */
  readonly createOrganization: (options?: OrganizationOptions) => Promise<Organization>
  /** A `svc_test_` key unless told `live` (whose emails reach the mailer). */
  readonly createApiKey: (
    organization: Organization,
    scopes?: ReadonlyArray<Scope>,
    environment?: ApiKeyEnvironment
  ) => Promise<string>
  /** A new organization and an API key of it (`svc_test_` unless `environment: "live"`). */
  readonly seedOrganization: (
    options?: OrganizationOptions & { readonly scopes?: ReadonlyArray<Scope>; readonly environment?: ApiKeyEnvironment }
  ) => Promise<SeededOrganization>
  /** A well-formed key stored as revoked. */
  readonly createRevokedApiKey: (organization: Organization) => Promise<string>
  /** A new organization that is suspended, and a key of it. */
  readonly seedSuspendedOrganization: () => Promise<SeededOrganization>
  /** Every email the server has sent so far, as the console mailer printed it. */
  readonly emails: () => ReadonlyArray<string>
  /**
   * The token of the newest sign-in email to `email` beyond the first `seen` emails to it, waiting
   * for it to arrive (emails go out in the background).
   */
  readonly signInTokenFor: (email: string, seen?: number) => Promise<string>
  /** How many emails went to `email` so far. */
  readonly emailCount: (email: string) => number
  /** Asks for a sign-in link through `POST /auth/magic-link` and reads its token from the email. */
  readonly requestSignInToken: (email: string, locale?: string) => Promise<string>
  /** Signs in through the real flow (a fresh address unless one is given) and keeps the cookie. */
  readonly signIn: (email?: string) => Promise<SignedInUser>
  /** Creates an organization through `POST /auth/organizations`; the user becomes its owner. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly createOrganizationAs: (user: SignedInUser) => Promise<any>
  /** Makes the user a member of the organization with `role`, through the repository. */
  readonly addMember: (organizationId: string, user: SignedInUser, role: Role) => Promise<void>
  /** Moves the server's clock forward. */
  readonly advanceClock: (by: Duration.DurationInput) => void
  readonly close: () => Promise<void>
}

const uniqueSlug = () => Slug.make(`org-${randomUUID()}`)

let addressCounter = 0
/** An email address no other test of this process uses. */
export const freshAddress = (prefix = "user") =>
  `${prefix}-${Date.now().toString(36)}-${++addressCounter}@example.com`

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The token of the sign-in link in a printed email. */
const tokenIn = (email: string): string | undefined => /\/auth\/sign-in\?token=([A-Za-z0-9_%-]+)/.exec(email)?.[1]

export const startHttpServer = async (options: StartOptions = {}): Promise<TestHttpServer> => {
  const sent: Array<string> = []
  const capture = (text: string) => Effect.sync(() => void sent.push(text))
  const clock = new MovableClock()
  // The configuration the server sees, read and checked as the service reads it at start. Tokens
  // are signed with testSigningSecret whatever SESSION_SECRET says; it is given so that
  // NODE_ENV=production is accepted.
  const config = await Effect.runPromise(
    Effect.withConfigProvider(
      RosterConfig,
      ConfigProvider.fromJson({
        SESSION_SECRET: "a-session-secret-the-test-server-does-not-use",
        ...(options.form === undefined ? {} : { API_FORM: options.form }),
        ...options.config
      })
    )
  )
  const defaults = adaptersLive(capture, config)
  const adapters = options.adapters === undefined ? defaults : Layer.merge(defaults, options.adapters)
  const layer = makeHttpServerLive({
    form: config.apiForm,
    settings: httpSettingsOf(config),
    eventReaders: { payment: stripePaymentEvents, email: readResendEvent },
    port: 0,
    host: "127.0.0.1",
    directLane: options.directLane
  }).pipe(
    Layer.provideMerge(UseCasesLive),
    Layer.provideMerge(adapters),
    Layer.provide(Logger.replace(Logger.defaultLogger, options.logger ?? Logger.none)),
    Layer.provide(Layer.setClock(clock))
  )
  const runtime = ManagedRuntime.make(layer)
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag !== "TcpAddress") throw new Error("the test server did not listen on TCP")
  const run = <A, E>(effect: Effect.Effect<A, E, ServerServices>) => runtime.runPromise(effect)

  const createOrganization = (opts: OrganizationOptions = {}) =>
    run(Effect.flatMap(Organizations, (o) =>
      o.create({
        name: "Acme Newsletters",
        slug: uniqueSlug(),
        tier: opts.tier,
        isPlatformAdmin: opts.isPlatformAdmin,
        customRateLimit: opts.customRateLimit
      })))

  const createApiKey = (
    organization: Organization,
    scopes: ReadonlyArray<Scope> = ["*"],
    environment: ApiKeyEnvironment = "test"
  ) =>
    run(Effect.flatMap(ApiKeys, (keys) =>
      keys.create({ organizationId: organization.id, name: "test key", scopes, environment })
    ).pipe(Effect.map(({ key }) => key)))

  const seedOrganization = async (
    opts: OrganizationOptions & { readonly scopes?: ReadonlyArray<Scope>; readonly environment?: ApiKeyEnvironment } = {}
  ) => {
    const organization = await createOrganization(opts)
    return { organization, key: await createApiKey(organization, opts.scopes, opts.environment) }
  }

  /** A key as the service issues them, stored directly through the port with a revocation time. */
  const createRevokedApiKey = (organization: Organization) =>
    run(Effect.gen(function*() {
      const key = `svc_test_${randomBytes(20).toString("hex")}`
      const hint = apiKeyHint(key)
      const now = new Date()
      yield* (yield* ApiKeyRepository).insert(
        new ApiKey({
          id: ApiKeyId.make(randomUUID()),
          organizationId: organization.id,
          name: "revoked key",
          environment: "test",
          keyHash: yield* (yield* Secrets).sha256(key),
          prefix: hint.prefix,
          lastFour: hint.lastFour,
          scopes: ["*"],
          createdAt: now,
          lastUsedAt: null,
          revokedAt: now
        })
      )
      return key
    }))

  const seedSuspendedOrganization = async () => {
    const now = new Date()
    const organization = new Organization({
      id: OrganizationId.make(randomUUID()),
      name: "Suspended Newsletters",
      slug: uniqueSlug(),
      tier: "free",
      isPlatformAdmin: false,
      suspendedAt: now,
      customRateLimit: null,
      subscriberCount: 0,
      createdAt: now,
      updatedAt: now
    })
    await run(Effect.flatMap(OrganizationRepository, (repository) => repository.insert(organization)))
    return { organization, key: await createApiKey(organization) }
  }

  const baseUrl = `http://127.0.0.1:${address.port}`
  // Every answer the test gets from this server is checked against the form's OpenAPI document.
  watchServer(baseUrl, config.apiForm)

  const emailsTo = (email: string) => {
    const to = new RegExp(`^To: ${escapeRegExp(email)}$`, "m")
    return sent.filter((text) => to.test(text))
  }

  const signInTokenFor = async (email: string, seen = 0) => {
    for (let waited = 0; waited < 5_000; waited += 10) {
      const received = emailsTo(email)
      if (received.length > seen) {
        const token = tokenIn(received[received.length - 1]!)
        if (token === undefined) throw new Error(`the email to ${email} carries no sign-in link`)
        return decodeURIComponent(token)
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`no sign-in email reached ${email}`)
  }

  const requestSignInToken = async (email: string, locale?: string) => {
    const seen = emailsTo(email).length
    const answer = await call({ baseUrl }, "POST", "/auth/magic-link", {
      json: locale === undefined ? { email } : { email, locale }
    })
    if (answer.status !== 200) throw new Error(`POST /auth/magic-link answered ${answer.status}: ${answer.text}`)
    return signInTokenFor(email, seen)
  }

  const signIn = async (email: string = freshAddress()): Promise<SignedInUser> => {
    const token = await requestSignInToken(email)
    const answer = await call({ baseUrl }, "GET", `/auth/verify?token=${encodeURIComponent(token)}`)
    if (answer.status !== 200) throw new Error(`GET /auth/verify answered ${answer.status}: ${answer.text}`)
    const setCookie = answer.headers.getSetCookie().find((c) => c.startsWith("svc_session="))
    if (setCookie === undefined) throw new Error("GET /auth/verify set no svc_session cookie")
    const cookie = setCookie.split(";")[0]!
    return {
      email,
      userId: answer.body.user_id,
      sessionToken: cookie.slice("svc_session=".length),
      cookie,
      setCookie,
      verified: answer.body,
      headers: (organizationId): Record<string, string> =>
        organizationId === undefined ? { cookie } : { cookie, "x-organization-id": organizationId }
    }
  }

  const createOrganizationAs = async (user: SignedInUser) => {
    const slug = uniqueSlug()
    const answer = await call({ baseUrl }, "POST", "/auth/organizations", {
      headers: user.headers(),
      json: { name: `Newsletters of ${user.email}`, slug }
    })
    if (answer.status !== 200) throw new Error(`POST /auth/organizations answered ${answer.status}: ${answer.text}`)
    return answer.body
  }

  const addMember = (organizationId: string, user: SignedInUser, role: Role) =>
    run(Effect.flatMap(MembershipRepository, (memberships) =>
      memberships.upsert(
        new Membership({
          organizationId: OrganizationId.make(organizationId),
          userId: UserId.make(user.userId),
          role,
          createdAt: new Date(clock.unsafeCurrentTimeMillis())
        })
      )))

  return {
    baseUrl,
    run,
    createOrganization,
    createApiKey,
    seedOrganization,
    createRevokedApiKey,
    seedSuspendedOrganization,
    emails: () => [...sent],
    emailCount: (email) => emailsTo(email).length,
    signInTokenFor,
    requestSignInToken,
    signIn,
    createOrganizationAs,
    addMember,
    advanceClock: (by) => clock.advance(by),
    close: () => {
      unwatchServer(baseUrl)
      return runtime.dispose()
    }
  }
}

/** One answer of the server, its body read as JSON when it is JSON. */
export interface Answer {
  readonly status: number
  readonly headers: Headers
  /** The parsed JSON (or the text); tests read it freely and a wrong guess fails the test. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any
  readonly text: string
}

export interface CallOptions {
  readonly key?: string | undefined
  /** Sent as JSON. */
  readonly json?: unknown
  /** Sent as is, without a Content-Type unless `headers` names one. */
  readonly body?: string | Uint8Array | undefined
  readonly headers?: Readonly<Record<string, string>>
}

/** Calls the server with real `fetch`. */
export const call = async (
  server: Pick<TestHttpServer, "baseUrl">,
  method: string,
  path: string,
  options: CallOptions = {}
): Promise<Answer> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key !== undefined) headers["x-api-key"] = options.key
  let body: string | Uint8Array | undefined = options.body
  if (options.json !== undefined) {
    body = JSON.stringify(options.json)
    headers["content-type"] ??= "application/json"
  }
  const response = await fetch(`${server.baseUrl}${path}`, { method, headers, body })
  const text = await response.text()
  const contentType = response.headers.get("content-type") ?? ""
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: contentType.includes("json") && text.length > 0 ? JSON.parse(text) : text
  }
}

/** What the service's JSON logger would write for each line, kept in memory. */
export const capturingLogger = (lines: Array<Record<string, unknown>>) =>
  Logger.make<unknown, void>((options) => {
    lines.push(logRecord(options))
  })

/** Subscriber storage whose every call dies with `defect`: for the answers to faults. */
export const failingSubscriberRepository = (defect: unknown) =>
  Layer.merge(
    Layer.succeed(SubscriberRepository, new Proxy({} as SubscriberRepository["Type"], { get: () => () => Effect.die(defect) })),
    Layer.succeed(SubscriberIntake, new Proxy({} as SubscriberIntake["Type"], { get: () => () => Effect.die(defect) }))
  )
