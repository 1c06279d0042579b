/**
 * The dashboard's sign-up forms and segments screens in Chromium through the real server of each
 * deployment (the reference one at 1280 px, the overview one at 375 px): a form made with a
 * refusal on the way, its embed snippet copied, its hosted page opened, its counts listed and the
 * form deleted; a segment built condition by condition while the count follows the edits (by the
 * page's script), a bad condition told beside it as it is typed, saved, shown in German and
 * deleted. Every screen has no serious or critical axe-core violation, no horizontal scroll, and
 * nothing the Content-Security-Policy blocks.
 */
import { describe, expect, it } from "vitest"
import { chromiumPath, chromiumSuite, FLOW_TIMEOUT_MS, widthsOf } from "../support/chromium.js"
import { call, freshAddress } from "../support/http-server.js"
import { checkScreen, dashboardInChromium, watchedPage } from "./dashboard-kit.js"

const forms = ["reference", "overview"] as const
const chromium = dashboardInChromium(forms)

describe(chromiumSuite(`the dashboard's sign-up forms and segments in Chromium (${chromiumPath})`), () => {
  for (const form of forms) {
    for (const width of widthsOf(form)) {
      it(`the ${form} deployment at ${width} px: a form with its snippet and counts, a segment built with a live preview, in English and German`, async () => {
        const server = chromium.server(form)
        const api = form === "overview" ? "/v1" : "/api/v1"
        // An organization with a tag and three subscribers, two on the pro plan; its owner signed in.
        const organization = await server.createOrganization()
        const key = await server.createApiKey(organization)
        const tag = await call(server, "POST", `${api}/tags`, { key, json: { name: "Weekly" } })
        expect(tag.status, tag.text).toBe(201)
        for (const plan of ["pro", "pro", "free"]) {
          const made = await call(server, "POST", `${api}/subscribers`, { key, json: { email: freshAddress(plan), metadata: { plan } } })
          expect(made.status, made.text).toBe(201)
        }
        const owner = await server.signIn()
        await server.addMember(organization.id, owner, "owner")
        const context = await chromium.browser().newContext({
          viewport: { width, height: 800 },
          locale: "en-US",
          timezoneId: "Europe/Berlin",
          permissions: ["clipboard-read", "clipboard-write"]
        })
        const [name, ...value] = owner.cookie.split("=")
        await context.addCookies([{ name: name!, value: value.join("="), url: server.baseUrl }])
        const errors: Array<string> = []
        try {
          const page = await watchedPage(context, errors)
          await page.goto(`${server.baseUrl}/app/o/${organization.slug}`)

          // Sign-up forms: a refusal beside the name, then a form with a tag and a site.
          await page.getByRole("link", { name: "Sign-up forms" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Sign-up forms")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "New sign-up form" }).click()
          await page.getByRole("button", { name: "Create form" }).click()
          await expect(page.locator("#form-name-error").innerText()).resolves.toContain("Give the form a name")
          await checkScreen(page, errors)
          await page.getByLabel("Name", { exact: true }).fill("Weekly <news>")
          await page.getByRole("checkbox", { name: "Weekly" }).check()
          await page.getByLabel("Consent text").fill("Yes, send me the weekly news.")
          await page.getByLabel("Sites that may embed the form").fill("https://news.example.com")
          await page.getByRole("button", { name: "Create form" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Sign-up form Weekly <news>")
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("The sign-up form Weekly <news> was created.")
          await checkScreen(page, errors)

          // The snippet is copied with its button, and is the one the API answers.
          const snippet = await page.getByLabel("HTML to embed").inputValue()
          const formId = /\/forms\/([0-9a-f-]{36})$/.exec(page.url())![1]!
          const embed = await call(server, "GET", `${api}/forms/${formId}/embed?locale=en`, { key })
          expect(snippet).toBe((embed.body.data ?? embed.body).html)
          await page.getByRole("button", { name: "Copy" }).click()
          await page.locator("#form-embed-status", { hasText: "Copied." }).waitFor({ timeout: 5_000 })
          expect(await page.evaluate("navigator.clipboard.readText()")).toBe(snippet)

          // A reader signs up through the embedded form's address: one waits for confirmation.
          const signedUp = await call(server, "POST", `/f/${formId}`, {
            headers: { origin: "https://news.example.com", "content-type": "application/json" },
            body: JSON.stringify({ email: freshAddress("reader") })
          })
          expect(signedUp.status, signedUp.text).toBe(202)
          await page.getByRole("link", { name: "Open the hosted page" }).click()
          await expect(page.getByRole("button", { name: "Subscribe" }).isVisible()).resolves.toBe(true)
          await page.goBack()
          await page.getByRole("link", { name: "Sign-up forms" }).click()
          const row = page.getByRole("row", { name: /Weekly <news>/ })
          await expect(row.locator("td.number").allInnerTexts()).resolves.toEqual(["1", "0"])
          await checkScreen(page, errors)

          // Segments: the count follows the conditions as they are typed.
          await page.getByRole("link", { name: "Segments" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Segments")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "New segment" }).click()
          await expect(page.locator("#segment-count").innerText()).resolves.toBe("3 subscribers match.")
          await checkScreen(page, errors)
          await page.getByLabel("Kind of condition").selectOption("metadata")
          await page.getByRole("button", { name: "Add condition" }).click()
          await page.getByLabel("Metadata path").fill("plan")
          await page.getByLabel("Value", { exact: true }).fill("pro")
          await page.locator("#segment-count", { hasText: "2 subscribers match." }).waitFor({ timeout: 10_000 })
          await page.getByLabel("Kind of condition").selectOption("engagement")
          await page.getByRole("button", { name: "Add condition" }).click()
          await expect(page.getByLabel("Metadata path").inputValue()).resolves.toBe("plan")
          await page.getByLabel("Days").fill("0")
          await page.locator("#seg-c1-error", { hasText: "must be a whole number of days" }).waitFor({ timeout: 10_000 })
          await checkScreen(page, errors)
          await page.getByLabel("Operator").nth(1).selectOption("received_not_within")
          await page.getByLabel("Days").fill("30")
          await page.locator("#segment-count", { hasText: "2 subscribers match." }).waitFor({ timeout: 10_000 })
          await expect(page.locator("#seg-c1-error").count()).resolves.toBe(0)
          await page.getByLabel("Name", { exact: true }).fill("Pro")
          await page.getByRole("button", { name: "Create segment" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("The segment Pro was created.")
          await expect(page.locator("#segment-count").innerText()).resolves.toBe("2 subscribers match.")
          await checkScreen(page, errors)

          // In German: the builder, the list with its count, and the deletion.
          await page.getByRole("link", { name: "Deutsch" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Segment Pro")
          await expect(page.locator("#segment-count").innerText()).resolves.toBe("2 Abonnenten passen.")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "Segmente" }).click()
          await expect(page.getByRole("row", { name: /Pro/ }).locator("td.number").innerText()).resolves.toBe("2")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "Löschen: Pro" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Das Segment Pro löschen?")
          await checkScreen(page, errors)
          await page.getByRole("button", { name: "Segment löschen" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("Das Segment Pro wurde gelöscht.")
          await page.getByRole("link", { name: "Anmeldeformulare" }).click()
          await page.getByRole("link", { name: "Löschen: Weekly <news>" }).click()
          await page.locator("h1", { hasText: "Das Anmeldeformular Weekly <news> löschen?" }).waitFor()
          await checkScreen(page, errors)
          await page.getByRole("button", { name: "Formular löschen" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("Das Anmeldeformular Weekly <news> wurde gelöscht.")
          await checkScreen(page, errors)
          expect(errors).toEqual([])
        } finally {
          await context.close()
        }
      }, FLOW_TIMEOUT_MS)
    }
  }
})
