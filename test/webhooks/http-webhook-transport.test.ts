import { describe, expect, it } from "@effect/vitest"
import { type WebhookMessage, WebhookTransport } from "@roster/application"
import { InvalidInput, type SendResult, signingSecretFromBytes } from "@roster/domain"
import { Effect, Either, Fiber, Option, type Scope } from "effect"
import { createHmac, randomBytes } from "node:crypto"
import type { LookupAddress } from "node:dns"
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import { type LookupFn, makeHttpWebhookTransport, WEBHOOK_USER_AGENT } from "../../adapters/http-client/index.js"

// ---------------------------------------------------------------------------------------------
// A local receiver

interface SeenRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** What the receiver does with a request it has read: answer it, or hold it without answering. */
type Handler = (request: SeenRequest, res: ServerResponse) => void | "hang"

interface Receiver {
  readonly port: number
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly requests: ReadonlyArray<SeenRequest>
  /** Connections accepted, and how many of them have closed since. */
  readonly connections: () => { readonly opened: number; readonly closed: number }
}

/** An HTTP server on a free port of 127.0.0.1 for as long as the scope lasts, keeping what it was sent. */
const startReceiver = (handler: Handler = (_, res) => void res.writeHead(204).end()): Effect.Effect<
  Receiver,
  never,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const requests: Array<SeenRequest> = []
    let opened = 0
    let closed = 0
    const server = createServer((req: IncomingMessage, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const seen = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8")
        }
        requests.push(seen)
        handler(seen, res)
      })
    })
    server.on("connection", (socket) => {
      opened += 1
      socket.on("close", () => (closed += 1))
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const { port } = server.address() as AddressInfo
    return { port, origin: `http://127.0.0.1:${port}`, requests, connections: () => ({ opened, closed }) }
  })

/** A port where nothing listens: one that was free a moment ago. */
const freePort: Effect.Effect<number> = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** Waits (up to a second) until `condition` holds; the test's next assertion tells what did not happen. */
const eventually = (condition: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100 && !condition(); i++) yield* Effect.sleep("10 millis")
  })

// ---------------------------------------------------------------------------------------------
// Resolvers and messages

const PUBLIC_V4 = "93.184.215.14"

const v4 = (address: string): LookupAddress => ({ address, family: 4 })

/** A resolver that answers `answers[i]` on its i-th call (the last one after that) and counts its calls. */
const scriptedResolver = (...answers: ReadonlyArray<ReadonlyArray<string>>) => {
  const calls: Array<string> = []
  const lookup: LookupFn = async (hostname) => {
    calls.push(hostname)
    return (answers[Math.min(calls.length - 1, answers.length - 1)] ?? []).map(v4)
  }
  return { lookup, calls }
}

const notFound: LookupFn = (hostname) =>
  Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname }))

const newSecret = () => signingSecretFromBytes(new Uint8Array(randomBytes(32)))

const message = (url: string, overrides: Partial<WebhookMessage> = {}): WebhookMessage => ({
  url,
  id: "evt_01J9ZK3W6Y8D2Q4R5S7T9V0XAB",
  timestamp: new Date(),
  body: JSON.stringify({ id: "evt_01J9ZK3W6Y8D2Q4R5S7T9V0XAB", type: "subscriber.created", data: { name: "Zoë 🎉" } }),
  secrets: [newSecret()],
  ...overrides
})

type TransportOptions = Parameters<typeof makeHttpWebhookTransport>[0]

const send = (msg: WebhookMessage, options: TransportOptions = { allowPrivateTargets: true }) =>
  Effect.flatMap(WebhookTransport, (transport) => transport.send(msg)).pipe(
    Effect.provide(makeHttpWebhookTransport(options))
  )

const checkTarget = (url: string, options: TransportOptions) =>
  Effect.flatMap(WebhookTransport, (transport) => transport.checkTarget(url, "url")).pipe(
    Effect.provide(makeHttpWebhookTransport(options)),
    Effect.either
  )

const refusal = (checked: Either.Either<void, InvalidInput>): string => {
  if (Either.isRight(checked)) throw new Error("expected the target to be refused")
  expect(checked.left).toBeInstanceOf(InvalidInput)
  expect(checked.left.field).toBe("url")
  return checked.left.problem
}

