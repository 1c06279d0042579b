/**
 * The dashboard's API keys and members screens in Chromium through the real server of each
 * deployment (the reference one at 1280 px, the overview one at 375 px): an owner makes a key
 * (shown once, with a copy button), invites a member, who signs in with the emailed link in a
 * browser of their own and is refused the owner's screen; in English and German. Every screen has
 * no serious or critical axe-core violation, no horizontal scroll, and nothing the
 * Content-Security-Policy blocks.
 */
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { chromiumPath, chromiumSuite, FLOW_TIMEOUT_MS, widthsOf } from "../support/chromium.js"
import { checkScreen, dashboardInChromium, watchedPage } from "./dashboard-kit.js"
import { freshAddress, type TestHttpServer } from "../support/http-server.js"

const forms = ["reference", "overview"] as const
const chromium = dashboardInChromium(forms)

/** Signs in with the link the mailer received for `email`. */
const signInWithLink = async (server: TestHttpServer, page: Page, email: string, seen = 0) => {
  const token = await server.signInTokenFor(email, seen)
  await page.goto(`${server.baseUrl}/auth/sign-in?token=${encodeURIComponent(token)}`)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("link", { name: "Open the dashboard" }).click()
}

describe(chromiumSuite(`the dashboard's API keys and members in Chromium (${chromiumPath})`), () => {
  for (const form of forms) {
    for (const width of widthsOf(form)) {
      it(`the ${form} deployment at ${width} px: make a key, invite a member who is refused the owner's screen, in English and German`, async () => {
        const server = chromium.server(form)
        const options = { viewport: { width, height: 800 }, locale: "en-US", timezoneId: "Europe/Berlin" }
        const ownerContext = await chromium.browser().newContext({ ...options, permissions: ["clipboard-read", "clipboard-write"] })
        const memberContext = await chromium.browser().newContext(options)
        const errors: Array<string> = []
        try {
          const page = await watchedPage(ownerContext, errors)

          // The owner signs in and makes an organization.
          const email = freshAddress("owner")
          await page.goto(`${server.baseUrl}/app`)
          await page.getByLabel("Email address").fill(email)
          await page.getByRole("button", { name: "Send me a sign-in link" }).click()
          await signInWithLink(server, page, email)
          const slug = `people-${width}-${Math.random().toString(36).slice(2, 8)}`
          await page.getByLabel("Name", { exact: true }).fill("Ada's <News>")
          await page.getByLabel("Short name (slug)").fill(slug)
          await page.getByRole("button", { name: "Create organization" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Overview")

          // API keys: a refusal beside the scopes, then a key shown once with its copy button.
          await page.getByRole("link", { name: "API keys" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("API keys")
          await checkScreen(page, errors)
          await page.getByLabel("Name", { exact: true }).fill("CRM sync")
          await page.getByRole("button", { name: "Create key" }).click()
          await expect(page.locator("#key-scopes-error").innerText()).resolves.toBe("Choose at least one scope.")
          await checkScreen(page, errors)
          await page.getByRole("checkbox", { name: /subscribers:read/ }).check()
          await page.getByRole("radio", { name: /^Test/ }).check()
          await page.getByRole("button", { name: "Create key" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Your new API key CRM sync")
          const key = await page.getByLabel("Key", { exact: true }).inputValue()
          expect(key).toMatch(/^svc_test_/)
          const copy = page.getByRole("button", { name: "Copy key" })
          await expect(copy.isVisible()).resolves.toBe(true)
          await copy.click()
          // The clipboard answers when it has the key; the status then says so.
          await page.locator("#new-key-status", { hasText: "Copied." }).waitFor({ timeout: 5_000 })
          expect(await page.evaluate("navigator.clipboard.readText()")).toBe(key)
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "I have copied it" }).click()
          const row = page.getByRole("row", { name: /CRM sync/ })
          await expect(row.isVisible()).resolves.toBe(true)
          expect(await page.content()).not.toContain(key)
          await page.getByRole("link", { name: "Rotate: CRM sync" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Rotate the key CRM sync?")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "Cancel" }).click()
          await page.getByRole("link", { name: "Revoke: CRM sync" }).click()
          await checkScreen(page, errors)
          await page.getByRole("button", { name: "Revoke key" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("The key CRM sync was revoked.")
          await checkScreen(page, errors)

          // Members: invite someone.
          await page.getByRole("link", { name: "Members" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Members")
          await checkScreen(page, errors)
          await page.getByLabel("Email address").fill(email)
          await page.getByRole("button", { name: "Send invitation" }).click()
          await expect(page.locator("#invite-email-error").innerText()).resolves.toContain("is a member already")
          await checkScreen(page, errors)
          const invitee = freshAddress("member")
          await page.getByLabel("Email address").fill(invitee)
          await page.getByRole("button", { name: "Send invitation" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe(`An invitation is on its way to ${invitee}.`)
          await checkScreen(page, errors)

          // The member, in a browser of their own, finds the organization but not the owner's screen.
          const memberPage = await watchedPage(memberContext, errors)
          await signInWithLink(server, memberPage, invitee)
          await expect(memberPage.locator("h1").innerText()).resolves.toBe("Overview")
          await expect(memberPage.getByRole("link", { name: "API keys" }).count()).resolves.toBe(0)
          await memberPage.getByRole("link", { name: "Members" }).click()
          await expect(memberPage.getByRole("button", { name: "Send invitation" }).count()).resolves.toBe(0)
          await expect(memberPage.getByRole("link", { name: "Leave organization" }).isVisible()).resolves.toBe(true)
          await checkScreen(memberPage, errors)
          await memberPage.goto(`${server.baseUrl}/app/o/${slug}/api-keys`)
          await expect(memberPage.locator("h1").innerText()).resolves.toBe("That did not work")
          await expect(memberPage.getByRole("alert").innerText()).resolves.toBe("Your role in this organization does not allow this.")
          await checkScreen(memberPage, errors)

          // In German: the owner's two screens and a confirmation.
          await page.getByRole("link", { name: "Deutsch" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Mitglieder")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: `Entfernen: ${invitee}` }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe(`${invitee} entfernen?`)
          await checkScreen(page, errors)
          await page.getByRole("button", { name: "Mitglied entfernen" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe(`${invitee} wurde entfernt.`)
          await page.getByRole("link", { name: "API-Schlüssel" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("API-Schlüssel")
          await checkScreen(page, errors)
          expect(errors).toEqual([])
        } finally {
          await ownerContext.close()
          await memberContext.close()
        }
      }, FLOW_TIMEOUT_MS)
    }
  }
})
