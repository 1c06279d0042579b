/**
 * What the HTTP suites share: checks of problem answers and short ways to make subscribers and
 * tags through the API itself.
 */
import { errorCatalog, type ErrorCode } from "../../adapters/http/index.js"
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
