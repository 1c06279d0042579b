/**
 * The real HTTP server of the reference form on a free port, over the in-memory database, for
 * tests that speak HTTP with `fetch`. Like a composition root it reaches into adapters/.
 */
import { HttpServer } from "@effect/platform"
import {
  ApiKeyRepository,
  ApiKeys,
  Organizations,
  OrganizationRepository,
  Readiness,
  Secrets,
  Subscribers,
  Tags
} from "@roster/application"
import {
  ApiKey,
  ApiKeyId,
  apiKeyHint,
  Organization,
  OrganizationId,
  type PlanTier,
  type Scope,
  Slug
} from "@roster/domain"
import { ConfigProvider, Effect, Layer, Logger, ManagedRuntime } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { CryptoLive } from "../../adapters/crypto/index.js"
import { makeHttpServerLive } from "../../adapters/http/index.js"
import { InProcessCacheHealthLive, MemoryPersistenceLive } from "../../adapters/memory/index.js"

const UseCasesLive = Layer.mergeAll(
  Subscribers.Default,
  Tags.Default,
  ApiKeys.Default,
  Organizations.Default,
  Readiness.Default
)

const AdaptersLive = Layer.mergeAll(MemoryPersistenceLive, InProcessCacheHealthLive, CryptoLive)

type AdapterServices = Layer.Layer.Success<typeof AdaptersLive>
type UseCaseServices = Layer.Layer.Success<typeof UseCasesLive>

/** What `run` can reach: the use cases and every port, for seeding and looking. */
export type ServerServices = AdapterServices | UseCaseServices

export interface StartOptions {
  /** Configuration seen by the server instead of the environment (which tests never see). */
  readonly config?: Readonly<Record<string, string>>
  /** Ports that replace the in-memory ones, e.g. a repository that fails. */
  readonly adapters?: Layer.Layer<never>
  /** Receives every log line; without it, the server logs nothing. */
  readonly logger?: Logger.Logger<unknown, void>
}

export interface SeededOrganization {
  readonly organization: Organization
  /** A full API key of the organization with the scopes asked for (`*` by default). */
  readonly key: string
}

export interface TestHttpServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly baseUrl: string
  readonly run: <A, E>(effect: Effect.Effect<A, E, ServerServices>) => Promise<A>
  readonly createOrganization: (options?: { readonly tier?: PlanTier }) => Promise<Organization>
  readonly createApiKey: (organization: Organization, scopes?: ReadonlyArray<Scope>) => Promise<string>
  /** A new organization and an API key of it. */
  readonly seedOrganization: (
    options?: { readonly tier?: PlanTier; readonly scopes?: ReadonlyArray<Scope> }
  ) => Promise<SeededOrganization>
  /** A well-formed key stored as revoked. */
  readonly createRevokedApiKey: (organization: Organization) => Promise<string>
  /** A new organization that is suspended, and a key of it. */
  readonly seedSuspendedOrganization: () => Promise<SeededOrganization>
  readonly close: () => Promise<void>
}

const uniqueSlug = () => Slug.make(`org-${randomUUID()}`)

export const startHttpServer = async (options: StartOptions = {}): Promise<TestHttpServer> => {
  const adapters = options.adapters === undefined ? AdaptersLive : Layer.merge(AdaptersLive, options.adapters)
  const layer = makeHttpServerLive({ port: 0, host: "127.0.0.1" }).pipe(
    Layer.provideMerge(UseCasesLive),
    Layer.provideMerge(adapters),
    Layer.provide(Logger.replace(Logger.defaultLogger, options.logger ?? Logger.none)),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson(options.config ?? {})))
  )
  const runtime = ManagedRuntime.make(layer)
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag !== "TcpAddress") throw new Error("the test server did not listen on TCP")
  const run = <A, E>(effect: Effect.Effect<A, E, ServerServices>) => runtime.runPromise(effect)

  const createOrganization = (opts: { readonly tier?: PlanTier } = {}) =>
    run(Effect.flatMap(Organizations, (o) => o.create({ name: "Acme Newsletters", slug: uniqueSlug(), tier: opts.tier })))

  const createApiKey = (organization: Organization, scopes: ReadonlyArray<Scope> = ["*"]) =>
    run(Effect.flatMap(ApiKeys, (keys) =>
      keys.create({ organizationId: organization.id, name: "test key", scopes, environment: "test" })
    ).pipe(Effect.map(({ key }) => key)))

  const seedOrganization = async (opts: { readonly tier?: PlanTier; readonly scopes?: ReadonlyArray<Scope> } = {}) => {
    const organization = await createOrganization({ tier: opts.tier })
    return { organization, key: await createApiKey(organization, opts.scopes) }
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
      subscriberCount: 0,
      createdAt: now,
      updatedAt: now
    })
    await run(Effect.flatMap(OrganizationRepository, (repository) => repository.insert(organization)))
    return { organization, key: await createApiKey(organization) }
  }

  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    run,
    createOrganization,
    createApiKey,
    seedOrganization,
    createRevokedApiKey,
    seedSuspendedOrganization,
    close: () => runtime.dispose()
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
