/**
 * The dashboard's campaigns screens in Chromium through the real server of each deployment (the
 * reference one at 1280 px, the overview one at 375 px), in Berlin's time zone: a campaign
 * composed for a segment, its recipients counted by the page's script as the audience is chosen,
 * scheduled an hour ahead and cancelled; its duplicate sent after the confirmation that names how
 * many it reaches, its progress followed to 100 % while the test server runs the worker's steps,
 * and its figures moved by signed provider events. Every screen has no serious or critical
 * axe-core violation, no horizontal scroll, and nothing the Content-Security-Policy blocks.
 */
import { MessageRepository } from "@roster/application"
import { OrganizationId } from "@roster/domain"
import { Effect } from "effect"
import { createHmac, randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { chromiumPath, chromiumSuite, FLOW_TIMEOUT_MS, widthsOf } from "../support/chromium.js"
import { call, freshAddress, UnlimitedRateLimiterLive } from "../support/http-server.js"
import { deliverDue, fixAudiences } from "../support/worker-steps.js"
import { checkScreen, dashboardInChromium, watchedPage } from "./dashboard-kit.js"

const forms = ["reference", "overview"] as const
const secret = `whsec_${randomBytes(32).toString("base64")}`
const chromium = dashboardInChromium(forms, { adapters: UnlimitedRateLimiterLive, config: { EMAIL_WEBHOOK_SECRET: secret } })

/** A date and time as a `datetime-local` field of `zone` shows it. */
const wallTime = (at: Date, zone: string) => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit"
    }).formatToParts(at).map((p) => [p.type, p.value])
  )
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`
}

describe(chromiumSuite(`the dashboard's campaigns in Chromium (${chromiumPath})`), () => {
  for (const form of forms) {
    for (const width of widthsOf(form)) {
      it(`the ${form} deployment at ${width} px: a campaign for a segment scheduled and cancelled, its copy sent and followed to its figures`, async () => {
        const server = chromium.server(form)
        const api = form === "overview" ? "/v1" : "/api/v1"
        // An organization with three subscribers, two on the pro plan, and a segment of those; its owner signed in.
        const organization = await server.createOrganization()
        const key = await server.createApiKey(organization)
        for (const plan of ["pro", "pro", "free"]) {
          const made = await call(server, "POST", `${api}/subscribers`, { key, json: { email: freshAddress(plan), metadata: { plan } } })
          expect(made.status, made.text).toBe(201)
        }
        const segment = await call(server, "POST", `${api}/segments`, {
          key,
          json: { name: "Pro readers", filter: { field: "metadata.plan", op: "eq", value: "pro" } }
        })
        expect(segment.status, segment.text).toBe(201)
        const owner = await server.signIn()
        await server.addMember(organization.id, owner, "owner")
        const context = await chromium.browser().newContext({ viewport: { width, height: 800 }, locale: "en-US", timezoneId: "Europe/Berlin" })
        const [name, ...value] = owner.cookie.split("=")
        await context.addCookies([{ name: name!, value: value.join("="), url: server.baseUrl }])
        const errors: Array<string> = []
        try {
          const page = await watchedPage(context, errors)
          await page.goto(`${server.baseUrl}/app/o/${organization.slug}`)

          // The composer: a segment as the audience, counted as it is chosen.
          await page.getByRole("link", { name: "Campaigns" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Campaigns")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "New campaign" }).click()
          await expect(page.locator("#campaign-count-text").innerText()).resolves.toBe("3 subscribers would receive it now.")
          await checkScreen(page, errors)
          await page.getByLabel("Name", { exact: true }).fill("Pro news")
          await page.getByLabel("Subject").fill("News for you")
          await page.getByLabel("Plain text").fill("The news. {{ unsubscribe_url }}")
          await page.getByRole("radio", { name: "A segment" }).check()
          await page.getByLabel("Segment", { exact: true }).selectOption({ label: "Pro readers" })
          await page.locator("#campaign-count-text", { hasText: "2 subscribers would receive it now." }).waitFor({ timeout: 10_000 })
          // An hour ahead, as Berlin's clocks read.
          const inAnHour = new Date(Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000)
          await page.getByLabel("Send at").fill(wallTime(inAnHour, "Europe/Berlin"))
          await page.getByRole("button", { name: "Create draft" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("The campaign Pro news was created.")
          await expect(page.getByLabel("Send at").inputValue()).resolves.toBe(wallTime(inAnHour, "Europe/Berlin"))
          await checkScreen(page, errors)

          // Scheduled after the confirmation, then cancelled.
          await page.getByRole("link", { name: "Send…" }).click()
          await expect(page.locator("#campaign-question").innerText()).resolves.toContain("(2 subscribers now)")
          await checkScreen(page, errors)
          await page.getByRole("button", { name: "Schedule" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("The campaign Pro news is scheduled.")
          await expect(page.locator("#campaign-status").innerText()).resolves.toBe("Scheduled")
          await checkScreen(page, errors)
          await page.getByRole("button", { name: "Cancel the campaign" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("The campaign Pro news was cancelled.")
          await expect(page.locator("#campaign-status").innerText()).resolves.toBe("Cancelled")
          await checkScreen(page, errors)

          // Its copy is sent now, to the number the confirmation names, and followed to the end.
          await page.getByRole("button", { name: "Duplicate" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("A copy was made as a draft: Pro news (copy).")
          await page.getByRole("link", { name: "Send…" }).click()
          await expect(page.locator("#campaign-question").innerText()).resolves.toBe("Send to 2 subscribers?")
          await page.getByRole("button", { name: "Send now" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("The campaign Pro news (copy) is sending.")
          await expect(page.locator("#campaign-status").innerText()).resolves.toBe("Sending")
          await checkScreen(page, errors)
          await expect(page.locator("#campaign-progress-text").innerText()).resolves.toBe("Taking the audience…")
          // The audience taken, none sent yet: the page follows without loading again.
          await page.evaluate("window.stillThisPage = true")
          await server.run(fixAudiences())
          await page.locator("#campaign-progress-text", { hasText: "0 of 2 emails settled (0 %)" }).waitFor({ timeout: 30_000 })
          await expect(page.locator("#campaign-queued").innerText()).resolves.toBe("2")
          expect(await page.evaluate("window.stillThisPage")).toBe(true)
          const ran = server.run(deliverDue())
          await page.locator("#campaign-progress-text", { hasText: "2 of 2 emails settled (100 %)" }).waitFor({ timeout: 30_000 })
          await ran
          await page.locator("#campaign-status", { hasText: "Sent" }).waitFor({ timeout: 30_000 })
          await expect(page.getByRole("progressbar", { name: "Progress of the sending" }).getAttribute("value")).resolves.toBe("100")
          await expect(page.locator("#figure-opened").innerText()).resolves.toBe("0")
          await checkScreen(page, errors)

          // Signed provider events: both delivered, one opened and clicked.
          const messages = await server.run(Effect.flatMap(MessageRepository, (m) =>
            m.list({ organizationId: OrganizationId.make(organization.id), status: "sent", limit: 10 })))
          expect(messages).toHaveLength(2)
          const events = [
            ["email.delivered", messages[0]!], ["email.delivered", messages[1]!], ["email.opened", messages[0]!], ["email.clicked", messages[0]!]
          ] as const
          for (const [type, message] of events) {
            const body = JSON.stringify({ type, created_at: new Date().toISOString(), data: { created_at: new Date().toISOString(), email_id: message.providerId } })
            const answer = await call(server, "POST", "/webhooks/resend-events", {
              body,
              headers: { "content-type": "application/json", "X-EmailProvider-Signature": createHmac("sha256", secret).update(body).digest("hex") }
            })
            expect(answer.status, answer.text).toBeLessThan(300)
          }
          await page.reload()
          await expect(page.locator("#figure-delivered").innerText()).resolves.toBe("2")
          await expect(page.locator("#figure-opened").innerText()).resolves.toBe("1")
          await expect(page.locator("#figure-clicked").innerText()).resolves.toBe("1")
          await page.locator("summary", { hasText: "The figures over time as a table" }).click()
          await expect(page.locator("#campaign-timeline tbody tr").last().locator("td.number").allInnerTexts()).resolves.toEqual(["2", "1", "1"])
          await checkScreen(page, errors)

          // The list, in German.
          await page.getByRole("link", { name: "Deutsch" }).click()
          await page.getByRole("link", { name: "Kampagnen", exact: true }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Kampagnen")
          await expect(page.getByRole("row", { name: /Pro news \(copy\)/ }).locator("td.number").allInnerTexts()).resolves.toEqual(["2", "1", "1"])
          await checkScreen(page, errors)
          expect(errors).toEqual([])
        } finally {
          await context.close()
        }
      }, FLOW_TIMEOUT_MS)
    }
  }
})
