/**
 * The dashboard in Chromium through the real server of each deployment (the reference one at 1280
 * px, the overview one at 375 px): a person asks for a sign-in link, signs in with the link the
 * mailer received, creates an organization, then creates, edits and deletes a tag, and reads it all
 * in German too. Every screen has no serious or critical axe-core violation, no horizontal scroll,
 * and nothing the Content-Security-Policy blocks (a blocked script or style is a console error).
 */
import { describe, expect, it } from "vitest"
import { chromiumPath, chromiumSuite, FLOW_TIMEOUT_MS, widthsOf } from "../support/chromium.js"
import { checkScreen, dashboardInChromium } from "./dashboard-kit.js"
import { freshAddress } from "../support/http-server.js"

const forms = ["reference", "overview"] as const
const chromium = dashboardInChromium(forms)

describe(chromiumSuite(`the dashboard in Chromium (${chromiumPath})`), () => {
  for (const form of forms) {
    for (const width of widthsOf(form)) {
      it(`the ${form} deployment at ${width} px: sign in by email, create an organization and run its tags, in English and German`, async () => {
        const server = chromium.server(form)
        const context = await chromium.browser().newContext({ viewport: { width, height: 800 }, locale: "en-US", timezoneId: "Europe/Berlin" })
        const errors: Array<string> = []
        try {
          const page = await context.newPage()
          page.on("pageerror", (error) => void errors.push(String(error)))
          page.on("console", (message) => {
            // A form sent back with its refusal beside a field answers 400 or 409 on purpose.
            const refusedForm = /^Failed to load resource: the server responded with a status of (400|409)/.test(message.text())
            if (message.type() === "error" && !refusedForm) errors.push(message.text())
          })

          // Signing in: the address, then the link the mailer received.
          await page.goto(`${server.baseUrl}/app`)
          await expect(page.locator("h1").innerText()).resolves.toBe("Sign in")
          await checkScreen(page, errors)
          await page.getByLabel("Email address").fill("not an address")
          await page.getByRole("button", { name: "Send me a sign-in link" }).click()
          await expect(page.locator("#email-error").innerText()).resolves.toContain("name@example.com")
          await checkScreen(page, errors)
          const email = freshAddress("dashboard")
          await page.getByLabel("Email address").fill(email)
          await page.getByRole("button", { name: "Send me a sign-in link" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Check your email")
          await checkScreen(page, errors)
          const token = await server.signInTokenFor(email)
          await page.goto(`${server.baseUrl}/auth/sign-in?token=${encodeURIComponent(token)}`)
          await page.getByRole("button", { name: "Sign in" }).click()
          await page.getByRole("link", { name: "Open the dashboard" }).click()

          // No organization yet: make one.
          await expect(page.locator("h1").innerText()).resolves.toBe("Your organizations")
          await checkScreen(page, errors)
          const slug = `news-${width}-${Math.random().toString(36).slice(2, 8)}`
          await page.getByLabel("Name", { exact: true }).fill("Ada's <News>")
          await page.getByLabel("Short name (slug)").fill(slug)
          await page.getByRole("button", { name: "Create organization" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Overview")
          expect(new URL(page.url()).pathname).toBe(`/app/o/${slug}`)
          await checkScreen(page, errors)

          // Tags: create one, see it listed with its count and date, edit it, delete it.
          await page.getByRole("link", { name: "Tags" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Tags")
          await checkScreen(page, errors)
          await page.getByLabel("Name", { exact: true }).fill("Weekly")
          await page.getByLabel("Description").fill("Every Friday")
          await page.getByRole("button", { name: "Create tag" }).click()
          await expect(page.getByRole("status").innerText()).resolves.toBe("The tag Weekly was created.")
          const row = page.getByRole("row", { name: /Weekly/ })
          await expect(row.getByRole("cell").nth(3).innerText()).resolves.toBe("0")
          // The date reads in the browser's language, not as the server wrote it.
          await expect(row.locator("time").innerText()).resolves.not.toMatch(/^\d{4}-\d{2}-\d{2}$/)
          await checkScreen(page, errors)
          await page.getByLabel("Name", { exact: true }).fill("weekly")
          await page.getByRole("button", { name: "Create tag" }).click()
          await expect(page.locator("#tag-name-error").innerText()).resolves.toBe("That name is taken already.")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "Edit: Weekly" }).click()
          await checkScreen(page, errors)
          await page.getByLabel("Name", { exact: true }).fill("Weekly digest")
          await page.getByRole("button", { name: "Save" }).click()
          await expect(page.getByRole("status").innerText()).resolves.toBe("The tag Weekly digest was saved.")
          await page.getByRole("link", { name: "Delete: Weekly digest" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Delete the tag Weekly digest?")
          await checkScreen(page, errors)
          await page.getByRole("button", { name: "Delete tag" }).click()
          await expect(page.getByRole("status").innerText()).resolves.toBe("The tag Weekly digest was deleted.")

          // In German, from the switch on every page.
          await page.getByRole("link", { name: "Deutsch" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Tags")
          expect(await page.locator("html").getAttribute("lang")).toBe("de")
          await expect(page.getByText("Noch keine Tags.").isVisible()).resolves.toBe(true)
          await page.getByRole("link", { name: "Übersicht" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Übersicht")
          await checkScreen(page, errors)

          // Signing out ends it.
          await page.getByRole("button", { name: "Abmelden" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Anmelden")
          await page.goto(`${server.baseUrl}/app/o/${slug}`)
          await expect(page.locator("h1").innerText()).resolves.toBe("Anmelden")
          expect(errors).toEqual([])
        } finally {
          await context.close()
        }
      }, FLOW_TIMEOUT_MS)
    }
  }
})