const answered = (result: SendResult) => {
  if (result._tag !== "Answered") throw new Error(`expected an answer, got: ${result.error}`)
  return result
}

const noAnswer = (result: SendResult) => {
  if (result._tag !== "NoAnswer") throw new Error(`expected no answer, got ${result.status}`)
  return result
}

/** The headers as `standardwebhooks` takes them: strings only. */
const plainHeaders = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).flatMap(([k, v]) => typeof v === "string" ? [[k, v]] : []))

const hmac = (secret: string, signed: string) =>
  createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64")).update(signed, "utf8").digest("base64")

// ---------------------------------------------------------------------------------------------

describe("HTTP webhook transport: what a receiver gets", () => {
  it.scopedLive("a delivery is a POST of the exact body with the Standard Webhooks headers, and its signature verifies", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const msg = message(`${receiver.origin}/hooks/roster?team=7`)
      const result = answered(yield* send(msg))
      expect(result.status).toBe(204)
      expect(result.retryAfterMs).toEqual(Option.none())
      expect(receiver.requests).toHaveLength(1)
      const seen = receiver.requests[0]!
      expect(seen.method).toBe("POST")
      expect(seen.path).toBe("/hooks/roster?team=7")
      expect(seen.body).toBe(msg.body)
      expect(seen.headers["content-type"]).toBe("application/json")
      expect(seen.headers["content-length"]).toBe(String(Buffer.byteLength(msg.body)))
      expect(seen.headers["user-agent"]).toBe(WEBHOOK_USER_AGENT)
      expect(seen.headers["webhook-id"]).toBe(msg.id)
      const timestamp = Math.floor(msg.timestamp.getTime() / 1000)
      expect(seen.headers["webhook-timestamp"]).toBe(String(timestamp))
      const signature = seen.headers["webhook-signature"] as string
      expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
      // The reference library agrees, and so does a plain HMAC-SHA256 of id.timestamp.body.
      expect(new Webhook(msg.secrets[0]!).verify(seen.body, plainHeaders(seen.headers))).toEqual(JSON.parse(msg.body))
      expect(signature).toBe(`v1,${hmac(msg.secrets[0]!, `${msg.id}.${timestamp}.${msg.body}`)}`)
    }))

  it.scopedLive("two secrets give two v1 signatures, each verifying with its own secret and no other", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const [current, previous] = [newSecret(), newSecret()]
      const msg = message(`${receiver.origin}/`, { secrets: [current, previous] })
      answered(yield* send(msg))
      const seen = receiver.requests[0]!
      const signatures = (seen.headers["webhook-signature"] as string).split(" ")
      expect(signatures).toHaveLength(2)
      const signed = `${msg.id}.${Math.floor(msg.timestamp.getTime() / 1000)}.${msg.body}`
      expect(signatures).toEqual([`v1,${hmac(current, signed)}`, `v1,${hmac(previous, signed)}`])
      for (const secret of [current, previous]) {
        const only = { ...plainHeaders(seen.headers), "webhook-signature": signatures[[current, previous].indexOf(secret)]! }
        expect(() => new Webhook(secret).verify(seen.body, only)).not.toThrow()
      }
      expect(() => new Webhook(newSecret()).verify(seen.body, plainHeaders(seen.headers))).toThrow()
    }))

  it.scopedLive("credentials in the URL go as Basic authentication, decoded", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      answered(yield* send(message(`http://hook%20user:p%40ss@127.0.0.1:${receiver.port}/`)))
      expect(receiver.requests[0]!.headers.authorization).toBe(
        `Basic ${Buffer.from("hook user:p@ss").toString("base64")}`
      )
    }))

  it.scopedLive("a message whose secret cannot be read is not sent", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const result = noAnswer(yield* send(message(`${receiver.origin}/`, { secrets: ["whsec_"] })))
      expect(result.error).toContain("could not sign")
      expect(receiver.connections().opened).toBe(0)
    }))
})

