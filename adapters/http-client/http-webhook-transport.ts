import { type WebhookMessage, WebhookTransport } from "@roster/application"
import { DELIVERY_TIMEOUT_MS, InvalidInput, parseRetryAfter, reason, type SendResult } from "@roster/domain"
import { Clock, Duration, Effect, Either, Layer } from "effect"
import { type LookupAddress, type LookupOptions, promises as dns } from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import { isIP, type LookupFunction } from "node:net"
import { Webhook } from "standardwebhooks"
import { inspectTarget, resolvedRefusal, type WebhookTarget } from "./target-guard.js"

/** Resolves a hostname to every address it has, as `dns.lookup(hostname, { all: true, verbatim: true })` does. */
export type LookupFn = (hostname: string) => Promise<ReadonlyArray<LookupAddress>>

export interface HttpWebhookTransportOptions {
  /** Lets webhooks reach loopback, private, link-local and metadata targets (local development, tests). */
  readonly allowPrivateTargets: boolean
  /** How hostnames are resolved; node:dns by default. Tests answer with the addresses they need. */
  readonly lookup?: LookupFn | undefined
  /** The bound of one attempt, connection, answer and body included; {@link DELIVERY_TIMEOUT_MS} by default. */
  readonly timeoutMs?: number | undefined
}

export const WEBHOOK_USER_AGENT = "Roster-Webhooks/1.0"

/** The most of an answer's body that is read; the rest is dropped with the connection. */
export const MAX_RESPONSE_BODY_BYTES = 4 * 1024

/** The most of an answer's body handed on, for the attempt's excerpt. */
const RESPONSE_EXCERPT_BYTES = 1_024

/** How long a pooled connection may stay idle; shorter than most servers' keep-alive, so a reused socket is rarely a closed one. */
const IDLE_SOCKET_TIMEOUT_MS = 4_000

const MAX_ERROR_LENGTH = 300

const defaultLookup: LookupFn = (hostname) => dns.lookup(hostname, { all: true, verbatim: true })

/**
 * The headers of a message under the Standard Webhooks scheme, one `v1,` signature per secret.
 * Signatures come from the `standardwebhooks` package, which takes `whsec_<base64>` secrets as
 * they are; a secret it cannot read is a `Left` naming the problem.
 */
export const webhookHeaders = (message: WebhookMessage): Either.Either<Record<string, string>, string> => {
  if (message.secrets.length === 0) return Either.left("could not sign the message: it has no signing secret")
  let signatures: ReadonlyArray<string>
  try {
    signatures = message.secrets.map((secret) => new Webhook(secret).sign(message.id, message.timestamp, message.body))
  } catch (error) {
    return Either.left(`could not sign the message: ${error instanceof Error ? error.message : String(error)}`)
  }
  return Either.right({
    "content-type": "application/json",
    "user-agent": WEBHOOK_USER_AGENT,
    "webhook-id": message.id,
    "webhook-timestamp": String(Math.floor(message.timestamp.getTime() / 1000)),
    "webhook-signature": signatures.join(" ")
  })
}

/** A target the guard refused while connecting; `message` is the guard's reason. */
class RefusedTarget extends Error {
  readonly code = "ERR_WEBHOOK_TARGET_REFUSED"
}

/** The address family Node asks for: 4, 6, or 0 for either. */
const familyOf = ({ family }: LookupOptions): 0 | 4 | 6 =>
  family === 4 || family === "IPv4" ? 4 : family === 6 || family === "IPv6" ? 6 : 0

/**
 * The lookup every socket of the transport is opened with: it resolves the name, judges every
 * address it got (unless private targets are allowed) and hands Node only addresses it judged, so
 * the address that was checked is the address that is connected to, whatever DNS answers next.
 */
const guardedLookup = (resolve: LookupFn, allowPrivateTargets: boolean): LookupFunction =>
(hostname, options, callback) => {
  const answer = (error: NodeJS.ErrnoException | null, addresses: ReadonlyArray<LookupAddress>) =>
    // Called on a later tick, as Node's own lookup does, so a throw in Node's callback is not swallowed by the promise.
    process.nextTick(() => {
      if (error !== null) return callback(error, "")
      if (options.all === true) return callback(null, addresses.map((a) => ({ ...a })))
      const first = addresses[0]!
      return callback(null, first.address, first.family)
    })
  Promise.resolve().then(() => resolve(hostname)).then(
    (found) => {
      const addresses = found.map((a) => ({ address: a.address, family: isIP(a.address) }))
      const refusal = allowPrivateTargets
        ? addresses.length === 0 ? `host ${hostname} does not resolve` : undefined
        : resolvedRefusal(hostname, addresses.map((a) => a.address))
      if (refusal !== undefined) return answer(new RefusedTarget(refusal), [])
      const family = familyOf(options)
      const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family)
      if (usable.length === 0) {
        const none = Object.assign(new Error(`host ${hostname} has no IPv${family} address`), { code: "ENOTFOUND", hostname })
        return answer(none, [])
      }
      return answer(null, usable)
    },
    (error: unknown) => answer(error instanceof Error ? error : new Error(String(error)), [])
  )
}

