import * as http from "node:http"
/**
 * What the HTTP suites share: checks of problem answers, short ways to make subscribers and tags
 * through the API itself, and local receivers of outgoing webhooks.
 */
import { OrganizationRepository } from "@roster/application"
import { planLimits } from "@roster/domain"
import { Effect } from "effect"
import { errorCatalog, type ErrorCode } from "../../adapters/http/index.js"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { expect } from "vitest"
import { type Answer, call, type TestHttpServer } from "../support/http-server.js"

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
export const isoInstantPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** The errors base the servers of these suites use when not told otherwise (PORT unset). */
export const defaultErrorsBase = "http://localhost:3000/errors"

/**
 * The answer is a problem of `code`: its status, `application/problem+json`, and every field of
 * RFC 9457 with `instance` the request path.
 */
export const expectProblem = (
  answer: Answer,
  code: ErrorCode,
  instance: string,
  errorsBase: string = defaultErrorsBase
) => {
  const entry = errorCatalog[code]
  expect(answer.status, answer.text).toBe(entry.status)
  expect(answer.headers.get("content-type")).toMatch(/^application\/problem\+json/)
  expect(answer.body).toMatchObject({
    type: `${errorsBase}/${code}`,
    title: entry.title,
    status: entry.status,
    instance
  })
  expect(typeof answer.body.detail).toBe("string")
  expect(answer.body.detail.length).toBeGreaterThan(0)
}

/** A 400 whose detail and errors list name every one of `fields`. */
export const expectInvalid = (answer: Answer, instance: string, fields: ReadonlyArray<string>) => {
  expectProblem(answer, "validation_error", instance)
  const named = (answer.body.errors as Array<{ field: string; message: string }>).map((e) => e.field)
  for (const field of fields) {
    expect(named, answer.text).toContain(field)
    expect(answer.body.detail).toContain(`${field}:`)
  }
}

let counter = 0
/** An email address no other test uses. */
export const freshEmail = (prefix = "reader") => `${prefix}-${Date.now().toString(36)}-${++counter}@example.com`

/** A tag name no other test uses. */
export const freshTagName = (prefix = "Digest") => `${prefix} ${Date.now().toString(36)} ${++counter}`

export const createSubscriber = async (
  server: TestHttpServer,
  key: string,
  body: Record<string, unknown> = {}
) => {
  const answer = await call(server, "POST", "/api/v1/subscribers", { key, json: { email: freshEmail(), ...body } })
  expect(answer.status, answer.text).toBe(201)
  return answer.body
}

export const createTag = async (server: TestHttpServer, key: string, body: Record<string, unknown> = {}) => {
  const answer = await call(server, "POST", "/api/v1/tags", { key, json: { name: freshTagName(), ...body } })
  expect(answer.status, answer.text).toBe(201)
  return answer.body
}

/** One request a {@link Receiver} got. */
export interface ReceivedRequest {
  readonly method: string
  readonly url: string
  /** Header names in lower case, as node gives them. */
  readonly headers: Record<string, string>
  readonly body: string
}

/** A local HTTP server standing in for a webhook receiver. */
export interface Receiver {
  /** `http://127.0.0.1:<port>/hooks`. */
  readonly url: string
  readonly received: ReadonlyArray<ReceivedRequest>
  readonly close: () => Promise<void>
}

/** Starts a receiver on a free loopback port that answers every request with `status` (200 unless told). */
export const startReceiver = async (status: (request: ReceivedRequest) => number = () => 200): Promise<Receiver> => {
  const received: Array<ReceivedRequest> = []
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : value ?? ""])
      )
      const got = { method: request.method ?? "", url: request.url ?? "", headers, body: Buffer.concat(chunks).toString("utf8") }
      received.push(got)
      response.writeHead(status(got), { "content-type": "text/plain" }).end("ok")
    })
  })
  const port = await listenOnLoopback(server)
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => closeServer(server)
  }
}

/** A loopback URL where nothing listens: connections to it are refused. */
export const closedPortUrl = async (): Promise<string> => {
  const server = createServer()
  const port = await listenOnLoopback(server)
  await closeServer(server)
  return `http://127.0.0.1:${port}/hooks`
}

const listenOnLoopback = (server: Server): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
  })

/** Closes the server with its kept-alive connections (the webhook transport pools them). */
const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })

/**
 * Sends `size` bytes to `path` in 64 KiB chunks (Transfer-Encoding: chunked) on one kept-alive
 * connection, then a GET of `nextPath` on the same connection.
 */
export const sendChunked = (port: number, path: string, apiKey: string, size: number, nextPath: string) =>
  new Promise<{ status: number; body: string; next: number }>((resolve, reject) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const request = http.request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path,
      agent,
      headers: { "content-type": "application/json", "x-api-key": apiKey }
    }, (response) => {
      let body = ""
      response.on("data", (chunk) => (body += chunk))
      response.on("end", () => {
        http.get({ host: "127.0.0.1", port, path: nextPath, agent, headers: { "x-api-key": apiKey } }, (next) => {
          next.resume()
          next.on("end", () => {
            agent.destroy()
            resolve({ status: response.statusCode!, body, next: next.statusCode! })
          })
        }).on("error", reject)
      })
    })
    request.on("error", reject)
    const chunk = Buffer.alloc(64 * 1024, "a")
    let written = 0
    const write = () => {
      while (written < size) {
        written += chunk.length
        if (!request.write(chunk)) return void request.once("drain", write)
      }
      request.end()
    }
    write()
  })

/** A free organization whose count already stands at the free plan's limit of subscribers. */
export const fullFreeOrganization = async (on: TestHttpServer) => {
  const seeded = await on.seedOrganization({ tier: "free" })
  const reserved = await on.run(Effect.flatMap(OrganizationRepository, (repository) =>
    repository.reserveSubscriberSlots(seeded.organization.id, planLimits.free.maxSubscribers!, null)))
  expect(reserved).toBe(true)
  return seeded
}
