/**
 * The API's documentation pages, `/docs` (Swagger UI) and `/redoc`, opened in Chromium through the
 * real server of each deployment (the reference and the overview wire form): every request the
 * pages make goes to the server's own origin (no CDN, no font or logo from elsewhere, no online
 * validator), they render the running form's operations, the console shows no error, and
 * axe-core finds no serious or critical violation (the reference form's pages at 1280 px, the
 * overview form's at 375 px).
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, chromiumPath, chromiumSuite, launchChromium, seriousViolations, widthsOf } from "../support/chromium.js"
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
  /** The serious and critical axe-core violations of the rendered page, by width. */
  readonly violations: Readonly<Record<number, ReadonlyArray<string>>>
}

/** Resolves once the browser has laid out and painted the page as it now stands. */
const laidOut = "new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))"

/**
 * Opens `url` at the first of `widths`, lets `rendered` wait for the page's content, and says what
 * the page asked for, what went wrong, and what axe-core finds once the page is quiet, at each
 * width. A page is opened once: for a further width the window is narrowed and the page laid out
 * anew (the renderers lay their pages out by the window's width alone, with CSS media queries, and
 * on Redoc's page of some 30,000 elements a second opening costs seconds that show nothing new).
 */
const visit = async (
  url: string,
  widths: ReadonlyArray<number>,
  rendered: (page: Page) => Promise<void>,
  axeOptions: Parameters<typeof seriousViolations>[1] = {}
): Promise<Visit> => {
  const context = await browser.newContext({ viewport: { width: widths[0]!, height: 900 } })
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
    const violations: Record<number, ReadonlyArray<string>> = {}
    for (const [i, width] of widths.entries()) {
      if (i > 0) {
        await page.setViewportSize({ width, height: 900 })
        await page.evaluate(laidOut)
        expect(await page.evaluate("window.innerWidth")).toBe(width)
      }
      // Whatever the renderer fetches once it has drawn at this width (images, fonts) has been asked for by now.
      await page.waitForLoadState("networkidle")
      violations[width] = await seriousViolations(page, axeOptions)
    }
    return { requests: [...requests], errors: [...errors], failures: [...failures], violations }
  } finally {
    await context.close()
  }
}

/**
 * Redoc draws every operation alike from one theme, some 250 sections and 38,000 elements: the
 * rules of colour (text contrast, links told apart from their text) are checked on a sample (the
 * menu, each tag's heading and its first operation), every other rule on the whole page.
 */
const markContrastSample = `(() => {
  const tags = new Set()
  for (const section of document.querySelectorAll("[data-section-id^='tag/']")) {
    const id = section.getAttribute("data-section-id")
    const tag = id.split("/operation/")[0]
    if (!id.includes("/operation/")) section.setAttribute("data-contrast-sample", "")
    else if (!tags.has(tag)) {
      tags.add(tag)
      section.setAttribute("data-contrast-sample", "")
    }
  }
  document.querySelector(".menu-content")?.setAttribute("data-contrast-sample", "")
  return tags.size
})()`

/** No serious or critical violation at any of `widths`. */
const noViolations = (widths: ReadonlyArray<number>) => Object.fromEntries(widths.map((width) => [width, []]))

const elsewhere = (visit: Visit, origin: string) => visit.requests.filter((url) => !url.startsWith("data:") && new URL(url).origin !== origin)

describe(chromiumSuite(`the API's documentation pages in Chromium (${chromiumPath})`), () => {
  for (const { form, api } of deployments) {
    describe(`the ${form} form`, () => {
      const widths = widthsOf(form)
      it(`/docs renders the form's own operations from this server alone, without console errors or a serious axe violation at ${widths.join(" or ")} px`, async () => {
        const server = servers[form]!
        let paths: ReadonlyArray<string> = []
        const seen = await visit(`${server.baseUrl}/docs`, widths, async (page) => {
          // The groups are drawn closed: open the subscribers' one.
          const subscribersGroup = page.locator("#operations-tag-Subscribers")
          await subscribersGroup.waitFor({ state: "visible", timeout: 30_000 })
          await subscribersGroup.click()
          await page.locator(".opblock").first().waitFor({ state: "visible", timeout: 30_000 })
          // Swagger UI draws the operations a few at a time: wait for the form's subscribers to be drawn.
          const subscribersDrawn = `[...document.querySelectorAll(".opblock-summary-path")]
            .some((path) => path.innerText.replace(/\u200b/g, "").startsWith(${JSON.stringify(`${api}/subscribers`)}))`
          await page.waitForFunction(subscribersDrawn, undefined, { timeout: 30_000 }).catch(() => undefined)
          paths = await page.locator(".opblock-summary-path").allInnerTexts()
        })
        expect(paths.some((path) => path.replace(/\u200b/g, "").startsWith(`${api}/subscribers`))).toBe(true)
        expect(elsewhere(seen, server.baseUrl)).toEqual([])
        expect(seen.requests).toContain(`${server.baseUrl}/openapi.json`)
        expect(seen.errors).toEqual([])
        expect(seen.failures).toEqual([])
        expect(seen.violations).toEqual(noViolations(widths))
      }, 120_000)

      it(`/redoc renders the document from this server alone, without console errors or a serious axe violation at ${widths.join(" or ")} px`, async () => {
        const server = servers[form]!
        const seen = await visit(`${server.baseUrl}/redoc`, widths, async (page) => {
          await page.locator("h1", { hasText: "Roster API" }).first().waitFor({ state: "visible", timeout: 30_000 })
          await page.getByText(`${api}/subscribers`, { exact: false }).first().waitFor({ state: "attached", timeout: 30_000 })
          expect(await page.evaluate(markContrastSample)).toBeGreaterThan(5)
        }, { contrastWithin: "[data-contrast-sample]" })
        expect(elsewhere(seen, server.baseUrl)).toEqual([])
        expect(seen.requests).toContain(`${server.baseUrl}/openapi.json`)
        expect(seen.errors).toEqual([])
        expect(seen.failures).toEqual([])
        expect(seen.violations).toEqual(noViolations(widths))
      }, 120_000)
    })
  }
})
