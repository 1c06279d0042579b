import {
  DomainNotAtProvider,
  DomainProviderUnavailable,
  DomainRefused,
  DomainVerifier,
  type ProviderDomain,
  type ProviderDomainStatus
} from "@roster/application"
import { DnsRecord } from "@roster/domain"
import { Duration, Effect, Layer, Redacted, Schedule } from "effect"
import { type ErrorResponse, Resend } from "resend"
import { RESEND_API_BASE_URL, retryAfterOf } from "./resend-mailer.js"

export interface ResendDomainVerifierOptions {
  readonly apiKey: Redacted.Redacted<string>
  /** Resend's API; another base serves tests and proxies. */
  readonly baseUrl?: string | undefined
  /** How long one call may take before it counts as the provider being unavailable. */
  readonly attemptTimeout?: Duration.DurationInput | undefined
}

/** What the SDK answers: data or an error, and the answer's headers. */
interface SdkAnswer<A> {
  readonly data: A | null
  readonly error: ErrorResponse | null
  readonly headers?: Record<string, string> | null
}

/** A domain as Resend answers it (create and get): only what is read here. */
interface ResendDomain {
  readonly id?: unknown
  readonly name?: unknown
  readonly status?: unknown
  readonly records?: unknown
}

/**
 * Resend's domain statuses in the port's words: a domain Resend is still looking at (or looking at
 * again, after a `temporary_failure` of a verified one) is `pending`; one whose sending part is
 * verified while another capability is not yet is `pending` too, since sending needs all of it.
 */
const statusOf = (status: unknown): ProviderDomainStatus => {
  switch (status) {
    case "verified":
      return "verified"
    case "failed":
    case "partially_failed":
      return "failed"
    case "not_started":
      return "not_started"
    default:
      return "pending"
  }
}

const text = (value: unknown, fallback = ""): string =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : fallback

const recordsOf = (records: unknown): ReadonlyArray<DnsRecord> =>
  Array.isArray(records)
    ? records
      .filter((r): r is Record<string, unknown> => typeof r === "object" && r !== null)
      .map((r) =>
        new DnsRecord({
          record: text(r.record),
          name: text(r.name),
          type: text(r.type),
          value: text(r.value),
          ttl: text(r.ttl, "Auto"),
          priority: typeof r.priority === "number" ? r.priority : null,
          status: text(r.status, "not_started")
        })
      )
    : []

const MAX_REASON_LENGTH = 300

/** Error names with which Resend refuses what it was sent rather than the caller. */
const refusals = new Set(["validation_error", "invalid_parameter", "missing_required_field", "invalid_region"])

type Failure = DomainRefused | DomainProviderUnavailable | DomainNotAtProvider

/**
 * Resend's error in the port's words. A refusal of the domain itself is the caller's to fix; a
 * domain Resend does not know is gone; anything else (a refused API key, a rate limit, a server
 * error, no answer) means the provider cannot be used just now.
 */
const fromResendError = (id: string, error: ErrorResponse, headers: Record<string, string> | null): Failure => {
  const status = typeof error.statusCode === "number" ? error.statusCode : null
  const name = typeof error.name === "string" ? error.name : "unknown_error"
  const message = typeof error.message === "string" ? error.message : ""
  if (status === 404 || name === "not_found") return new DomainNotAtProvider({ id })
  if (status !== null && status < 500 && status !== 429 && refusals.has(name)) {
    return new DomainRefused({ reason: message.slice(0, MAX_REASON_LENGTH) || name })
  }
  const reason = `Resend ${status === null ? "could not be reached" : `answered ${status}`} (${name}): ${message}`
  return new DomainProviderUnavailable({ reason: reason.slice(0, MAX_REASON_LENGTH), retryAfterMs: retryAfterOf(headers) })
}

/**
 * Sending domains at Resend, through its SDK: `domains.create`, `domains.get`, `domains.verify`
 * and `domains.remove`. Registering is tried once (a second try after a lost answer would find the
 * domain taken); reading, verifying and removing are tried again after a failure that may pass.
 */
