/**
 * The dashboard's templates screen in Chromium through the real server of each deployment (the
 * reference one at 1280 px, the overview one at 375 px): a template written with a Liquid problem,
 * which is marked at its line as it is typed; fixed, its variables listed, previewed for a
 * subscriber found by email (the subject and text on the page, the HTML body in a sandboxed frame
 * that runs no script); saved, sent as a test to the signed-in person through a local server that
 * speaks Resend's API; shown in German and deleted. Every screen has no serious or critical
 * axe-core violation, no horizontal scroll, and nothing the Content-Security-Policy blocks.
 */
import { Layer, Redacted } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { makeResendMailer } from "../../adapters/resend/index.js"
import { chromiumPath, chromiumSuite, FLOW_TIMEOUT_MS, widthsOf } from "../support/chromium.js"
import { call, freshAddress, UnlimitedRateLimiterLive } from "../support/http-server.js"
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

describe(chromiumSuite(`the dashboard's templates in Chromium (${chromiumPath})`), () => {
  for (const form of forms) {
    for (const width of widthsOf(form)) {
      it(`the ${form} deployment at ${width} px: a problem marked at its line as it is typed, fixed, previewed, test-sent, in English and German`, async () => {
        const server = chromium.server(form)
        const api = form === "overview" ? "/v1" : "/api/v1"
        // An organization whose owner is also one of its subscribers, beside a reader.
        const organization = await server.createOrganization()
        const key = await server.createApiKey(organization)
        const owner = await server.signIn()
        await server.addMember(organization.id, owner, "owner")
        for (const [email, name] of [[owner.email, "Ada"], [freshAddress("reader"), "Grace"]] as const) {
          const made = await call(server, "POST", `${api}/subscribers`, { key, json: { email, metadata: { name, plan: "pro" } } })
          expect(made.status, made.text).toBe(201)
        }
        const context = await chromium.browser().newContext({ viewport: { width, height: 800 }, locale: "en-US", timezoneId: "Europe/Berlin" })
        const [name, ...value] = owner.cookie.split("=")
        await context.addCookies([{ name: name!, value: value.join("="), url: server.baseUrl }])
        const errors: Array<string> = []
        try {
          const page = await watchedPage(context, errors)
          await page.goto(`${server.baseUrl}/app/o/${organization.slug}`)

          await page.getByRole("link", { name: "Templates" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Templates")
          await expect(page.getByText("No templates yet.").isVisible()).resolves.toBe(true)
          await checkScreen(page, errors)

          // A problem on the second line of the HTML body is told beside it, at its line and column.
          await page.getByRole("link", { name: "New template" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("New template")
          await page.getByLabel("Name", { exact: true }).fill("Welcome <letter>")
          await page.getByLabel("Subject", { exact: true }).fill("Hello {{ subscriber.metadata.name }}")
          await page.getByLabel("HTML body").fill("<h1>Welcome</h1>\n<p>{% iff subscriber.email %}</p>")
          await page.locator("#tpl-html-error", { hasText: "Line 2, column 4: there is no tag iff (Liquid: tag \"iff\" not found)" }).waitFor({ timeout: 10_000 })
          await expect(page.locator("#tpl-html-problem pre.excerpt").innerText()).resolves.toBe("2 | <p>{% iff subscriber.email %}</p>\n       ^")
          await expect(page.getByLabel("HTML body").getAttribute("aria-invalid")).resolves.toBe("true")
          await expect(page.locator("#tpl-preview-note").innerText()).resolves.toBe("Fix the problems in the template to see the preview.")
          await checkScreen(page, errors)

          // Fixed: the problem goes, the variables are listed, the preview follows for a subscriber found by email.
          await page.getByLabel("HTML body").fill("<h1>Welcome</h1>\n<p>{{ subscriber.email }} on {{ subscriber.metadata.plan }}</p>")
          await page.getByLabel("Text body").fill("Hi {{ subscriber.metadata.name }}")
          await page.locator("#tpl-html-error").waitFor({ state: "detached", timeout: 10_000 })
          await page.locator("#tpl-variables code", { hasText: "subscriber.metadata.plan" }).waitFor({ timeout: 10_000 })
          await expect(page.locator("#tpl-variables code").allInnerTexts()).resolves.toEqual([
            "subscriber.metadata.name",
            "subscriber.email",
            "subscriber.metadata.plan"
          ])
          await page.locator("#tpl-preview-note", { hasText: "Shown for a sample subscriber (jane@example.com)." }).waitFor({ timeout: 10_000 })
          await expect(page.locator("#tpl-preview-empty").innerText()).resolves.toBe(
            "These variables had no value: subscriber.metadata.name, subscriber.metadata.plan."
          )
          await page.getByLabel("Preview for the subscriber with the address").fill(owner.email)
          await page.locator("#tpl-preview-subject", { hasText: "Hello Ada" }).waitFor({ timeout: 10_000 })
          await expect(page.locator("#tpl-preview-text").innerText()).resolves.toBe("Hi Ada")
          const frame = page.frameLocator("#tpl-preview-frame")
          await frame.locator("p", { hasText: `${owner.email} on pro` }).waitFor({ timeout: 10_000 })
          await expect(frame.locator("h1").innerText()).resolves.toBe("Welcome")
          // The frame's document runs no script of the template's.
          await expect(page.locator("#tpl-preview-frame").getAttribute("sandbox")).resolves.toBe("")
          await checkScreen(page, errors)

          await page.getByRole("button", { name: "Create template" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Template Welcome <letter>")
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("The template Welcome <letter> was created.")
          await page.frameLocator("#tpl-preview-frame").locator("h1", { hasText: "Welcome" }).waitFor({ timeout: 10_000 })
          await checkScreen(page, errors)

          // A test send to the signed-in person reaches the provider once the worker hands it over.
          await page.getByRole("button", { name: "Send a test to me" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe(`A test of Welcome <letter> is on its way to ${owner.email}.`)
          expect(await server.run(deliverDue())).toBe(1)
          const mail = resend.accepted().filter((m) => m.to.toLowerCase() === owner.email.toLowerCase())
          expect(mail).toHaveLength(1)
          expect(mail[0]!.subject).toBe("Hello Ada")
          expect(mail[0]!.html).toContain(`<p>${owner.email} on pro</p>`)
          await checkScreen(page, errors)

          // In German: the editor, the list, and the deletion.
          await page.getByRole("link", { name: "Deutsch" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Vorlage Welcome <letter>")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "Vorlagen" }).click()
          await expect(page.getByRole("row", { name: /Welcome <letter>/ }).locator("td").nth(1).innerText()).resolves.toBe("HTML und Text")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "Löschen: Welcome <letter>" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Die Vorlage Welcome <letter> löschen?")
          await checkScreen(page, errors)
          await page.getByRole("button", { name: "Vorlage löschen" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe("Die Vorlage Welcome <letter> wurde gelöscht.")
          await checkScreen(page, errors)
          expect(errors).toEqual([])
        } finally {
          await context.close()
        }
      }, FLOW_TIMEOUT_MS)
    }
  }
})
