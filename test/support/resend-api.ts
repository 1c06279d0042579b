/**
 * A local server that speaks the part of Resend's HTTP API the service uses, as Resend does:
 * `POST /emails` and `POST /emails/batch` with a Bearer key, JSON bodies checked as Resend checks
 * them (422 `validation_error`), `{id}` and `{data: [{id}, ...]}` answers, and `Idempotency-Key`
 * kept for the server's life (the same key and body answer the first answer again and send
 * nothing; another body is 409 `invalid_idempotent_request`; a key still in use is 409
 * `concurrent_idempotent_requests`). Tests script failures for the next calls (a 429 with
 * `retry-after`, a 500, a 403 `restricted_api_key`, a call held without answer) and read every
 * email it accepted.
 *
 * Its domains API: `POST /domains` (a new domain is `not_started`, with Resend's SPF and DKIM
 * records; a name that is not a domain is 422 `validation_error`, one registered already 403
 * `validation_error`), `GET /domains/{id}`, `POST /domains/{id}/verify` (Resend starts looking:
 * `pending`) and `DELETE /domains/{id}`, an unknown id 404 `not_found`. Tests play the DNS side:
 * `setDomainStatus` moves a domain (and its records) to `verified`, `failed`...
 */
import { createHash, randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface AcceptedEmail {
  readonly id: string
  readonly to: string
  readonly from: string
  readonly subject: string
  readonly html: string | undefined
  readonly text: string | undefined
  readonly headers: Readonly<Record<string, string>>
  /** The call's idempotency key, if it had one. */
  readonly idempotencyKey: string | undefined
  /** Whether it came in a batch call. */
  readonly batched: boolean
  readonly at: number
}

export interface Call {
  readonly method: string
  readonly path: string
  readonly status: number
  /** Emails in the call's body. */
  readonly emails: number
  readonly idempotencyKey: string | undefined
  readonly at: number
}

/**
 * What the next call is answered with instead of being served: an error, no answer at all
 * (`hold`), or the call served but its answer never sent (`accept-and-hold`), as when the caller
 * dies after Resend took the email.
 */
export type ScriptedAnswer =
  | { readonly status: number; readonly name: string; readonly message: string; readonly retryAfterSeconds?: number }
  | "hold"
  | "accept-and-hold"

export interface ResendApi {
  /** `http://127.0.0.1:<port>`: the mailer's RESEND_BASE_URL. */
  readonly url: string
  readonly apiKey: string
  readonly accepted: () => ReadonlyArray<AcceptedEmail>
  readonly calls: () => ReadonlyArray<Call>
  /** The next `times` calls get `answer` (after those scripted before). */
  readonly script: (answer: ScriptedAnswer, times?: number) => void
  /** Calls held so far are dropped without an answer, as a dying connection is. */
  readonly dropHeld: () => void
  /** Answers scripted and not yet given are forgotten: the next calls are served. */
  readonly unscript: () => void
  /** Every domain registered and not removed, as Resend would answer `GET /domains/{id}`. */
  readonly domains: () => ReadonlyArray<StandInDomain>
  /** Moves the domain of this name (and every record of it) to `status`, as Resend does once it looks at the DNS. */
  readonly setDomainStatus: (name: string, status: string) => void
  /** Waits until `count` emails were accepted, or fails after `timeoutMs`. */
  readonly waitForAccepted: (count: number, timeoutMs: number) => Promise<void>
  readonly close: () => Promise<void>
}

const emailPattern = /^[^\s@<>]+@[^\s@<>]+$/

export interface StandInDomain {
  readonly object: "domain"
  readonly id: string
  readonly name: string
  status: string
  readonly created_at: string
  readonly region: string
  readonly capabilities: { readonly sending: string; readonly receiving: string }
  records: Array<Record<string, unknown>>
}

const domainPattern = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/

/** The records Resend gives a new domain: the bounce MX and SPF TXT on `send`, and a DKIM key. */
const recordsFor = (status: string): Array<Record<string, unknown>> => [
  { record: "SPF", name: "send", type: "MX", ttl: "Auto", status, value: "feedback-smtp.us-east-1.amazonses.com", priority: 10 },
  { record: "SPF", name: "send", type: "TXT", ttl: "Auto", status, value: "\"v=spf1 include:amazonses.com ~all\"" },
  { record: "DKIM", name: "resend._domainkey", type: "TXT", ttl: "Auto", status, value: `p=MIGfMA0GCSqGSIb3DQEBAQUAA4GN${randomUUID().replaceAll("-", "")}` }
]

const addressOf = (to: string) => /<([^<>]+)>\s*$/.exec(to)?.[1] ?? to

/** Why Resend would refuse one email of a body, or undefined. */
const invalid = (email: unknown): string | undefined => {
  if (typeof email !== "object" || email === null || Array.isArray(email)) return "The email must be an object."
  const e = email as Record<string, unknown>
  if (typeof e.from !== "string" || e.from === "") return "The `from` field is required."
  const to = Array.isArray(e.to) ? e.to : [e.to]
  if (to.length === 0 || !to.every((t) => typeof t === "string" && emailPattern.test(addressOf(t)))) {
    return "Invalid `to` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format."
  }
  if (typeof e.subject !== "string" || e.subject === "") return "The `subject` field is required."
  if (typeof e.html !== "string" && typeof e.text !== "string") return "Either `html` or `text` is required."
  if (e.headers !== undefined && (typeof e.headers !== "object" || e.headers === null)) return "Invalid `headers` field."
  return undefined
}

export const startResendApi = async (options: { readonly apiKey?: string; readonly port?: number } = {}): Promise<ResendApi> => {
  const apiKey = options.apiKey ?? `re_${randomUUID().replaceAll("-", "")}`
  const accepted: Array<AcceptedEmail> = []
  const calls: Array<Call> = []
  const scripted: Array<ScriptedAnswer> = []
  const held = new Set<ServerResponse>()
  const keys = new Map<string, { readonly digest: string; answer?: { status: number; json: unknown } }>()
  const waiters: Array<() => void> = []

  const answer = (res: ServerResponse, status: number, json: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(json))
  }
  const error = (res: ServerResponse, status: number, name: string, message: string, headers: Record<string, string> = {}) =>
    answer(res, status, { statusCode: status, name, message }, headers)

  const serve = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const path = req.url ?? "/"
    const idempotencyKey = typeof req.headers["idempotency-key"] === "string" ? req.headers["idempotency-key"] : undefined
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    const batch = path === "/emails/batch"
    const domainPath = /^\/domains(?:\/([^/]+)(\/verify)?)?$/.exec(path)
    const emails: ReadonlyArray<unknown> = domainPath !== null ? [] : batch ? (Array.isArray(body) ? body : []) : [body]
    const record = (status: number) =>
      calls.push({ method: req.method ?? "GET", path, status, emails: emails.length, idempotencyKey, at: Date.now() })

    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      record(401)
      return error(res, 401, "invalid_api_key", "API key is invalid")
    }
    if (domainPath === null && (req.method !== "POST" || (path !== "/emails" && !batch))) {
      record(404)
      return error(res, 404, "not_found", "The requested endpoint does not exist.")
    }
    const next = scripted.shift()
    const holdAnswer = next === "accept-and-hold"
    if (next === "hold") {
      record(0)
      held.add(res)
      return
    }
    if (next !== undefined && next !== "accept-and-hold") {
      record(next.status)
      return error(
        res,
        next.status,
        next.name,
        next.message,
        next.retryAfterSeconds === undefined ? {} : { "retry-after": String(next.retryAfterSeconds) }
      )
    }
    if (domainPath !== null) {
      return serveDomain(req.method ?? "GET", domainPath[1], domainPath[2] !== undefined, body, res, record)
    }
    const digest = createHash("sha256").update(`${path}\n${text}`).digest("hex")
    if (idempotencyKey !== undefined) {
      const seen = keys.get(idempotencyKey)
      if (seen !== undefined) {
        if (seen.digest !== digest) {
          record(409)
          return error(res, 409, "invalid_idempotent_request", "Same idempotency key used with a different request payload.")
        }
        if (seen.answer === undefined) {
          record(409)
          return error(res, 409, "concurrent_idempotent_requests", "Same idempotency key used while the original request is still in progress.")
        }
        record(seen.answer.status)
        return answer(res, seen.answer.status, seen.answer.json)
      }
    }
    const problem = batch && !Array.isArray(body)
      ? "The batch must be an array of emails."
      : batch && emails.length > 100
      ? "The batch may hold at most 100 emails."
      : emails.map(invalid).find((p) => p !== undefined)
    if (problem !== undefined) {
      record(422)
      return error(res, 422, "validation_error", problem)
    }
    const made = emails.map((raw) => {
      const e = raw as Record<string, unknown>
      const email: AcceptedEmail = {
        id: randomUUID(),
        to: Array.isArray(e.to) ? String(e.to[0]) : String(e.to),
        from: String(e.from),
        subject: String(e.subject),
        html: typeof e.html === "string" ? e.html : undefined,
        text: typeof e.text === "string" ? e.text : undefined,
        headers: (e.headers ?? {}) as Record<string, string>,
        idempotencyKey,
        batched: batch,
        at: Date.now()
      }
      accepted.push(email)
      return email
    })
    const json = batch ? { data: made.map((e) => ({ id: e.id })) } : { id: made[0]!.id }
    if (idempotencyKey !== undefined) keys.set(idempotencyKey, { digest, answer: { status: 200, json } })
    record(200)
    if (holdAnswer) held.add(res)
    else answer(res, 200, json)
    for (const wake of waiters.splice(0)) wake()
  }

  const domains = new Map<string, StandInDomain>()

  const serveDomain = (
    method: string,
    id: string | undefined,
    verify: boolean,
    body: unknown,
    res: ServerResponse,
    record: (status: number) => void
  ) => {
    if (id === undefined) {
      if (method !== "POST") {
        record(405)
        return error(res, 405, "method_not_allowed", "Method is not allowed for the requested path.")
      }
      const name = typeof body === "object" && body !== null ? (body as Record<string, unknown>).name : undefined
      if (typeof name !== "string" || !domainPattern.test(name)) {
        record(422)
        return error(res, 422, "validation_error", "The `name` field must be a valid domain name.")
      }
      if ([...domains.values()].some((d) => d.name === name)) {
        record(403)
        return error(res, 403, "validation_error", `The ${name} domain has been registered already.`)
      }
      const domain: StandInDomain = {
        object: "domain",
        id: randomUUID(),
        name,
        status: "not_started",
        created_at: new Date().toISOString(),
        region: "us-east-1",
        capabilities: { sending: "enabled", receiving: "disabled" },
        records: recordsFor("not_started")
      }
      domains.set(domain.id, domain)
      record(201)
      const { object: _object, ...created } = domain
      return answer(res, 201, created)
    }
    const domain = domains.get(id)
    if (domain === undefined) {
      record(404)
      return error(res, 404, "not_found", "Domain not found")
    }
    if (verify && method === "POST") {
      if (domain.status !== "verified") {
        domain.status = "pending"
        domain.records = domain.records.map((r) => ({ ...r, status: "pending" }))
      }
      record(200)
      return answer(res, 200, { object: "domain", id })
    }
    if (!verify && method === "GET") {
      record(200)
      return answer(res, 200, domain)
    }
    if (!verify && method === "DELETE") {
      domains.delete(id)
      record(200)
      return answer(res, 200, { object: "domain", id, deleted: true })
    }
    record(405)
    return error(res, 405, "method_not_allowed", "Method is not allowed for the requested path.")
  }

  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => serve(req, res, Buffer.concat(chunks).toString("utf8")))
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    accepted: () => [...accepted],
    calls: () => [...calls],
    script: (next, times = 1) => {
      for (let i = 0; i < times; i++) scripted.push(next)
    },
    dropHeld: () => {
      for (const res of held) res.destroy()
      held.clear()
    },
    unscript: () => {
      scripted.length = 0
    },
    domains: () => [...domains.values()].map((d) => ({ ...d, records: d.records.map((r) => ({ ...r })) })),
    setDomainStatus: (name, status) => {
      for (const domain of domains.values()) {
        if (domain.name !== name) continue
        domain.status = status
        domain.records = domain.records.map((r) => ({ ...r, status }))
      }
    },
    waitForAccepted: async (count, timeoutMs) => {
      const deadline = Date.now() + timeoutMs
      while (accepted.length < count) {
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`the Resend stand-in accepted ${accepted.length} emails, not ${count}, within ${timeoutMs} ms`)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 200))
          waiters.push(() => {
            clearTimeout(timer)
            resolve()
          })
        })
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
