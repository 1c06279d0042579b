/**
 * `GET /` in both wire forms: a browser is sent to the documentation of the running form, any
 * other client gets the index of where things are, and each path the index names answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { prefersPage } from "../../adapters/http/shared/service-index.js"
import { startHttpServer, type TestHttpServer } from "../support/http-server.js"

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

const deployments = [
  { form: "reference", api: "/api/v1" },
  { form: "overview", api: "/v1" }
] as const

describe("which Accept headers ask for a page", () => {
  it.each([
    [undefined, false],
    ["*/*", false],
    ["application/json", false],
    ["application/json, text/html", false],
    ["application/problem+json, text/html;q=0.9", false],
    ["text/html", true],
    [BROWSER_ACCEPT, true],
    ["TEXT/HTML; charset=utf-8, application/json", true]
  ])("%s: %s", (accept, page) => {
    expect(prefersPage(accept)).toBe(page)
  })
})

for (const { form, api } of deployments) {
  describe(`GET / in the ${form} form`, () => {
    let server: TestHttpServer

    beforeAll(async () => {
      server = await startHttpServer({ form })
    }, 60_000)

    afterAll(() => server?.close())

    it("sends a browser to the dashboard with 303, which asks a visitor to sign in", async () => {
      const answer = await fetch(`${server.baseUrl}/`, { headers: { accept: BROWSER_ACCEPT }, redirect: "manual" })
      expect(answer.status).toBe(303)
      expect(answer.headers.get("location")).toBe("/app")
      await answer.arrayBuffer()
      const followed = await fetch(`${server.baseUrl}/`, { headers: { accept: BROWSER_ACCEPT } })
      expect(followed.url).toBe(`${server.baseUrl}/app/sign-in`)
      expect(followed.headers.get("content-type")).toMatch(/^text\/html/)
      expect(await followed.text()).toContain("<form class=\"stack\" method=\"post\" action=\"/app/sign-in\"")
    })

    for (const accept of [undefined, "application/json", "*/*", "application/json, text/html"]) {
      it(`answers the index as JSON to ${accept === undefined ? "no Accept" : `Accept: ${accept}`}`, async () => {
        const answer = await fetch(`${server.baseUrl}/`, { headers: accept === undefined ? {} : { accept }, redirect: "manual" })
        expect(answer.status).toBe(200)
        expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
        expect(await answer.json()).toMatchObject({
          name: "Roster",
          api,
          openapi: "/openapi.json",
          dashboard: "/app",
          docs: "/docs",
          redoc: "/redoc",
          health: "/health",
          ready: "/ready"
        })
      })
    }

    it("names paths that answer, the OpenAPI document among them describing this form", async () => {
      const index = await (await fetch(`${server.baseUrl}/`)).json() as Record<string, string>
      for (const name of ["openapi", "dashboard", "docs", "redoc", "health", "ready"]) {
        const answer = await fetch(`${server.baseUrl}${index[name]}`)
        expect(answer.status, `${name}: ${index[name]}`).toBe(200)
        await answer.arrayBuffer()
      }
      const document = await (await fetch(`${server.baseUrl}${index.openapi}`)).json() as { paths: Record<string, unknown> }
      expect(Object.keys(document.paths).some((path) => path.startsWith(`${index.api}/`))).toBe(true)
      expect(document.paths["/"]).toBeDefined()
    })

    it("refuses other methods with 405 naming GET", async () => {
      const post = await fetch(`${server.baseUrl}/`, { method: "POST" })
      expect(post.status).toBe(405)
      expect(post.headers.get("allow")).toBe("GET")
      await post.arrayBuffer()
    })
  })
}
