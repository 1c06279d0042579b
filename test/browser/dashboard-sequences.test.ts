/**
 * The dashboard's sequences and triggers screens in Chromium through the real server of each
 * deployment (the reference one at 1280 px, the overview one at 375 px): a four-step sequence
 * (send, wait, send, a branch on a segment filter built with the segment builder's controls) built
 * in the editor, a bad wait refused naming its path on the way, activated,
 * a subscriber enrolled and seen where they are, paused and resumed; a trigger created and
 * disabled. Every screen has no serious or critical axe-core violation, no horizontal scroll, and
 * nothing the Content-Security-Policy blocks.
 */
import { describe, expect, it } from "vitest"
import { chromiumPath, chromiumSuite, FLOW_TIMEOUT_MS, widthsOf } from "../support/chromium.js"
import { call, freshAddress } from "../support/http-server.js"
import { checkScreen, dashboardInChromium, watchedPage } from "./dashboard-kit.js"

const forms = ["reference", "overview"] as const
const chromium = dashboardInChromium(forms)

describe(chromiumSuite(`the dashboard's sequences and triggers in Chromium (${chromiumPath})`), () => {
  for (const form of forms) {
    for (const width of widthsOf(form)) {
      it(`the ${form} deployment at ${width} px: a sequence built, activated, enrolled into, paused and resumed; a trigger made and disabled`, async () => {
        const server = chromium.server(form)
        const api = form === "overview" ? "/v1" : "/api/v1"
        const organization = await server.createOrganization()
        const key = await server.createApiKey(organization)
        for (const name of ["Welcome", "Tips"]) {
          const made = await call(server, "POST", `${api}/templates`, { key, json: { name, subject: name, text: "Hello {{ preferences_url }}" } })
          expect(made.status, made.text).toBe(201)
        }
        const email = freshAddress("reader")
        const subscriber = await call(server, "POST", `${api}/subscribers`, { key, json: { email } })
        expect(subscriber.status, subscriber.text).toBe(201)
        const owner = await server.signIn()
        await server.addMember(organization.id, owner, "owner")
        const context = await chromium.browser().newContext({ viewport: { width, height: 800 }, locale: "en-US", timezoneId: "Europe/Berlin" })
        const [name, ...value] = owner.cookie.split("=")
        await context.addCookies([{ name: name!, value: value.join("="), url: server.baseUrl }])
        const errors: Array<string> = []
        try {
          const page = await watchedPage(context, errors)
          await page.goto(`${server.baseUrl}/app/o/${organization.slug}`)

          // The list, then the editor: the first step is an email; a wait and a second email are added.
          await page.getByRole("link", { name: "Sequences", exact: true }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Sequences")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "New sequence" }).click()
          await page.getByLabel("Name", { exact: true }).fill("Welcome series")
          await page.locator("#seq-s0-template").selectOption({ label: "Welcome" })
          await page.getByLabel("Action of a new step").selectOption("wait")
          await page.getByRole("button", { name: "Add step" }).click()
          await expect(page.locator("#seq-s1 legend").innerText()).resolves.toBe("Step 2: Wait (step_2)")
          // The page leads to the new step, and the keyboard goes on from it.
          expect(new URL(page.url()).hash).toBe("#seq-s1")
          await page.waitForFunction("document.activeElement?.id === 'seq-s1'", undefined, { timeout: 5_000 })
          await page.locator("#seq-s1-amount").fill("0")
          await page.getByLabel("Action of a new step").selectOption("send_email")
          await page.getByRole("button", { name: "Add step" }).click()
          await page.locator("#seq-s2-template").selectOption({ label: "Tips" })
          await checkScreen(page, errors)

          // A branch whose segment filter is built with the segment builder's controls.
          await page.getByLabel("Action of a new step").selectOption("branch")
          await page.getByRole("button", { name: "Add step" }).click()
          await page.locator("#seq-s3-condition").selectOption("filter")
          await page.locator("#seq-s3-add-kind").selectOption("status")
          await page.getByRole("button", { name: "Add condition" }).click()
          await expect(page.locator("#seq-s3-c0 > legend").innerText()).resolves.toBe("Condition 1: Status")
          expect(new URL(page.url()).hash).toBe("#seq-s3")
          // Who matches follows the filter's controls, through the segment builder's preview.
          await page.locator("#seq-s3-c0 input[value=unsubscribed]").check()
          await page.locator("#seq-s3-count", { hasText: "1 subscriber matches." }).waitFor({ timeout: 10_000 })
          await page.locator("#seq-s3-c0 input[value=unsubscribed]").uncheck()
          await page.locator("#seq-s3-go-to").selectOption("step_1")
          await checkScreen(page, errors)
          // Asked again by posting the form, the page itself tells who matches, as it does without the script.
          await page.getByRole("button", { name: "Count who matches" }).click()
          await expect(page.locator("#seq-s3-count").innerText()).resolves.toBe("1 subscriber matches.")
          expect(new URL(page.url()).hash).toBe("#seq-s3")
          await checkScreen(page, errors)

          // A wait of nothing is refused naming its path, beside the step; three days are taken.
          await page.getByRole("button", { name: "Create sequence" }).last().click()
          await expect(page.locator("#seq-s1-error").innerText()).resolves.toContain("steps[1].wait:")
          await expect(page.getByRole("alert").innerText()).resolves.toContain("The sequence was not saved:")
          await checkScreen(page, errors)
          await page.locator("#seq-s1-amount").fill("3")
          await page.getByRole("button", { name: "Create sequence" }).last().click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Sequence Welcome series")
          await expect(page.getByRole("cell", { name: "Wait 3 days" }).count()).resolves.toBe(1)
          await expect(page.getByRole("cell", { name: "Send the email Tips (Marketing)" }).count()).resolves.toBe(1)
          await expect(page.getByRole("cell", { name: "If they match (Status is one of Active), go to step_1; otherwise to the next step" }).count()).resolves.toBe(1)
          await checkScreen(page, errors)

          // Activated, a subscriber enrolled by email and seen at their step.
          await page.getByRole("button", { name: "Activate" }).click()
          await expect(page.locator("#sequence-status").innerText()).resolves.toBe("Active")
          await page.getByLabel("Enroll a subscriber by email address").fill(email)
          await page.getByRole("button", { name: "Enroll", exact: true }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toBe(`${email} entered the sequence.`)
          const row = page.getByRole("row").filter({ hasText: email })
          await expect(row.count()).resolves.toBe(1)
          await expect(row.locator("td").nth(1).innerText()).resolves.toBe("In it")
          await expect(row.locator("td").nth(2).innerText()).resolves.toMatch(/^step_\d/)
          // Times read in the viewer's zone, which the note names.
          await expect(page.locator("#seq-zone-note").innerText()).resolves.toBe("Times in your time zone, Europe/Berlin.")
          await checkScreen(page, errors)

          await page.getByRole("button", { name: "Pause" }).click()
          await expect(page.locator("#sequence-status").innerText()).resolves.toBe("Paused")
          await page.getByRole("button", { name: "Resume" }).click()
          await expect(page.locator("#sequence-status").innerText()).resolves.toBe("Active")
          await page.getByRole("link", { name: "Sequences", exact: true }).click()
          const listed = page.getByRole("row").filter({ hasText: "Welcome series" })
          await expect(listed.locator("td").nth(1).innerText()).resolves.toBe("Active")
          await checkScreen(page, errors)

          // A trigger made and disabled.
          await page.getByRole("link", { name: "Triggers", exact: true }).click()
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "New trigger" }).click()
          await page.getByLabel("Name", { exact: true }).fill("Say hello")
          await page.getByLabel("Template", { exact: true }).selectOption({ label: "Welcome" })
          await page.getByLabel("Wait", { exact: true }).fill("2")
          await page.getByLabel("Unit").selectOption("hours")
          await checkScreen(page, errors)
          await page.getByRole("button", { name: "Create trigger" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Trigger Say hello")
          await page.getByRole("button", { name: "Disable" }).click()
          await expect(page.locator("#trigger-status").innerText()).resolves.toBe("Disabled")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "Triggers", exact: true }).click()
          const trigger = page.getByRole("row").filter({ hasText: "Say hello" })
          await expect(trigger.locator("td").nth(0).innerText()).resolves.toBe("Say hello")
          await expect(trigger.locator("td").nth(1).innerText()).resolves.toContain("after 2 hours")
          await expect(trigger.locator("td").nth(3).innerText()).resolves.toBe("Disabled")
          await checkScreen(page, errors)
        } finally {
          await context.close()
        }
      }, FLOW_TIMEOUT_MS)
    }
  }
})
