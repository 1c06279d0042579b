/**
 * The subscribers screen in Chromium through the real server: the reference deployment at 1280 px
 * and the overview deployment at 375 px. A person signs in with the emailed link, searches as they
 * type (the table changes without the page reloading), tags three subscribers at once after the
 * confirmation, opens one subscriber, keeps a note on them, reads their history and downloads their
 * data, and reads it all in German too.
 * Every screen has no serious or critical axe-core violation, no horizontal scroll, and nothing
 * the Content-Security-Policy blocks.
 */
import { Auth, Organizations, Subscribers, Tags } from "@roster/application"
import { EmailAddress } from "@roster/domain"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { chromiumPath, chromiumSuite, FLOW_TIMEOUT_MS } from "../support/chromium.js"
import { checkScreen, dashboardInChromium } from "./dashboard-kit.js"
import { freshAddress } from "../support/http-server.js"

const runs = [{ form: "reference", width: 1280 }, { form: "overview", width: 375 }] as const
const chromium = dashboardInChromium(runs.map(({ form }) => form))

const listedEmails = (page: Page) => page.locator("#subscriber-results td.email a").allInnerTexts()

describe(chromiumSuite(`the subscribers screen in Chromium (${chromiumPath})`), () => {
  for (const { form, width } of runs) {
    it(`the ${form} deployment at ${width} px: search as you type, tag three subscribers at once, keep a note, in English and German`, async () => {
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

        // Sign in with the emailed link and make an organization.
        const email = freshAddress("subscribers")
        await page.goto(`${server.baseUrl}/app`)
        await page.getByLabel("Email address").fill(email)
        await page.getByRole("button", { name: "Send me a sign-in link" }).click()
        await expect(page.locator("h1").innerText()).resolves.toBe("Check your email")
        const token = await server.signInTokenFor(email)
        await page.goto(`${server.baseUrl}/auth/sign-in?token=${encodeURIComponent(token)}`)
        await page.getByRole("button", { name: "Sign in" }).click()
        await page.getByRole("link", { name: "Open the dashboard" }).click()
        const slug = `subs-${width}-${Math.random().toString(36).slice(2, 8)}`
        await page.getByLabel("Name", { exact: true }).fill("Ada's News")
        await page.getByLabel("Short name (slug)").fill(slug)
        await page.getByRole("button", { name: "Create organization" }).click()
        await expect(page.locator("h1").innerText()).resolves.toBe("Overview")

        // Subscribers and a tag, as the API would make them.
        const session = (await context.cookies()).find((cookie) => cookie.name === "svc_session")!.value
        await server.run(Effect.gen(function*() {
          const organization = yield* (yield* Organizations).getBySlug(slug)
          const principal = yield* (yield* Auth).authenticate(session, organization.id)
          const subscribers = yield* Subscribers
          for (const address of ["ada@example.com", "adam@example.com", "bob@example.com", "carla.with.a.rather.long.address@example.com"]) {
            yield* subscribers.create(principal, { email: EmailAddress.make(address) })
          }
          yield* (yield* Tags).create(principal, { name: "News" })
        }))

        await page.getByRole("link", { name: "Subscribers" }).click()
        await expect(page.locator("h1").innerText()).resolves.toBe("Subscribers")
        expect(await listedEmails(page)).toHaveLength(4)
        // Dates read in the browser's language, not as the server wrote them.
        await expect(page.locator("#subscriber-results time").first().innerText()).resolves.not.toMatch(/^\d{4}-\d{2}-\d{2}$/)
        await checkScreen(page, errors)

        // Searching as one types: the table changes, the page does not reload, the address follows.
        await page.evaluate("window.stillTheSamePage = true")
        await page.getByLabel("Search by email").pressSequentially("ad", { delay: 50 })
        await expect.poll(() => listedEmails(page), { timeout: 5_000 }).toEqual(["adam@example.com", "ada@example.com"])
        expect(await page.evaluate("window.stillTheSamePage")).toBe(true)
        expect(new URL(page.url()).searchParams.get("search")).toBe("ad")
        await page.getByLabel("Search by email").fill("")
        await expect.poll(() => listedEmails(page), { timeout: 5_000 }).toHaveLength(4)
        expect(await page.evaluate("window.stillTheSamePage")).toBe(true)
        await checkScreen(page, errors)

        // Three subscribers get the tag, after the confirmation says how many.
        for (const address of ["ada@example.com", "adam@example.com", "bob@example.com"]) {
          await page.getByRole("checkbox", { name: `Select ${address}` }).check()
        }
        await page.getByLabel("Action").selectOption({ label: "Add a tag" })
        await page.getByLabel("Tag to add or remove").selectOption({ label: "News" })
        await page.getByRole("button", { name: "Review" }).click()
        await expect(page.locator("h1").innerText()).resolves.toBe("Add the tag News to 3 subscribers?")
        await checkScreen(page, errors)
        await page.getByRole("button", { name: "Yes, go ahead" }).click()
        await expect(page.getByRole("status").first().innerText()).resolves.toBe("3 subscribers changed.")
        await expect(page.locator("#subscriber-results .badge", { hasText: "News" }).count()).resolves.toBe(3)
        await checkScreen(page, errors)

        // One subscriber: a refused metadata, a note, the preference link's copy button.
        await page.getByRole("link", { name: "bob@example.com" }).click()
        await expect(page.locator("h1").innerText()).resolves.toBe("bob@example.com")
        await expect(page.getByRole("button", { name: "Copy link" }).isVisible()).resolves.toBe(true)
        await checkScreen(page, errors)
        await page.getByLabel("Metadata", { exact: true }).fill("{plan: gold}")
        await page.getByRole("button", { name: "Save metadata" }).click()
        await expect(page.locator("#subscriber-metadata-error").innerText()).resolves.toContain("not valid JSON")
        await checkScreen(page, errors)
        await page.getByLabel("New note").fill("Asked for the weekly digest.")
        await page.getByRole("button", { name: "Add note" }).click()
        await expect(page.getByRole("status").first().innerText()).resolves.toBe("The note was added.")
        await expect(page.locator("ul.notes .body").innerText()).resolves.toBe("Asked for the weekly digest.")
        await checkScreen(page, errors)

        // Their history, newest first, its times in the browser's language; and their data as a file.
        const history = page.locator("table.history tbody tr")
        await expect(history.locator("td:nth-child(2)").allInnerTexts()).resolves.toEqual(["Note added", "Tag added", "Created"])
        await expect(history.locator("td.detail").first().innerText()).resolves.toBe("Asked for the weekly digest.")
        await expect(history.locator("time").first().innerText()).resolves.not.toMatch(/^\d{4}-\d{2}-\d{2}T/)
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("link", { name: "Download their data" }).click()
        ])
        expect(download.suggestedFilename()).toMatch(/^roster-data-\d{4}-\d{2}-\d{2}\.json$/)
        await checkScreen(page, errors)

        // In German.
        await page.getByRole("link", { name: "Deutsch" }).click()
        await expect(page.locator("h2").first().innerText()).resolves.toBe("Profil")
        await expect(page.getByRole("heading", { name: "Verlauf" }).isVisible()).resolves.toBe(true)
        await expect(history.locator("td:nth-child(2)").first().innerText()).resolves.toBe("Notiz hinzugefügt")
        await checkScreen(page, errors)
        await page.getByRole("link", { name: "Abonnenten", exact: true }).first().click()
        await expect(page.locator("h1").innerText()).resolves.toBe("Abonnenten")
        await expect(page.getByText("4 Abonnenten").isVisible()).resolves.toBe(true)
        await checkScreen(page, errors)
        expect(errors).toEqual([])
      } finally {
        await context.close()
      }
    }, FLOW_TIMEOUT_MS)
  }
})
