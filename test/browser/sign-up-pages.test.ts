/**
 * A sign-up form's hosted page and the page its confirmation link opens, in Chromium through the
 * real server of each wire form (the pages carry no script): the reader signs up, sees a bad
 * address named beside the field, and confirms with the button; the trap field is out of the
 * reader's and the screen reader's way; every page has no serious or critical axe-core violation
 * (the reference form's at 1280 px, the overview form's at 375 px).
 */
import { SignUps } from "@roster/application"
import { Effect } from "effect"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, chromiumPath, chromiumSuite, launchChromium, seriousViolations, widthsOf } from "../support/chromium.js"
import { call, freshAddress, startHttpServer, type TestHttpServer } from "../support/http-server.js"

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

/** A page of its own at `width` px in a browser that speaks `locale`, with the page's errors (a policy's refusals) collected. */
const withPage = async (width: number, locale: string, run: (page: Page, errors: ReadonlyArray<string>) => Promise<void>) => {
  // The pages carry no script; axe-core gets in past their Content-Security-Policy.
  const context = await browser.newContext({ viewport: { width, height: 800 }, locale, bypassCSP: true })
  const errors: Array<string> = []
  try {
    const page = await context.newPage()
    page.on("console", (message) => {
      // A 400 or 404 page, and the favicon the service does not have, are answers the page expects.
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) errors.push(message.text())
    })
    await run(page, errors)
  } finally {
    await context.close()
  }
}

/** A double opt-in form of a fresh organization, with consent text. */
const newForm = async (server: TestHttpServer) => {
  const { key } = await server.seedOrganization()
  const api = server === servers.overview ? "/v1" : "/api/v1"
  const answer = await call(server, "POST", `${api}/forms`, {
    key,
    json: { name: "The Weekly", consent_text: "I agree to receive the weekly letter and can unsubscribe at any time." }
  })
  expect(answer.status, answer.text).toBe(201)
  return (answer.body.data ?? answer.body) as { id: string }
}

describe(chromiumSuite(`the sign-up pages in Chromium (${chromiumPath})`), () => {
  for (const form of forms) {
    describe(`the ${form} form`, () => {
      for (const width of widthsOf(form)) {
        it(`at ${width} px a reader signs up without a script, sees a bad address named, and confirms from the link`, async () => {
          const server = servers[form]!
          const { id } = await newForm(server)
          const email = freshAddress("reader")
          await withPage(width, "en-US", async (page, errors) => {
            await page.goto(`${server.baseUrl}/f/${id}`)
            expect(await page.locator("h1").innerText()).toBe("The Weekly")
            expect(await page.locator(".consent").innerText()).toContain("I agree to receive the weekly letter")
            // The trap field is in no one's way: one text box, the email field.
            expect(await page.getByRole("textbox").count()).toBe(1)
            expect(await page.getByRole("textbox").getAttribute("name")).toBe("email")
            expect(await seriousViolations(page)).toEqual([])

            await page.getByLabel("Email address").fill("not an address")
            server.advanceClock("3 seconds")
            await page.getByRole("button", { name: "Subscribe" }).click()
            await page.locator("#email-error").waitFor({ state: "visible" })
            expect(await page.getByRole("textbox", { name: "Email address" }).getAttribute("aria-invalid")).toBe("true")
            expect(await seriousViolations(page)).toEqual([])

            await page.getByLabel("Email address").fill(email)
            server.advanceClock("3 seconds")
            await page.getByRole("button", { name: "Subscribe" }).click()
            await expect(page.locator("h1").innerText()).resolves.toBe("Check your inbox")
            expect(await seriousViolations(page)).toEqual([])
            expect(errors).toEqual([])
          })
          expect(await server.run(Effect.flatMap(SignUps, (signUps) => signUps.sendDueConfirmations(100)))).toBe(1)
          const mail = server.emails().filter((text) => text.includes(email)).at(-1) ?? ""
          const link = /https?:\/\/\S+\/f\/confirm\?token=[^\s"<]+/.exec(mail)?.[0]
          expect(link, mail).toBeDefined()
          const path = new URL(link!).pathname + new URL(link!).search
          await withPage(width, "en-US", async (page, errors) => {
            await page.goto(`${server.baseUrl}${path}`)
            expect(await page.locator("h1").innerText()).toBe("Confirm your subscription")
            expect(await seriousViolations(page)).toEqual([])
            await page.getByRole("button", { name: "Confirm" }).click()
            await expect(page.locator("h1").innerText()).resolves.toBe("Your subscription is confirmed")
            expect(await seriousViolations(page)).toEqual([])
            expect(errors).toEqual([])
          })
        })

        it(`at ${width} px the page speaks German to a German browser, and a form that does not exist says so`, async () => {
          const server = servers[form]!
          const { id } = await newForm(server)
          await withPage(width, "de-DE", async (page, errors) => {
            await page.goto(`${server.baseUrl}/f/${id}`)
            expect(await page.locator("html").getAttribute("lang")).toBe("de")
            expect(await page.getByRole("button", { name: "Abonnieren" }).isVisible()).toBe(true)
            expect(await seriousViolations(page)).toEqual([])
            const missing = await page.goto(`${server.baseUrl}/f/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10`)
            expect(missing?.status()).toBe(404)
            expect(await page.locator("h1").innerText()).toBe("Dieses Formular gibt es nicht")
            expect(await seriousViolations(page)).toEqual([])
            expect(errors).toEqual([])
          })
        })
      }
    })
  }
})