describe("HTTP webhook transport: answers", () => {
  it.scopedLive("the status is the result: 2xx, 500, 410, and 429 with its Retry-After", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver((seen, res) => {
        const status = Number(new URL(seen.path, "http://x").searchParams.get("status"))
        res.writeHead(status, status === 429 ? { "retry-after": "7" } : {}).end("noted")
      })
      const sendWith = (status: number) => Effect.map(send(message(`${receiver.origin}/?status=${status}`)), answered)
      expect(yield* sendWith(200)).toMatchObject({ status: 200, retryAfterMs: Option.none() })
      expect((yield* sendWith(202)).status).toBe(202)
      expect((yield* sendWith(500)).status).toBe(500)
      expect((yield* sendWith(410)).status).toBe(410)
      const limited = yield* sendWith(429)
      expect(limited.status).toBe(429)
      expect(limited.retryAfterMs).toEqual(Option.some(7000))
      expect(limited.durationMs).toBeGreaterThanOrEqual(0)
    }))

  it.scopedLive("a redirect is an answer, never followed: not to another local server, not to the metadata address", () =>
    Effect.gen(function*() {
      const elsewhere = yield* startReceiver()
      const receiver = yield* startReceiver((seen, res) => {
        const location = seen.path === "/to-local"
          ? `${elsewhere.origin}/hit`
          : "http://169.254.169.254/latest/meta-data/"
        res.writeHead(302, { location }).end()
      })
      const local = answered(yield* send(message(`${receiver.origin}/to-local`)))
      const metadata = answered(yield* send(message(`${receiver.origin}/to-metadata`)))
      expect(local.status).toBe(302)
      expect(metadata.status).toBe(302)
      expect(receiver.requests).toHaveLength(2)
      expect(elsewhere.requests).toHaveLength(0)
      expect(elsewhere.connections().opened).toBe(0)
    }))

  it.scopedLive("a receiver that never answers: no answer, 'timed out' at the time-out, and its socket is closed", () =>
    Effect.gen(function*() {
      // The receiver never answers: only the send's own time-out can end the send.
      const receiver = yield* startReceiver(() => "hang")
      const result = yield* send(message(`${receiver.origin}/`), { allowPrivateTargets: true, timeoutMs: 300 })
      expect(noAnswer(result).error).toBe("timed out after 300 ms")
      expect(result.durationMs).toBeGreaterThanOrEqual(290)
      yield* eventually(() => receiver.connections().closed === 1)
      expect(receiver.connections()).toEqual({ opened: 1, closed: 1 })
    }))

  it.scopedLive("a body that never ends does not hold the attempt past the time-out; the status counts", () =>
    Effect.gen(function*() {
      // Headers sent, then a body that never ends: the status counts, the wait does not go on.
      const receiver = yield* startReceiver((_, res) => {
        res.writeHead(200, { "content-type": "text/plain" })
        res.write("still thinking")
        return "hang"
      })
      // The body never ends: a send that waited for it would never end either.
      const result = yield* send(message(`${receiver.origin}/`), { allowPrivateTargets: true, timeoutMs: 300 })
      expect(answered(result).status).toBe(200)
      yield* eventually(() => receiver.connections().closed === 1)
      expect(receiver.connections().closed).toBe(1)
    }))

  it.scopedLive("interrupting a send aborts the request and closes its socket", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => "hang")
      const fiber = yield* Effect.fork(send(message(`${receiver.origin}/`)))
      yield* eventually(() => receiver.requests.length === 1)
      yield* Fiber.interrupt(fiber)
      yield* eventually(() => receiver.connections().closed === 1)
      expect(receiver.connections()).toEqual({ opened: 1, closed: 1 })
    }))

  it.scopedLive("a refused connection is no answer, saying so", () =>
    Effect.gen(function*() {
      const port = yield* freePort
      const result = noAnswer(yield* send(message(`http://127.0.0.1:${port}/`)))
      expect(result.error).toBe("connection refused (ECONNREFUSED)")
    }))

  it.scopedLive("https to a server that does not speak TLS is no answer, as a TLS error", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const result = noAnswer(yield* send(message(`https://127.0.0.1:${receiver.port}/`)))
      // OpenSSL's reason ("wrong version number"), without its file and line.
      expect(result.error).toMatch(/^TLS error: [^:]+$/)
    }))

  it.scopedLive("a 10 MB answer is not read: the result comes at once and the connection is dropped", () =>
    Effect.gen(function*() {
      const huge = Buffer.alloc(10 * 1024 * 1024, "x")
      const receiver = yield* startReceiver((_, res) => {
        res.writeHead(200, { "content-type": "text/plain", "content-length": String(huge.length) })
        res.on("error", () => undefined)
        res.end(huge)
      })
      const result = yield* send(message(`${receiver.origin}/`))
      expect(answered(result).status).toBe(200)
      // Only the start of it is handed on, for the attempt's excerpt.
      expect(answered(result).body).toBe("x".repeat(1_024))
      yield* eventually(() => receiver.connections().closed === 1)
      expect(receiver.connections().closed).toBe(1)
    }))

  it.scopedLive("a small answer is read to its end and the connection kept for the next delivery", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver((_, res) => void res.writeHead(200).end("ok Zoë"))
      const twice = Effect.gen(function*() {
        const transport = yield* WebhookTransport
        expect(answered(yield* transport.send(message(`${receiver.origin}/a`))).body).toBe("ok Zoë")
        answered(yield* transport.send(message(`${receiver.origin}/b`)))
      })
      yield* Effect.provide(twice, makeHttpWebhookTransport({ allowPrivateTargets: true }))
      expect(receiver.requests.map((r) => r.path)).toEqual(["/a", "/b"])
      expect(receiver.connections().opened).toBe(1)
    }))
})

