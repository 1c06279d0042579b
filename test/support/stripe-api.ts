/**
 * A local server that speaks the part of Stripe's HTTP API the service uses, as Stripe does:
 * form-encoded bodies with a Bearer secret key; `POST /v1/customers` (with `Idempotency-Key`: the
 * same key answers the first answer again and makes nothing), `POST /v1/checkout/sessions`,
 * `POST /v1/billing_portal/sessions`, `GET /v1/subscriptions/:id` and `GET /v1/subscriptions`;
 * Stripe's error answers (400 `invalid_request_error` naming the param, 401 for a key it does not
 * know, 404 for an object it does not have). Tests script failures of the next calls (a 5xx, which
 * Stripe marks `Stripe-Should-Retry: false`), play the customer's part (a checkout completed, a
 * subscription changed), and build events signed as Stripe signs them, with the SDK's test helper.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import Stripe from "stripe"

export interface StripeCall {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly idempotencyKey: string | undefined
  /** The form body (or query), flat: `line_items[0][price]` and so on. */
  readonly params: Readonly<Record<string, string>>
}

export interface StripeCustomer {
  readonly id: string
  readonly object: "customer"
  readonly name: string | null
  readonly metadata: Record<string, string>
  readonly created: number
}

export interface StripeCheckoutSession {
  readonly id: string
  readonly object: "checkout.session"
  readonly url: string
  readonly mode: string
  readonly customer: string
  readonly client_reference_id: string | null
  readonly success_url: string
  readonly cancel_url: string | null
  readonly metadata: Record<string, string>
  /** The price of its one line item. */
  readonly price: string
  /** Metadata the subscription it makes will carry. */
  readonly subscriptionMetadata: Record<string, string>
  status: "open" | "complete"
  subscription: string | null
}

export type SubscriptionStatus =
  | "incomplete"
  | "incomplete_expired"
  | "trialing"
  | "active"
  | "past_due"
  | "canceled"
  | "unpaid"
  | "paused"

export interface StripeSubscription {
  readonly id: string
  readonly object: "subscription"
  readonly customer: string
  status: SubscriptionStatus
  cancel_at_period_end: boolean
  readonly created: number
  readonly metadata: Record<string, string>
  items: {
    readonly object: "list"
    data: Array<{
      readonly id: string
      readonly object: "subscription_item"
      price: { readonly id: string; readonly object: "price" }
      current_period_start: number
      current_period_end: number
    }>
  }
}

/** A failure answered to the next call instead of serving it. */
export interface ScriptedFailure {
  readonly status: number
  readonly type?: string
  readonly message?: string
}

export interface StripeApi {
  /** `http://127.0.0.1:<port>`: the service's STRIPE_API_BASE. */
  readonly url: string
  /** The secret key it accepts (STRIPE_SECRET_KEY). */
  readonly secretKey: string
  /** The secret its events are signed with (STRIPE_WEBHOOK_SECRET). */
  readonly webhookSecret: string
  /** Prices it knows: the service's STRIPE_PRICE_PRO and STRIPE_PRICE_ENTERPRISE, and one of no plan. */
  readonly prices: { readonly pro: string; readonly enterprise: string; readonly other: string }
  readonly calls: () => ReadonlyArray<StripeCall>
  readonly customers: () => ReadonlyArray<StripeCustomer>
  readonly sessions: () => ReadonlyArray<StripeCheckoutSession>
  readonly subscription: (id: string) => StripeSubscription
  /** The next `times` calls are answered `failure`. */
  readonly script: (failure: ScriptedFailure, times?: number) => void
  /** The customer pays: the session's subscription is made (`active` unless told) for a month from `now`. */
  readonly completeCheckout: (
    sessionId: string,
    options?: { readonly status?: SubscriptionStatus; readonly now?: Date }
  ) => StripeSubscription
  /** Changes a subscription as Stripe would (a failed payment, a cancellation, a new price). */
  readonly updateSubscription: (
    id: string,
    changes: {
      readonly status?: SubscriptionStatus
      readonly price?: string
      readonly periodEnd?: Date
      readonly cancelAtPeriodEnd?: boolean
    }
  ) => StripeSubscription
  /** An event as Stripe sends it: `{id, object: "event", type, created, data: {object}}`, made at `created`. */
  readonly event: (type: string, object: unknown, created?: Date) => Record<string, unknown>
  /** The body (a string is taken as it is) and `Stripe-Signature` of an event, signed at `signedAt` (now unless told) with `secret` (the webhook secret unless told). */
  readonly sign: (
    event: unknown,
    options?: { readonly secret?: string; readonly signedAt?: Date }
  ) => { readonly body: string; readonly signature: string }
  readonly close: () => Promise<void>
}

