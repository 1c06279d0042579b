/**
 * The API's documentation pages, `/docs` (Swagger UI) and `/redoc`, opened in Chromium through the
 * real server of each deployment (the reference and the overview wire form): every request the
 * pages make goes to the server's own origin (no CDN, no font or logo from elsewhere, no online
 * validator), they render the running form's operations, the console shows no error, and
 * axe-core finds no serious or critical violation at 1280 and 375 px.
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, chromiumPath, chromiumSuite, launchChromium, seriousViolations } from "../support/chromium.js"
import { startHttpServer, type TestHttpServer } from "../support/http-server.js"

type FormName = "reference" | "overview"
const deployments: ReadonlyArray<{ readonly form: FormName; readonly api: string }> = [
  { form: "reference", api: "/api/v1" },
  { form: "overview", api: "/v1" }
]

let servers: Partial<Record<FormName, TestHttpServer>> = {}
let browser: Browser

beforeAll(async () => {
  if (!chromiumAvailable) return
  const [reference, overview] = await Promise.all([startHttpServer(), startHttpServer({ form: "overview" })])
  servers = { reference: reference!, overview: overview! }
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await Promise.all(Object.values(servers).map((server) => server.close()))
})

interface Visit {
  /** Every URL the page asked for, the page itself included. */
  readonly requests: ReadonlyArray<string>
  /** Console errors and uncaught exceptions. */
  readonly errors: ReadonlyArray<string>
  /** Requests that failed or were answered 400 or above. */
  readonly failures: ReadonlyArray<string>
  /** The serious and critical axe-core violations of the rendered page. */
  readonly violations: ReadonlyArray<string>
}

/**
 * Opens `url` at `width` px, lets `rendered` wait for the page's content, and says what the page
 * asked for, what went wrong, and what axe-core finds once the page is quiet.
 */
const visit = async (url: string, width: number, rendered: (page: Page) => Promise<void>): Promise<Visit> => {
  const context = await browser.newContext({ viewport: { width, height: 900 } })
  const requests: Array<string> = []
  const errors: Array<string> = []
  const failures: Array<string> = []
  try {
    const page = await context.newPage()
    page.on("request", (request) => void requests.push(request.url()))
    page.on("requestfailed", (request) => void failures.push(`${request.url()}: ${request.failure()?.errorText}`))
    page.on("response", (response) => {
      if (response.status() >= 400) failures.push(`${response.url()}: ${response.status()}`)
    })
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text())
    })
    page.on("pageerror", (error) => void errors.push(String(error)))
    await page.goto(url, { waitUntil: "load" })
    await rendered(page)
    // Whatever the renderer fetches once it has drawn (images, fonts) has been asked for by now.
    await page.waitForLoadState("networkidle")
    return { requests: [...requests], errors: [...errors], failures: [...failures], violations: await seriousViolations(page) }
  } finally {
    await context.close()
  }
}

const elsewhere = (visit: Visit, origin: string) => visit.requests.filter((url) => !url.startsWith("data:") && new URL(url).origin !== origin)

/** Each page is opened once per width: the widest visit checks what it loads, every visit checks axe-core. */
const widths = [1280, 375] as const

describe(chromiumSuite(`the API's documentation pages in Chromium (${chromiumPath})`), () => {
  for (const { form, api } of deployments) {
    describe(`the ${form} form`, () => {
      it("/docs at 1280 px renders the form's own operations from this server alone, without console errors or a serious axe violation", async () => {
        const server = servers[form]!
        let paths: ReadonlyArray<string> = []
        const seen = await visit(`${server.baseUrl}/docs`, widths[0], async (page) => {
          await page.locator(".opblock").first().waitFor({ state: "visible", timeout: 30_000 })
          paths = await page.locator(".opblock-summary-path").allInnerTexts()
        })
        expect(paths.some((path) => path.replace(/\u200b/g, "").startsWith(`${api}/subscribers`))).toBe(true)
        expect(elsewhere(seen, server.baseUrl)).toEqual([])
        expect(seen.requests).toContain(`${server.baseUrl}/openapi.json`)
        expect(seen.errors).toEqual([])
        expect(seen.failures).toEqual([])
        expect(seen.violations).toEqual([])
      }, 120_000)

      it("/redoc at 1280 px renders the document from this server alone, without console errors or a serious axe violation", async () => {
        const server = servers[form]!
        const seen = await visit(`${server.baseUrl}/redoc`, widths[0], async (page) => {
          await page.locator("h1", { hasText: "Roster API" }).first().waitFor({ state: "visible", timeout: 30_000 })
          await page.getByText(`${api}/subscribers`, { exact: false }).first().waitFor({ state: "attached", timeout: 30_000 })
        })
        expect(elsewhere(seen, server.baseUrl)).toEqual([])
        expect(seen.requests).toContain(`${server.baseUrl}/openapi.json`)
        expect(seen.errors).toEqual([])
        expect(seen.failures).toEqual([])
        expect(seen.violations).toEqual([])
      }, 120_000)

      const rendered = {
        "/docs": (page: Page) => page.locator(".opblock").first().waitFor({ state: "visible", timeout: 30_000 }),
        "/redoc": (page: Page) => page.locator("h1", { hasText: "Roster API" }).first().waitFor({ state: "attached", timeout: 30_000 })
      }
      for (const path of ["/docs", "/redoc"] as const) {
        it(`${path} has no serious axe violation at ${widths[1]} px`, async () => {
          const seen = await visit(`${servers[form]!.baseUrl}${path}`, widths[1], rendered[path])
          expect(seen.violations).toEqual([])
        }, 120_000)
      }
    })
  }
})
