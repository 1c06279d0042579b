/**
 * The dashboard's import and export screen in Chromium through the real server of each deployment
 * (the reference one at 1280 px, the overview one at 375 px): a file without an email column is
 * refused beside its field; a 10,000-row CSV is previewed, started and followed while the worker's
 * step runs it, until the progress bar is full and its problem rows are listed; the subscribers are
 * exported as a CSV download; and the screens read in German too. Every screen has no serious or
 * critical axe-core violation, no horizontal scroll and no console error.
 */
import { describe, expect, it } from "vitest"
import { chromiumPath, chromiumSuite, FLOW_TIMEOUT_MS, widthsOf } from "../support/chromium.js"
import { checkScreen, dashboardInChromium } from "./dashboard-kit.js"
import { UnlimitedRateLimiterLive } from "../support/http-server.js"
import { runImports } from "../support/worker-steps.js"

const forms = ["reference", "overview"] as const
const chromium = dashboardInChromium(forms, {
  adapters: UnlimitedRateLimiterLive,
  // 10,000 subscribers are more than the free plan holds.
  config: { PLAN_LIMITS: "off" }
})

const ROWS = 10_000

/** A file of `ROWS` rows after its header, three of them without a usable address. */
const bigFile = (tag: string) => {
  const lines = ["email,first_name,tags,metadata.plan,Member Rating"]
  for (let i = 1; i <= ROWS; i++) {
    lines.push(i % 4000 === 0 ? `not an address ${i},Nobody,,,1` : `reader-${tag}-${i}@example.com,Reader ${i},Weekly,pro,${i % 5}`)
  }
  return Buffer.from(`${lines.join("\n")}\n`)
}

describe(chromiumSuite(`the import and export screen in Chromium (${chromiumPath})`), () => {
  for (const form of forms) {
    for (const width of widthsOf(form)) {
      it(`the ${form} deployment at ${width} px: refuse a file, import 10,000 rows to the end, export them, in English and German`, async () => {
        const server = chromium.server(form)
        const user = await server.signIn()
        const context = await chromium.browser().newContext({ viewport: { width, height: 800 }, locale: "en-US", timezoneId: "Europe/Berlin" })
        await context.addCookies([{ name: "svc_session", value: user.sessionToken, url: server.baseUrl }])
        const errors: Array<string> = []
        try {
          const page = await context.newPage()
          page.on("pageerror", (error) => void errors.push(String(error)))
          page.on("console", (message) => {
            // A form sent back with its refusal beside a field answers 400 on purpose.
            const refusedForm = /^Failed to load resource: the server responded with a status of 400/.test(message.text())
            if (message.type() === "error" && !refusedForm) errors.push(message.text())
          })

          await page.goto(`${server.baseUrl}/app/organizations`)
          const slug = `imports-${width}-${Math.random().toString(36).slice(2, 8)}`
          await page.getByLabel("Name", { exact: true }).fill("Ada's <News>")
          await page.getByLabel("Short name (slug)").fill(slug)
          await page.getByRole("button", { name: "Create organization" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Overview")

          await page.getByRole("link", { name: "Import and export" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Import and export")
          await checkScreen(page, errors)

          // A file without an email column is refused beside the file field.
          await page.getByLabel("CSV file").setInputFiles({ name: "names.csv", mimeType: "text/csv", buffer: Buffer.from("name\nAda\n") })
          await page.getByRole("button", { name: "Upload and preview" }).click()
          await expect(page.locator("#import-file-error").innerText()).resolves.toContain("one of them 'email'")
          await checkScreen(page, errors)

          // The preview: how each column is read, and the first rows.
          await page.getByLabel("CSV file").setInputFiles({ name: "readers.csv", mimeType: "text/csv", buffer: bigFile(`${form}-${width}`) })
          await page.getByRole("button", { name: "Upload and preview" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Preview of readers.csv")
          await expect(page.getByText("10,000 rows after the header line").isVisible()).resolves.toBe(true)
          await expect(page.getByRole("row", { name: "Member Rating not imported" }).isVisible()).resolves.toBe(true)
          await expect(page.getByRole("row", { name: "metadata.plan metadata.plan" }).isVisible()).resolves.toBe(true)
          await checkScreen(page, errors)

          // Started, it is followed live while the worker runs it, to the end.
          await page.getByRole("button", { name: "Start import" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Import of readers.csv")
          await expect(page.locator("#import-progress-text").innerText()).resolves.toBe("0 of 10,000 rows")
          await checkScreen(page, errors)
          const ran = server.run(runImports)
          const bar = page.getByRole("progressbar", { name: "Progress of the import" })
          await page.locator("#import-progress-text", { hasText: "10,000 of 10,000 rows" }).waitFor({ timeout: 60_000 })
          await ran
          expect(await bar.getAttribute("value")).toBe("10000")
          expect(await bar.getAttribute("max")).toBe("10000")
          // The polling has stopped with the import.
          expect(await page.locator("#import-progress").getAttribute("hx-trigger")).toBeNull()
          await expect(page.locator("dl.counts").innerText()).resolves.toMatch(/Created\s+9,998[\s\S]*Failed\s+2/)
          await expect(page.getByRole("row", { name: /^4,001 email/ }).isVisible()).resolves.toBe(true)
          await expect(page.getByRole("link", { name: "Download problems (CSV)" }).isVisible()).resolves.toBe(true)
          await checkScreen(page, errors)

          // Listed, and exported as a download.
          await page.getByRole("link", { name: "Back to imports" }).click()
          await expect(page.getByRole("link", { name: "readers.csv" }).isVisible()).resolves.toBe(true)
          await page.getByLabel("Tag (optional)").fill("weekly")
          const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()])
          expect(download.suggestedFilename()).toMatch(new RegExp(`^subscribers-${slug}-\\d{4}-\\d{2}-\\d{2}\\.csv$`))
          await checkScreen(page, errors)

          // In German.
          await page.getByRole("link", { name: "Deutsch" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Import und Export")
          expect(await page.locator("html").getAttribute("lang")).toBe("de")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "readers.csv" }).click()
          await expect(page.locator("#import-progress-text").innerText()).resolves.toBe("10.000 von 10.000 Zeilen")
          await expect(page.getByRole("progressbar", { name: "Fortschritt des Imports" }).isVisible()).resolves.toBe(true)
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "Zurück zu den Importen" }).click()
          await page.getByLabel("CSV-Datei").setInputFiles({ name: "leer.csv", mimeType: "text/csv", buffer: Buffer.from("") })
          await page.getByRole("button", { name: "Hochladen und Vorschau" }).click()
          await expect(page.locator("#import-file-error").innerText()).resolves.toContain("Die Datei ist leer.")
          await checkScreen(page, errors)
          expect(errors).toEqual([])
        } finally {
          await context.close()
        }
      }, FLOW_TIMEOUT_MS)
    }
  }
})