const token = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`

/** Stripe's form encoding read back flat: `a[b][0]=c` stays the key `a[b][0]`. */
const paramsOf = (text: string): Record<string, string> => Object.fromEntries(new URLSearchParams(text))

/** The keys `prefix[...]` as an object: `metadata[organization_id]` -> `{organization_id}` under `metadata`. */
const mapUnder = (params: Readonly<Record<string, string>>, prefix: string): Record<string, string> => {
  const found: Record<string, string> = {}
  for (const [key, value] of Object.entries(params)) {
    if (key.startsWith(`${prefix}[`) && key.endsWith("]") && !key.slice(prefix.length + 1, -1).includes("[")) {
      found[key.slice(prefix.length + 1, -1)] = value
    }
  }
  return found
}

const MONTH_SECONDS = 30 * 24 * 3600

export const startStripeApi = async (): Promise<StripeApi> => {
  const secretKey = `sk_test_${randomBytes(16).toString("hex")}`
  const webhookSecret = `whsec_${randomBytes(24).toString("base64")}`
  const prices = { pro: token("price_pro"), enterprise: token("price_enterprise"), other: token("price_other") }
  const calls: Array<StripeCall> = []
  const customers = new Map<string, StripeCustomer>()
  const sessions = new Map<string, StripeCheckoutSession>()
  const subscriptions = new Map<string, StripeSubscription>()
  const keys = new Map<string, { readonly path: string; readonly status: number; readonly json: unknown }>()
  const scripted: Array<ScriptedFailure> = []

  const send = (res: ServerResponse, status: number, json: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { "content-type": "application/json", "request-id": token("req"), ...headers }).end(JSON.stringify(json))

  const invalid = (message: string, param?: string, code?: string) => ({
    status: 400,
    json: { error: { type: "invalid_request_error", message, ...(param === undefined ? {} : { param }), ...(code === undefined ? {} : { code }) } }
  })
  // An object named in the path that does not exist is 404; one named by a parameter, 400.
  const missing = (kind: string, id: string, param = "id") => ({
    status: param === "id" ? 404 : 400,
    json: { error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${kind}: '${id}'`, param } }
  })

  const knownPrice = (id: string) => Object.values(prices).includes(id)

  const route = (method: string, path: string, params: Record<string, string>): { status: number; json: unknown } => {
    if (method === "POST" && path === "/v1/customers") {
      const customer: StripeCustomer = {
        id: token("cus"),
        object: "customer",
        name: params.name ?? null,
        metadata: mapUnder(params, "metadata"),
        created: Math.floor(Date.now() / 1000)
      }
      customers.set(customer.id, customer)
      return { status: 200, json: customer }
    }
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const customer = params.customer
      if (params.mode !== "subscription") return invalid("Invalid mode: must be one of payment, setup, or subscription", "mode")
      if (params.success_url === undefined) return invalid("Missing required param: success_url.", "success_url")
      if (customer === undefined || !customers.has(customer)) return missing("customer", customer ?? "", "customer")
      const price = params["line_items[0][price]"]
      if (price === undefined || !knownPrice(price)) return missing("price", price ?? "", "line_items[0][price]")
      const id = token("cs_test")
      const session: StripeCheckoutSession = {
        id,
        object: "checkout.session",
        url: `https://checkout.stripe.com/c/pay/${id}`,
        mode: params.mode,
        customer,
        client_reference_id: params.client_reference_id ?? null,
        success_url: params.success_url,
        cancel_url: params.cancel_url ?? null,
        metadata: mapUnder(params, "metadata"),
        price,
        subscriptionMetadata: mapUnder(params, "subscription_data[metadata]"),
        status: "open",
        subscription: null
      }
      sessions.set(id, session)
      const { price: _price, subscriptionMetadata: _metadata, ...json } = session
      return { status: 200, json }
    }
    if (method === "POST" && path === "/v1/billing_portal/sessions") {
      const customer = params.customer
      if (customer === undefined || !customers.has(customer)) return missing("customer", customer ?? "", "customer")
      const id = token("bps")
      return {
        status: 200,
        json: { id, object: "billing_portal.session", customer, return_url: params.return_url ?? null, url: `https://billing.stripe.com/p/session/${id}` }
      }
    }
    if (method === "GET" && path === "/v1/subscriptions") {
      const data = [...subscriptions.values()]
        .filter((s) => params.customer === undefined || s.customer === params.customer)
        .filter((s) => params.status === "all" || s.status !== "canceled")
        .sort((a, b) => b.created - a.created)
      return { status: 200, json: { object: "list", data, has_more: false, url: "/v1/subscriptions" } }
    }
    const one = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)
    if (method === "GET" && one !== null) {
      const found = subscriptions.get(decodeURIComponent(one[1]!))
      return found === undefined ? missing("subscription", one[1]!) : { status: 200, json: found }
    }
    return { status: 404, json: { error: { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` } } }
  }

  const serve = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const method = req.method ?? "GET"
    const url = new URL(req.url ?? "/", "http://stripe.local")
    const params = method === "GET" ? paramsOf(url.search.slice(1)) : paramsOf(text)
    const idempotencyKey = typeof req.headers["idempotency-key"] === "string" ? req.headers["idempotency-key"] : undefined
    const record = (status: number) => calls.push({ method, path: url.pathname, status, idempotencyKey, params })

    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      record(401)
      return send(res, 401, {
        error: { type: "invalid_request_error", message: "Invalid API Key provided: sk_test_****" }
      })
    }
    const failure = scripted.shift()
    if (failure !== undefined) {
      record(failure.status)
      return send(
        res,
        failure.status,
        { error: { type: failure.type ?? "api_error", message: failure.message ?? "An unknown error occurred" } },
        { "stripe-should-retry": "false" }
      )
    }
    if (idempotencyKey !== undefined && method === "POST") {
      const seen = keys.get(idempotencyKey)
      if (seen !== undefined) {
        if (seen.path !== url.pathname) {
          record(400)
          return send(res, 400, {
            error: { type: "idempotency_error", message: "Keys for idempotent requests can only be used for the same endpoint." }
          })
        }
        record(seen.status)
        return send(res, seen.status, seen.json, { "idempotent-replayed": "true" })
      }
    }
    const answer = route(method, url.pathname, params)
    if (idempotencyKey !== undefined && method === "POST" && answer.status < 500) {
      keys.set(idempotencyKey, { path: url.pathname, ...answer })
    }
    record(answer.status)
    send(res, answer.status, answer.json)
  }

  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => serve(req, res, Buffer.concat(chunks).toString("utf8")))
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo

  const subscription = (id: string) => {
    const found = subscriptions.get(id)
    if (found === undefined) throw new Error(`the Stripe stand-in has no subscription ${id}`)
    return found
  }

  return {
    url: `http://127.0.0.1:${port}`,
    secretKey,
    webhookSecret,
    prices,
    calls: () => [...calls],
    customers: () => [...customers.values()],
    sessions: () => [...sessions.values()],
    subscription,
    script: (failure, times = 1) => {
      for (let n = 0; n < times; n++) scripted.push(failure)
    },
    completeCheckout: (sessionId, options = {}) => {
      const session = sessions.get(sessionId)
      if (session === undefined) throw new Error(`the Stripe stand-in has no checkout session ${sessionId}`)
      const start = Math.floor((options.now ?? new Date()).getTime() / 1000)
      const made: StripeSubscription = {
        id: token("sub"),
        object: "subscription",
        customer: session.customer,
        status: options.status ?? "active",
        cancel_at_period_end: false,
        created: start,
        metadata: session.subscriptionMetadata,
        items: {
          object: "list",
          data: [{
            id: token("si"),
            object: "subscription_item",
            price: { id: session.price, object: "price" },
            current_period_start: start,
            current_period_end: start + MONTH_SECONDS
          }]
        }
      }
      subscriptions.set(made.id, made)
      session.status = "complete"
      session.subscription = made.id
      return made
    },
    updateSubscription: (id, changes) => {
      const found = subscription(id)
      if (changes.status !== undefined) found.status = changes.status
      if (changes.cancelAtPeriodEnd !== undefined) found.cancel_at_period_end = changes.cancelAtPeriodEnd
      for (const item of found.items.data) {
        if (changes.price !== undefined) item.price = { id: changes.price, object: "price" }
        if (changes.periodEnd !== undefined) item.current_period_end = Math.floor(changes.periodEnd.getTime() / 1000)
      }
      return found
    },
    event: (type, object, created = new Date()) => ({
      id: token("evt"),
      object: "event",
      api_version: "2026-10-28.endive",
      type,
      created: Math.floor(created.getTime() / 1000),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      // A copy: the object as it is now, not as it changes later.
      data: { object: JSON.parse(JSON.stringify(object)) }
    }),
    sign: (event, options = {}) => {
      const body = typeof event === "string" ? event : JSON.stringify(event, null, 2)
      const signature = Stripe.webhooks.generateTestHeaderString({
        payload: body,
        secret: options.secret ?? webhookSecret,
        timestamp: Math.floor((options.signedAt ?? new Date()).getTime() / 1000)
      })
      return { body, signature }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}
