/**
 * The sign-in page a magic link leads to, and the page of an error code a problem's `type` links
 * to, in Chromium through the real server of each wire form: the sign-in page's own script runs
 * under its Content-Security-Policy and signs the person in with one press of its button, in the
 * browser's language; both pages have no serious or critical axe-core violation (the reference
 * form's at 1280 px, the overview form's at 375 px).
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, chromiumPath, chromiumSuite, launchChromium, seriousViolations, widthsOf } from "../support/chromium.js"
import { freshAddress, startHttpServer, type TestHttpServer } from "../support/http-server.js"

const forms = ["reference", "overview"] as const
const servers: Partial<Record<(typeof forms)[number], TestHttpServer>> = {}
let browser: Browser

beforeAll(async () => {
  if (!chromiumAvailable) return
  browser = await launchChromium()
  for (const form of forms) servers[form] = await startHttpServer({ form })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await Promise.all(forms.map((form) => servers[form]?.close()))
})

/** A page of its own at `width` px in a browser that speaks `locale`, with the page's errors collected. */
const withPage = async (width: number, locale: string, run: (page: Page, errors: ReadonlyArray<string>) => Promise<void>) => {
  const context = await browser.newContext({ viewport: { width, height: 800 }, locale })
  const errors: Array<string> = []
  try {
    const page = await context.newPage()
    page.on("pageerror", (error) => void errors.push(String(error)))
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text())
    })
    await run(page, errors)
  } finally {
    await context.close()
  }
}

describe(chromiumSuite(`the sign-in and error-code pages in Chromium (${chromiumPath})`), () => {
  for (const form of forms) {
    describe(`the ${form} form`, () => {
      for (const width of widthsOf(form)) {
        it(`at ${width} px a magic link's page signs the person in with one press, and a second press of the same link is refused`, async () => {
          const server = servers[form]!
          const email = freshAddress("reader")
          const token = await server.requestSignInToken(email)
          const url = `${server.baseUrl}/auth/sign-in?token=${encodeURIComponent(token)}`
          await withPage(width, "en-US", async (page, errors) => {
            await page.goto(url)
            await expect(page.locator("h1").innerText()).resolves.toBe("Sign in to Roster")
            expect(await seriousViolations(page)).toEqual([])
            await page.getByRole("button", { name: "Sign in" }).click()
            await page.locator("#signed-in").waitFor({ state: "visible", timeout: 10_000 })
            expect(await page.locator("#email").innerText()).toBe(email)
            expect(errors).toEqual([])
          })
          await withPage(width, "en-US", async (page) => {
            await page.goto(url)
            await page.getByRole("button", { name: "Sign in" }).click()
            await page.locator("#used").waitFor({ state: "visible", timeout: 10_000 })
          })
        })

        it(`at ${width} px the page speaks German to a German browser, and says so when its link carries no token`, async () => {
          await withPage(width, "de-CH", async (page, errors) => {
            await page.goto(`${servers[form]!.baseUrl}/auth/sign-in`)
            expect(await page.locator("html").getAttribute("lang")).toBe("de")
            await page.locator("#missing").waitFor({ state: "visible", timeout: 10_000 })
            expect(await page.locator("#missing").innerText()).toContain("Anmeldetoken")
            expect(await page.getByRole("button").isVisible()).toBe(false)
            expect(await seriousViolations(page)).toEqual([])
            expect(errors).toEqual([])
          })
        })

        it(`at ${width} px an error code's page says what it means and what to do`, async () => {
          await withPage(width, "en-US", async (page) => {
            const answer = await page.goto(`${servers[form]!.baseUrl}/errors/validation_error`)
            expect(answer?.status()).toBe(200)
            expect(await page.locator("dd code").first().innerText()).toBe("validation_error")
            expect(await page.locator("dt").allInnerTexts()).toEqual(["Code", "HTTP status", "Problem type", "What it means", "What to do"])
            expect(await seriousViolations(page)).toEqual([])
          })
        })
      }
    })
  }
})
