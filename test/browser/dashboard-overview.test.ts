/**
 * The dashboard's overview and settings in Chromium through the real server of each deployment (the
 * reference one at 1280 px, the overview one at 375 px), in English and German: the figures and the
 * growth chart of a seeded organization, the sender saved, a custom domain added with its DNS
 * records and copy buttons, and billing's message where no payment provider is set up. Every screen
 * has no serious or critical axe-core violation, no horizontal scroll, and no console error.
 */
import { CampaignRepository, Organizations, SubscriberRepository } from "@roster/application"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { aSubscriber, givenEndpoint } from "../contract/fixtures.js"
import { aCampaign } from "../contract/mail-fixtures.js"
import { chromiumPath, chromiumSuite, FLOW_TIMEOUT_MS, widthsOf } from "../support/chromium.js"
import { checkScreen, dashboardInChromium } from "./dashboard-kit.js"
import { freshAddress, type TestHttpServer } from "../support/http-server.js"

const DAY = 24 * 60 * 60 * 1000
const forms = ["reference", "overview"] as const
const chromium = dashboardInChromium(forms)

/** The organization on the top plan, with subscribers over the last days, a campaign sending and an endpoint failing. */
const seed = (server: TestHttpServer, slug: string) =>
  server.run(Effect.gen(function*() {
    const organization = (yield* (yield* Organizations).update(slug, { tier: "enterprise" })).organization
    const subscribers = yield* SubscriberRepository
    const now = Date.now()
    for (let day = 0; day < 30; day++) {
      for (let n = 0; n < day % 4; n++) yield* subscribers.insert(aSubscriber(organization.id, { createdAt: new Date(now - day * DAY) }))
    }
    yield* (yield* CampaignRepository).insert(aCampaign(organization.id, new Date(now), { status: "sending", startedAt: new Date(now) }))
    yield* givenEndpoint(organization.id, { failingSince: new Date(now - DAY) })
  }).pipe(Effect.orDie))

describe(chromiumSuite(`the dashboard's overview and settings in Chromium (${chromiumPath})`), () => {
  for (const form of forms) {
    for (const width of widthsOf(form)) {
      it(`the ${form} deployment at ${width} px: the overview's figures and chart, and the settings, in English and German`, async () => {
        const server = chromium.server(form)
        const context = await chromium.browser().newContext({ viewport: { width, height: 800 }, locale: "en-US", timezoneId: "Europe/Berlin" })
        const errors: Array<string> = []
        try {
          const page = await context.newPage()
          page.on("pageerror", (error) => void errors.push(String(error)))
          page.on("console", (message) => {
            if (message.type() === "error") errors.push(message.text())
          })

          // Signing in by the emailed link, and an organization of one's own.
          const email = freshAddress("overview")
          await page.goto(`${server.baseUrl}/app`)
          await page.getByLabel("Email address").fill(email)
          await page.getByRole("button", { name: "Send me a sign-in link" }).click()
          const token = await server.signInTokenFor(email)
          await page.goto(`${server.baseUrl}/auth/sign-in?token=${encodeURIComponent(token)}`)
          await page.getByRole("button", { name: "Sign in" }).click()
          await page.getByRole("link", { name: "Open the dashboard" }).click()
          const slug = `figures-${width}-${Math.random().toString(36).slice(2, 8)}`
          await page.getByLabel("Name", { exact: true }).fill("Ada's News")
          await page.getByLabel("Short name (slug)").fill(slug)
          await page.getByRole("button", { name: "Create organization" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Overview")
          await seed(server, slug)

          // The overview: its figures, in the zone the script told the server (the page is read again).
          await page.reload()
          await expect(page.locator("figcaption").innerText()).resolves.toContain("Europe/Berlin")
          await expect(page.locator("svg rect.bar").count()).resolves.toBe(30)
          await expect(page.locator("svg rect.bar title").first().textContent()).resolves.toMatch(/: \d+ new$/)
          await expect(page.locator("#failing-endpoints td.url").count()).resolves.toBe(1)
          await expect(page.locator("#sending li").count()).resolves.toBe(1)
          const svgWidth = await page.locator("figure.chart svg").evaluate((svg) => svg.getBoundingClientRect().width)
          expect(svgWidth).toBeLessThanOrEqual(width)
          await checkScreen(page, errors)

          // Settings: the sender, a domain with its records, billing not set up here.
          await page.getByRole("link", { name: "Settings" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Settings")
          await checkScreen(page, errors)
          await page.getByLabel("From name").fill("Ada's Letters")
          await page.getByRole("button", { name: "Save sender" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("The sender was saved.")
          await expect(page.getByLabel("From name").inputValue()).resolves.toBe("Ada's Letters")
          const domain = `mail-${width}-${Math.random().toString(36).slice(2, 8)}.example.org`
          await page.getByLabel("Domain", { exact: true }).fill(domain)
          await page.getByRole("button", { name: "Add domain" }).click()
          await expect(page.locator("#dns-records caption").innerText()).resolves.toContain(domain)
          // The script shows the copy buttons.
          await expect(page.locator("#dns-records button[data-copy]").first().isVisible()).resolves.toBe(true)
          await expect(page.locator("#billing-message").innerText()).resolves.toContain("Billing is not set up")
          await checkScreen(page, errors)

          // In German.
          await page.getByRole("link", { name: "Deutsch" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Einstellungen")
          await expect(page.getByRole("button", { name: "Jetzt prüfen" }).isVisible()).resolves.toBe(true)
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "Übersicht" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Übersicht")
          await expect(page.locator("svg rect.bar").count()).resolves.toBe(30)
          await checkScreen(page, errors)
        } finally {
          await context.close()
        }
      }, FLOW_TIMEOUT_MS)
    }
  }
})
