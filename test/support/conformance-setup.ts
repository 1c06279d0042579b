/**
 * Every answer the test support's servers give to `fetch` in a test file is checked, once the
 * file's tests are done, against the OpenAPI document of the form that answered
 * (test/support/openapi-conformance.ts). A file whose answers the document does not declare fails
 * with one paragraph per answer: method, path, status, operation and what was wrong.
 *
 * Runs before every test file (vitest `setupFiles`); files that start no server pay for one
 * wrapped `fetch` and nothing else. Where files share a worker and its modules, each file wraps
 * the runtime's own `fetch` again (not the wrapper of the file before) and the checkers built for
 * one file serve the next.
 */
import { afterAll } from "vitest"
import { watchedServers } from "./conformance-servers.js"
import type { ConformanceChecker, Exchange, Mismatch, WireForm } from "./openapi-conformance.js"

const originalFetchKey = Symbol.for("roster.test.original-fetch")
const checkersKey = Symbol.for("roster.test.conformance-checkers")

/** How long the check waits for bodies still being read (an answer the test never finished reading). */
const BODY_WAIT_MS = 5_000

const requestOf = (input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]) => {
  const url = input instanceof Request ? input.url : String(input)
  const method = init?.method ?? (input instanceof Request ? input.method : "GET")
  return { url, method: method.toUpperCase() }
}

const pending: Array<Promise<Exchange>> = []
const shared = globalThis as {
  [originalFetchKey]?: typeof fetch
  [checkersKey]?: Map<WireForm, ConformanceChecker>
}
const originalFetch = (shared[originalFetchKey] ??= globalThis.fetch)

globalThis.fetch = async (input, init) => {
  const response = await originalFetch(input, init)
  const asked = requestOf(input, init)
  // A followed redirect is answered by the last request: a GET unless the first one was a HEAD.
  const url = response.redirected ? response.url : asked.url
  const method = response.redirected && asked.method !== "HEAD" ? "GET" : asked.method
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  const form = parsed === undefined ? undefined : watchedServers().get(parsed.origin)
  if (form !== undefined && parsed !== undefined) {
    const copy = response.clone()
    const base = { form, method, url: `${parsed.pathname}${parsed.search}`, status: response.status, headers: response.headers }
    pending.push(copy.text().then((body) => ({ ...base, body }), () => ({ ...base, body: undefined })))
  }
  return response
}

const checkers = (shared[checkersKey] ??= new Map<WireForm, ConformanceChecker>())

const checkerOf = async (form: WireForm): Promise<ConformanceChecker> => {
  const existing = checkers.get(form)
  if (existing !== undefined) return existing
  const { documentOf } = await import("./openapi-documents.js")
  const { makeConformanceChecker } = await import("./openapi-conformance.js")
  const checker = makeConformanceChecker(form, documentOf(form))
  checkers.set(form, checker)
  return checker
}

const within = <A>(promise: Promise<A>, ms: number): Promise<A | undefined> =>
  Promise.race([promise, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref())])

afterAll(async () => {
  if (pending.length === 0) return
  const exchanges = await within(Promise.all(pending.map((p) => within(p, BODY_WAIT_MS))), BODY_WAIT_MS + 1_000)
  pending.length = 0
  const mismatches: Array<Mismatch> = []
  for (const exchange of exchanges ?? []) {
    if (exchange === undefined) continue
    const mismatch = (await checkerOf(exchange.form)).check(exchange)
    if (mismatch !== undefined) mismatches.push(mismatch)
  }
  if (mismatches.length > 0) {
    const { describeMismatches } = await import("./openapi-conformance.js")
    throw new Error(
      `${mismatches.length} answer(s) of this file are not what the OpenAPI document declares:\n${describeMismatches(mismatches)}`
    )
  }
}, 60_000)
