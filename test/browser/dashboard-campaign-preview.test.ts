/**
 * The campaign composer's preview and test send in Chromium through the real server of each
 * deployment (the reference one at 1280 px, the overview one at 375 px): a new campaign's own
 * content previewed for a subscriber found by email (offered as the address is typed) in a
 * sandboxed frame, with its rendered subject and text body beside it; a Liquid problem told in
 * the frame; the draft saved, its content shown in the frame at once, and sent as a test to the
 * signed-in person through a local server that speaks Resend's API; the page in German. Every
 * screen has no serious or critical axe-core violation, no horizontal scroll, and nothing the
 * Content-Security-Policy blocks.
 */
import { Layer, Redacted } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { makeResendMailer } from "../../adapters/resend/index.js"
import { chromiumPath, chromiumSuite, FLOW_TIMEOUT_MS, widthsOf } from "../support/chromium.js"
import { call, UnlimitedRateLimiterLive } from "../support/http-server.js"
import { startResendApi } from "../support/resend-api.js"
import { deliverDue } from "../support/worker-steps.js"
import { checkScreen, dashboardInChromium, watchedPage } from "./dashboard-kit.js"

const forms = ["reference", "overview"] as const
const resend = await startResendApi()
afterAll(() => resend.close())
const chromium = dashboardInChromium(forms, {
  adapters: Layer.merge(
    makeResendMailer({ apiKey: Redacted.make(resend.apiKey), baseUrl: resend.url, from: "Roster <noreply@roster.test>", retry: { times: 0 } }),
    UnlimitedRateLimiterLive
  )
})

describe(chromiumSuite(`the campaign composer's preview in Chromium (${chromiumPath})`), () => {
  for (const form of forms) {
    for (const width of widthsOf(form)) {
      it(`the ${form} deployment at ${width} px: a campaign's content previewed, a problem told, saved and test-sent, in English and German`, async () => {
        const server = chromium.server(form)
        const api = form === "overview" ? "/v1" : "/api/v1"
        const organization = await server.createOrganization()
        const key = await server.createApiKey(organization)
        const owner = await server.signIn()
        await server.addMember(organization.id, owner, "owner")
        const made = await call(server, "POST", `${api}/subscribers`, { key, json: { email: owner.email, metadata: { name: "Ada" } } })
        expect(made.status, made.text).toBe(201)
        const context = await chromium.browser().newContext({ viewport: { width, height: 800 }, locale: "en-US", timezoneId: "Europe/Berlin" })
        const [name, ...value] = owner.cookie.split("=")
        await context.addCookies([{ name: name!, value: value.join("="), url: server.baseUrl }])
        const errors: Array<string> = []
        try {
          const page = await watchedPage(context, errors)
          await page.goto(`${server.baseUrl}/app/o/${organization.slug}/campaigns/new`)
          await expect(page.locator("h1").innerText()).resolves.toBe("New campaign")
          await page.getByLabel("Name", { exact: true }).fill("Spring <issue>")
          await page.getByLabel("Subject", { exact: true }).fill("Spring for {{ subscriber.metadata.name }}")
          await page.getByLabel("HTML", { exact: true }).fill("<h1>Spring</h1>\n<p>{% iff subscriber.email %}</p>")
          await page.getByLabel("Plain text", { exact: true }).fill("Hello {{ subscriber.metadata.name }}")
          await page.getByLabel("Preview for the subscriber with the address").fill(owner.email)
          // The organization's addresses that match what is typed are offered as choices.
          await page.locator(`#campaign-subscribers option[value="${owner.email}"]`).waitFor({ state: "attached", timeout: 10_000 })

          // A problem is told in the frame, at its part, line and column.
          await page.getByRole("button", { name: "Preview", exact: true }).click()
          const frame = page.frameLocator("#campaign-preview-frame")
          await frame.locator("p", { hasText: "HTML body: Line 2, column 4" }).waitFor({ timeout: 10_000 })
          await page.locator("#campaign-preview-note", { hasText: "HTML body: Line 2, column 4" }).waitFor({ timeout: 10_000 })
          await expect(page.locator("#campaign-preview-subject").innerText()).resolves.toBe("")
          await checkScreen(page, errors)

          // Fixed: the frame shows the body rendered for the subscriber, in a sandboxed frame.
          await page.getByLabel("HTML", { exact: true }).fill("<h1>Spring</h1>\n<p>For {{ subscriber.metadata.name }}</p>")
          await page.getByRole("button", { name: "Preview", exact: true }).click()
          await frame.locator("p", { hasText: "For Ada" }).waitFor({ timeout: 10_000 })
          // Beside the frame, the subject and text body rendered for the same subscriber.
          await page.locator("#campaign-preview-subject", { hasText: "Spring for Ada" }).waitFor({ timeout: 10_000 })
          await expect(page.locator("#campaign-preview-text").innerText()).resolves.toBe("Hello Ada")
          await expect(page.locator("#campaign-preview-note").innerText()).resolves.toBe(`Shown for ${owner.email}.`)
          // The sample subscriber when no address is given.
          await page.getByLabel("Preview for the subscriber with the address").fill("")
          await page.getByRole("button", { name: "Preview", exact: true }).click()
          await page.locator("#campaign-preview-note", { hasText: "Shown for a sample subscriber (jane@example.com)." }).waitFor({ timeout: 10_000 })
          await expect(page.locator("#campaign-preview-text").innerText()).resolves.toBe("Hello ")
          await expect(page.locator("#campaign-preview-frame").getAttribute("sandbox")).resolves.toBe("")
          await expect(page.locator("h1").innerText()).resolves.toBe("New campaign")
          await checkScreen(page, errors)

          await page.getByRole("button", { name: "Create draft" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Campaign Spring <issue>")
          await page.frameLocator("#campaign-preview-frame").locator("h1", { hasText: "Spring" }).waitFor({ timeout: 10_000 })
          // The saved draft's page shows its subject and text for the sample subscriber at once.
          await expect(page.locator("#campaign-preview-subject").innerText()).resolves.toBe("Spring for")
          await expect(page.locator("#campaign-preview-text").innerText()).resolves.toBe("Hello ")
          await checkScreen(page, errors)

          await page.getByRole("button", { name: "Send a test to me" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe(`A test of Spring <issue> is on its way to ${owner.email}.`)
          expect(await server.run(deliverDue())).toBe(1)
          const mail = resend.accepted().filter((m) => m.to.toLowerCase() === owner.email.toLowerCase())
          expect(mail).toHaveLength(1)
          expect(mail[0]!.subject).toBe("Spring for Ada")
          expect(mail[0]!.html).toContain("<p>For Ada</p>")
          await checkScreen(page, errors)

          await page.getByRole("link", { name: "Deutsch" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Kampagne Spring <issue>")
          await expect(page.getByRole("button", { name: "Test an mich senden" }).isVisible()).resolves.toBe(true)
          await page.getByLabel("Vorschau für den Abonnenten mit der Adresse").fill(owner.email)
          await page.getByRole("button", { name: "Vorschau", exact: true }).click()
          await page.locator("#campaign-preview-note", { hasText: `Gezeigt für ${owner.email}.` }).waitFor({ timeout: 10_000 })
          await expect(page.locator("#campaign-preview-subject").innerText()).resolves.toBe("Spring for Ada")
          await expect(page.locator("#campaign-preview-text").innerText()).resolves.toBe("Hello Ada")
          await checkScreen(page, errors)
          expect(errors).toEqual([])
        } finally {
          await context.close()
        }
      }, FLOW_TIMEOUT_MS)
    }
  }
})
