/**
 * What the dashboard's Chromium suites share: one browser and a test server per deployment for
 * the file, and the checks every screen is held to (axe-core, no sideways scrolling, nothing the
 * Content-Security-Policy blocked or the page's script threw).
 */
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, expect } from "vitest"
import { chromiumAvailable, launchChromium, seriousViolations } from "../support/chromium.js"
import { type StartOptions, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../support/http-server.js"

export type Deployment = "reference" | "overview"

/**
 * Chromium and a server of each deployment, started before the file's tests and closed after;
 * nothing starts where Chromium is missing (the suite then says skipped).
 */
export const dashboardInChromium = (
  deployments: ReadonlyArray<Deployment>,
  options: Omit<StartOptions, "form"> = { adapters: UnlimitedRateLimiterLive }
) => {
  const servers: Partial<Record<Deployment, TestHttpServer>> = {}
  let browser: Browser | undefined
  beforeAll(async () => {
    if (!chromiumAvailable) return
    browser = await launchChromium()
    for (const form of deployments) servers[form] = await startHttpServer({ ...options, form })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await Promise.all(deployments.map((form) => servers[form]?.close()))
  })
  return {
    server: (form: Deployment): TestHttpServer => servers[form]!,
    browser: (): Browser => browser!
  }
}

/** What a screen must hold to: axe-core, no sideways scrolling, nothing blocked or failing. */
export const checkScreen = async (page: Page, errors: ReadonlyArray<string>) => {
  // A click that led to another page has it committed, not yet loaded: its document may not be there yet.
  await page.waitForLoadState("load")
  expect(await seriousViolations(page)).toEqual([])
  expect(await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")).toBe(true)
  expect(errors).toEqual([])
}

/**
 * A page whose script errors and failed loads are collected in `errors`; a form sent back with
 * its refusal (400, 403 or 409, which a test asks for on purpose) is not a failure.
 */
export const watchedPage = async (context: BrowserContext, errors: Array<string>) => {
  const page = await context.newPage()
  page.on("pageerror", (error) => void errors.push(String(error)))
  page.on("console", (message) => {
    const refused = /^Failed to load resource: the server responded with a status of (400|403|409)/.test(message.text())
    if (message.type() === "error" && !refused) errors.push(message.text())
  })
  return page
}