export const makeResendDomainVerifier = (options: ResendDomainVerifierOptions): Layer.Layer<DomainVerifier> =>
  Layer.sync(DomainVerifier, () => {
    const resend = new Resend(Redacted.value(options.apiKey), { baseUrl: options.baseUrl ?? RESEND_API_BASE_URL })
    const attemptTimeout = options.attemptTimeout ?? Duration.seconds(10)
    const retries = Schedule.exponential(Duration.millis(200), 2).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(2))
    )

    const call = <A>(id: string, run: (signal: AbortSignal) => Promise<SdkAnswer<A>>): Effect.Effect<A, Failure> =>
      Effect.tryPromise({
        try: run,
        catch: (cause) =>
          new DomainProviderUnavailable({
            reason: `Resend could not be reached: ${cause instanceof Error ? cause.message : String(cause)}`,
            retryAfterMs: null
          })
      }).pipe(
        Effect.timeoutFail({
          duration: attemptTimeout,
          onTimeout: () =>
            new DomainProviderUnavailable({
              reason: `Resend did not answer within ${Duration.format(attemptTimeout)}`,
              retryAfterMs: null
            })
        }),
        Effect.flatMap((answer): Effect.Effect<A, Failure> =>
          answer.error !== null
            ? Effect.fail(fromResendError(id, answer.error, answer.headers ?? null))
            : answer.data === null
            ? Effect.fail(new DomainProviderUnavailable({ reason: "Resend answered without data", retryAfterMs: null }))
            : Effect.succeed(answer.data)
        ),
        Effect.tapError((failure) => failure._tag === "DomainProviderUnavailable" ? Effect.logWarning(failure.reason) : Effect.void)
      )

    const again = <A, E extends Failure>(effect: Effect.Effect<A, E>) =>
      Effect.retry(effect, { schedule: retries, while: (failure) => failure._tag === "DomainProviderUnavailable" })

    const domainOf = (data: ResendDomain, fallbackName: string): Effect.Effect<ProviderDomain, DomainProviderUnavailable> =>
      typeof data.id === "string" && data.id !== ""
        ? Effect.succeed({
          id: data.id,
          name: text(data.name, fallbackName),
          status: statusOf(data.status),
          records: recordsOf(data.records)
        })
        : Effect.fail(new DomainProviderUnavailable({ reason: "Resend answered a domain without an id", retryAfterMs: null }))

    return DomainVerifier.of({
      register: (name) =>
        call(name, (signal) => resend.domains.create({ name }, { signal }) as Promise<SdkAnswer<ResendDomain>>).pipe(
          Effect.catchTag("DomainNotAtProvider", () =>
            Effect.fail(new DomainProviderUnavailable({ reason: "Resend answered 404 to a new domain", retryAfterMs: null }))),
          Effect.flatMap((data) => domainOf(data, name))
        ),
      status: (id) =>
        again(call(id, (signal) => resend.domains.get(id, { signal }) as Promise<SdkAnswer<ResendDomain>>)).pipe(
          Effect.catchTag("DomainRefused", (refused) =>
            Effect.fail(new DomainProviderUnavailable({ reason: refused.reason, retryAfterMs: null }))),
          Effect.flatMap((data) => domainOf(data, ""))
        ),
      verify: (id) =>
        again(call(id, (signal) => resend.domains.verify(id, { signal }) as Promise<SdkAnswer<unknown>>)).pipe(
          Effect.catchTag("DomainRefused", (refused) =>
            Effect.fail(new DomainProviderUnavailable({ reason: refused.reason, retryAfterMs: null }))),
          Effect.asVoid
        ),
      remove: (id) =>
        again(call(id, (signal) => resend.domains.remove(id, { signal }) as Promise<SdkAnswer<unknown>>)).pipe(
          Effect.catchTags({
            DomainNotAtProvider: () => Effect.void,
            DomainRefused: (refused) => Effect.fail(new DomainProviderUnavailable({ reason: refused.reason, retryAfterMs: null }))
          }),
          Effect.asVoid
        )
    })
  })