const TLS_ERROR_CODE = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/
/** OpenSSL's own reason in a raw error line ("...:SSL routines:ssl3_get_record:wrong version number:..."). */
const OPENSSL_REASON = /:(?:SSL|TLS) routines:[^:]*:([^:]+)/i

/** What went wrong with TLS, when it was TLS: a certificate refused, a handshake that failed. */
const tlsProblem = (code: string | undefined, message: string): string | undefined => {
  const openssl = OPENSSL_REASON.exec(message)?.[1]
  if (openssl !== undefined) return openssl
  return code !== undefined && TLS_ERROR_CODE.test(code) ? message || code : undefined
}

const oneLine = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > MAX_ERROR_LENGTH ? `${line.slice(0, MAX_ERROR_LENGTH - 1)}…` : line
}

/** A property of a thrown value that may be anything: Node's errors carry `code` and `hostname`. */
const stringProperty = (error: unknown, key: "code" | "hostname"): string | undefined => {
  const value: unknown = typeof error === "object" && error !== null ? (error as Record<string, unknown>)[key] : undefined
  return typeof value === "string" ? value : undefined
}

/** A failed request as one line. */
const describeError = (error: unknown): string => {
  if (error instanceof RefusedTarget) return oneLine(`refused target: ${error.message}`)
  const code = stringProperty(error, "code")
  const message = error instanceof Error ? error.message : String(error)
  const hostname = stringProperty(error, "hostname")
  const host = hostname === undefined ? "the host" : `host ${hostname}`
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused (ECONNREFUSED)"
    case "ECONNRESET":
      return "connection reset (ECONNRESET)"
    case "ENOTFOUND":
      return oneLine(`${host} does not resolve (ENOTFOUND)`)
    case "EAI_AGAIN":
      return oneLine(`${host} could not be resolved right now (EAI_AGAIN)`)
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `host unreachable (${code})`
    case "ETIMEDOUT":
      return "connection timed out (ETIMEDOUT)"
  }
  const tls = tlsProblem(code, message)
  if (tls !== undefined) return oneLine(`TLS error: ${tls}${code === undefined ? "" : ` (${code})`}`)
  if (code === undefined) return oneLine(message || "the request failed")
  return oneLine(message === "" ? code : `${message} (${code})`)
}

