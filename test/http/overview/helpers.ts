/**
 * What the overview-form suites share: checks of the `error` envelope and short ways to make
 * subscribers and tags through the API itself.
 */
import { expect } from "vitest"
import { errorCatalog, type ErrorCode } from "../../../adapters/http/index.js"
import { type Answer, call, type TestHttpServer } from "../../support/http-server.js"

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
export const isoInstantPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** The answer is the `error` envelope of `code`, with its status, as JSON, and nothing else in the body. */
export const expectError = (answer: Answer, code: ErrorCode) => {
  expect(answer.status, answer.text).toBe(errorCatalog[code].status)
  expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
  expect(Object.keys(answer.body)).toEqual(["error"])
  expect(answer.body.error.code).toBe(code)
  expect(typeof answer.body.error.message).toBe("string")
  expect(answer.body.error.message.length).toBeGreaterThan(0)
  expect(Array.isArray(answer.body.error.details)).toBe(true)
}

/** A 400 `validation_error` whose details name every one of `fields`. */
export const expectInvalid = (answer: Answer, fields: ReadonlyArray<string>) => {
  expectError(answer, "validation_error")
  const named = (answer.body.error.details as Array<{ field: string; message: string }>).map((d) => d.field)
  for (const field of fields) expect(named, answer.text).toContain(field)
  for (const detail of answer.body.error.details) expect(typeof detail.message).toBe("string")
}

let counter = 0
/** An email address no other test uses. */
export const freshEmail = (prefix = "reader") => `${prefix}-${Date.now().toString(36)}-${++counter}@example.com`
/** A tag name no other test uses. */
export const freshTagName = (prefix = "Tag") => `${prefix} ${Date.now().toString(36)} ${++counter}`

/** A subscriber made through the API; its `data`. */
export const createSubscriber = async (
  server: Pick<TestHttpServer, "baseUrl">,
  key: string,
  json: Record<string, unknown> = {}
) => {
  const answer = await call(server, "POST", "/v1/subscribers", { key, json: { email: freshEmail(), ...json } })
  expect(answer.status, answer.text).toBe(201)
  return answer.body.data
}

/** A tag made through the API; its `data`. */
export const createTag = async (server: Pick<TestHttpServer, "baseUrl">, key: string, json: Record<string, unknown> = {}) => {
  const answer = await call(server, "POST", "/v1/tags", { key, json: { name: freshTagName(), ...json } })
  expect(answer.status, answer.text).toBe(201)
  return answer.body.data
}