describe("HTTP webhook transport: the SSRF guard", () => {
  const guarded = (lookup: LookupFn = scriptedResolver([PUBLIC_V4]).lookup): TransportOptions => ({
    allowPrivateTargets: false,
    lookup
  })

  it.scopedLive("a loopback target is refused without a connection", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      for (const url of [`${receiver.origin}/`, `http://[::ffff:127.0.0.1]:${receiver.port}/`, `http://2130706433:${receiver.port}/`]) {
        const result = noAnswer(yield* send(message(url), guarded()))
        expect(result.error).toContain("refused target")
        expect(result.error).toContain("127.0.0.1")
        expect(result.error).toContain("a loopback address")
      }
      const named = noAnswer(yield* send(message(`http://localhost:${receiver.port}/`), guarded()))
      expect(named.error).toContain("host localhost is a loopback name")
      expect(receiver.connections().opened).toBe(0)
    }))

  it.live("checkTarget refuses loopback, private, link-local, metadata and odd schemes, naming why", () =>
    Effect.gen(function*() {
      const resolver = scriptedResolver([PUBLIC_V4])
      const refused: ReadonlyArray<readonly [string, string]> = [
        ["http://127.0.0.1/", "127.0.0.1, a loopback address"],
        ["http://10.1.2.3/", "10.1.2.3, a private address"],
        ["http://172.16.0.1/", "172.16.0.1, a private address"],
        ["http://192.168.1.1/", "192.168.1.1, a private address"],
        ["http://169.254.169.254/latest/meta-data/", "169.254.169.254, a cloud metadata address"],
        ["http://100.64.0.1/", "100.64.0.1, a carrier-grade NAT address"],
        ["http://0.0.0.0/", "0.0.0.0, an unspecified address"],
        ["http://[::1]/", "::1, a loopback address"],
        ["http://[::ffff:127.0.0.1]/", "(127.0.0.1), a loopback address"],
        ["http://[::ffff:7f00:1]/", "(127.0.0.1), a loopback address"],
        ["http://[fd00:ec2::254]/", "fd00:ec2::254, a cloud metadata address"],
        ["http://[fe80::1]/", "fe80::1, a link-local address"],
        ["http://2130706433/", "127.0.0.1, a loopback address"],
        ["http://017700000001/", "127.0.0.1, a loopback address"],
        ["http://0x7f.0.0.1/", "127.0.0.1, a loopback address"],
        ["http://0177.0.0.1/", "127.0.0.1, a loopback address"],
        ["http://127.1/", "127.0.0.1, a loopback address"],
        ["http://localhost:8080/", "localhost is a loopback name"],
        ["http://metadata.google.internal/computeMetadata/v1/", "metadata.google.internal is a cloud metadata name"],
        ["ftp://example.com/hook", "must use http or https"],
        ["file:///etc/passwd", "must use http or https"],
        ["javascript:alert(1)", "must use http or https"]
      ]
      for (const [url, reason] of refused) {
        expect(refusal(yield* checkTarget(url, guarded(resolver.lookup))), url).toContain(reason)
      }
      // None of these needed DNS.
      expect(resolver.calls).toEqual([])
    }))

  it.live("checkTarget accepts a public address, and a hostname that resolves to one", () =>
    Effect.gen(function*() {
      const resolver = scriptedResolver([PUBLIC_V4, "2606:2800:21f:cb07:6820:80da:af6b:8b2c"])
      expect(yield* checkTarget(`https://${PUBLIC_V4}/hook`, guarded(resolver.lookup))).toEqual(Either.right(undefined))
      expect(yield* checkTarget("https://hooks.example.com/roster", guarded(resolver.lookup))).toEqual(
        Either.right(undefined)
      )
      expect(resolver.calls).toEqual(["hooks.example.com"])
    }))

  it.live("checkTarget refuses a hostname when any address it resolves to is private", () =>
    Effect.gen(function*() {
      const mixed = scriptedResolver([PUBLIC_V4, "10.0.0.5"])
      const reason = refusal(yield* checkTarget("https://mixed.example.com/", guarded(mixed.lookup)))
      expect(reason).toBe(
        "host mixed.example.com resolves to 10.0.0.5, a private address; set WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow it"
      )
    }))

  it.live("checkTarget refuses a host that does not resolve, saying so", () =>
    Effect.gen(function*() {
      expect(refusal(yield* checkTarget("https://nowhere.example.com/", guarded(notFound)))).toBe(
        "host nowhere.example.com does not resolve (ENOTFOUND)"
      )
      expect(refusal(yield* checkTarget("https://empty.example.com/", guarded(scriptedResolver([]).lookup)))).toBe(
        "host empty.example.com does not resolve"
      )
    }))

  it.scopedLive("DNS rebinding: a name that was public at check time and loopback at send time is refused at send", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const rebinding = scriptedResolver([PUBLIC_V4], ["127.0.0.1"])
      const url = `http://rebind.example.com:${receiver.port}/hook`
      const both = Effect.gen(function*() {
        const transport = yield* WebhookTransport
        yield* transport.checkTarget(url, "url")
        return yield* transport.send(message(url))
      })
      const result = noAnswer(yield* Effect.provide(both, makeHttpWebhookTransport(guarded(rebinding.lookup))))
      expect(result.error).toBe(
        "refused target: host rebind.example.com resolves to 127.0.0.1, a loopback address; set WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow it"
      )
      expect(rebinding.calls).toEqual(["rebind.example.com", "rebind.example.com"])
      expect(receiver.connections().opened).toBe(0)
    }))

  it.scopedLive("a name that resolves to a public and a private address is not sent to either", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const mixed = scriptedResolver(["127.0.0.1", PUBLIC_V4])
      const result = noAnswer(yield* send(message(`http://mixed.example.com:${receiver.port}/`), guarded(mixed.lookup)))
      expect(result.error).toContain("resolves to 127.0.0.1, a loopback address")
      expect(receiver.connections().opened).toBe(0)
    }))

  it.scopedLive("a name that does not resolve at send time is no answer, naming the host", () =>
    Effect.gen(function*() {
      const result = noAnswer(yield* send(message("http://nowhere.example.com/"), guarded(notFound)))
      expect(result.error).toContain("nowhere.example.com does not resolve")
    }))

  it.scopedLive("with private targets allowed, loopback works, by address and through a resolved name", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const resolver = scriptedResolver(["127.0.0.1"])
      const options: TransportOptions = { allowPrivateTargets: true, lookup: resolver.lookup }
      expect(yield* checkTarget(`http://127.0.0.1:${receiver.port}/`, options)).toEqual(Either.right(undefined))
      expect(yield* checkTarget("http://localhost/", options)).toEqual(Either.right(undefined))
      expect(refusal(yield* checkTarget("ftp://127.0.0.1/", options))).toBe("must use http or https")
      // Allowing private targets skips DNS at check time.
      expect(resolver.calls).toEqual([])
      answered(yield* send(message(`${receiver.origin}/direct`), options))
      answered(yield* send(message(`http://receiver.test:${receiver.port}/named`), options))
      expect(receiver.requests.map((r) => [r.path, r.headers.host])).toEqual([
        ["/direct", `127.0.0.1:${receiver.port}`],
        ["/named", `receiver.test:${receiver.port}`]
      ])
      expect(resolver.calls).toEqual(["receiver.test"])
    }))
})