const formatMs = (ms: number) => ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`

/** How an attempt ended, before its duration is known. */
type Outcome =
  | { readonly _tag: "Answered"; readonly status: number; readonly retryAfter: string | undefined; body: string }
  | { readonly _tag: "NoAnswer"; readonly error: string }

const noAnswer = (error: string): Outcome => ({ _tag: "NoAnswer", error })

interface Agents {
  readonly http: http.Agent
  readonly https: https.Agent
}

const requestOptions = (target: WebhookTarget, headers: Record<string, string>, body: string, agents: Agents) => {
  const { url } = target
  const secure = url.protocol === "https:"
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part)
    } catch {
      return part
    }
  }
  const options: https.RequestOptions = {
    method: "POST",
    protocol: url.protocol,
    hostname: target._tag === "Address" ? target.address : target.hostname,
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, "content-length": String(Buffer.byteLength(body, "utf8")) },
    agent: secure ? agents.https : agents.http
  }
  if (url.port !== "") options.port = Number(url.port)
  if (url.username !== "" || url.password !== "") options.auth = `${decode(url.username)}:${decode(url.password)}`
  return { secure, options }
}

/**
 * POSTs `body` once, ending within `timeoutMs`. An answer counts once its status arrived: at most
 * {@link MAX_RESPONSE_BODY_BYTES} of its body are read so a kept-alive connection can be reused
 * (the first {@link RESPONSE_EXCERPT_BYTES} are handed on as the answer's excerpt), then the connection is destroyed; a body still coming at the deadline does not undo
 * the answer. Interrupting the effect destroys the request and its socket.
 */
const post = (
  target: WebhookTarget,
  headers: Record<string, string>,
  body: string,
  agents: Agents,
  timeoutMs: number
): Effect.Effect<Outcome> =>
  Effect.async<Outcome>((resume) => {
    let settled = false
    let answered: Outcome | undefined
    let request: http.ClientRequest | undefined
    const settle = (outcome: Outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(Effect.succeed(outcome))
    }
    const timer = setTimeout(() => {
      request?.destroy()
      settle(answered ?? noAnswer(`timed out after ${formatMs(timeoutMs)}`))
    }, timeoutMs)
    try {
      const { options, secure } = requestOptions(target, headers, body, agents)
      request = (secure ? https.request : http.request)(options, (response) => {
        const outcome = { _tag: "Answered" as const, status: response.statusCode ?? 0, retryAfter: response.headers["retry-after"], body: "" }
        answered = outcome
        const done = () => settle(outcome)
        let read = 0
        const kept: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => {
          if (read < RESPONSE_EXCERPT_BYTES) {
            kept.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - read))
            // A character cut at the end of the excerpt reads as U+FFFD, as a text does.
            outcome.body = Buffer.concat(kept).toString("utf8")
          }
          read += chunk.length
          if (read > MAX_RESPONSE_BODY_BYTES) {
            response.destroy()
            done()
          }
        })
        response.on("end", done)
        response.on("error", done)
        response.on("close", done)
      })
      // The listener stays for the request's whole life: an error after settling (the socket
      // destroyed by a time-out) must not become an uncaught one.
      request.on("error", (error) => settle(answered ?? noAnswer(describeError(error))))
      request.end(body)
    } catch (error) {
      // http.request throws at once on options it refuses (a header with a line break, say).
      settle(noAnswer(describeError(error)))
    }
    return Effect.sync(() => {
      clearTimeout(timer)
      request?.destroy()
    })
  })

/**
 * Sends webhooks with node:http and node:https, signed under the Standard Webhooks scheme.
 *
 * The SSRF guard (see `target-guard.ts`) runs twice: `checkTarget` when a URL is registered
 * (resolving its name), and on every send, where the address that is connected to is the address
 * that was judged. Node connects to a literal address without a lookup, so a literal is judged
 * before the request; a name is resolved and judged inside the sockets' own `lookup`, set on the
 * agents, so no socket of this transport opens without it. Redirects are never followed: a 3xx is
 * an answer like any other.
 *
 * Connections are kept alive, pooled by host and port in agents of this layer alone. A pooled
 * socket stays connected to the address that was judged when it opened, so reusing it cannot
 * reach anywhere new; and since the agents are per layer, a transport that allows private targets
 * never lends its sockets to one that does not. The agents are destroyed with the layer.
 */
export const makeHttpWebhookTransport = (options: HttpWebhookTransportOptions): Layer.Layer<WebhookTransport> =>
  Layer.scoped(
    WebhookTransport,
    Effect.gen(function*() {
      const allowPrivateTargets = options.allowPrivateTargets
      const resolve = options.lookup ?? defaultLookup
      const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS
      const lookup = guardedLookup(resolve, allowPrivateTargets)
      const agentOptions = { keepAlive: true, maxSockets: 64, timeout: IDLE_SOCKET_TIMEOUT_MS, lookup }
      const agents = yield* Effect.acquireRelease(
        Effect.sync((): Agents => ({ http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) })),
        (agents) =>
          Effect.sync(() => {
            agents.http.destroy()
            agents.https.destroy()
          })
      )

      const resolveAll = (hostname: string): Effect.Effect<ReadonlyArray<string>, string> =>
        Effect.tryPromise({
          try: () => resolve(hostname),
          catch: (error) => {
            const code = stringProperty(error, "code")
            return `host ${hostname} does not resolve${code === undefined ? "" : ` (${code})`}`
          }
        }).pipe(
          Effect.map((found) => found.map((a) => a.address)),
          Effect.timeoutFail({
            duration: Duration.millis(timeoutMs),
            onTimeout: () => `host ${hostname} did not resolve within ${formatMs(timeoutMs)}`
          })
        )

      const checkTarget = (url: string, field: string): Effect.Effect<void, InvalidInput> =>
        Effect.gen(function*() {
          const target = inspectTarget(url, allowPrivateTargets)
          if (Either.isLeft(target)) return yield* Effect.fail(target.left)
          if (allowPrivateTargets || target.right._tag === "Address") return
          const hostname = target.right.hostname
          const refusal = resolvedRefusal(hostname, yield* resolveAll(hostname))
          if (refusal !== undefined) return yield* Effect.fail(refusal)
        }).pipe(
          Effect.mapError((problem) => new InvalidInput({ field, reason: reason("foreign", { text: problem }) }))
        )

      const send = (message: WebhookMessage): Effect.Effect<SendResult> =>
        Effect.gen(function*() {
          const startedAt = yield* Clock.currentTimeMillis
          const target = inspectTarget(message.url, allowPrivateTargets)
          const headers = webhookHeaders(message)
          const outcome: Outcome = Either.isLeft(target)
            ? noAnswer(`refused target: ${target.left}`)
            : Either.isLeft(headers)
            ? noAnswer(headers.left)
            : yield* post(target.right, headers.right, message.body, agents, timeoutMs)
          const endedAt = yield* Clock.currentTimeMillis
          const durationMs = Math.max(0, endedAt - startedAt)
          const result: SendResult = outcome._tag === "Answered"
            ? {
              _tag: "Answered",
              status: outcome.status,
              durationMs,
              retryAfterMs: parseRetryAfter(outcome.retryAfter, new Date(endedAt)),
              body: outcome.body
            }
            : { _tag: "NoAnswer", error: outcome.error, durationMs }
          return result
        })

      return WebhookTransport.of({ checkTarget, send })
    })
  )
