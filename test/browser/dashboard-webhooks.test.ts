/**
 * The dashboard's webhooks and email activity screens in Chromium through the real server of each
 * deployment (the reference one at 1280 px, the overview one at 375 px): an endpoint pointing at a
 * local server that answers 500 is added and its secret shown once; a test event tells of the 500
 * and is kept in the delivery log marked as a test;
 * a delivery's failed attempt is logged with status 500, and once the local server answers 200 a
 * redelivery is logged as a success; a hard bounce posted as a signed provider event is listed in
 * the email activity with a link to the subscriber it moved. Every screen has no serious or
 * critical axe-core violation, no horizontal scroll, and nothing the Content-Security-Policy blocks.
 */
import { WebhookDispatch } from "@roster/application"
import { Effect } from "effect"
import { createHmac, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumPath, chromiumSuite, FLOW_TIMEOUT_MS, widthsOf } from "../support/chromium.js"
import { call, freshAddress, type TestHttpServer, UnlimitedRateLimiterLive } from "../support/http-server.js"
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.js"
import { checkScreen, dashboardInChromium, watchedPage } from "./dashboard-kit.js"

const forms = ["reference", "overview"] as const
const emailSecret = `whsec_${randomBytes(32).toString("base64")}`
const chromium = dashboardInChromium(forms, {
  adapters: UnlimitedRateLimiterLive,
  config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", EMAIL_WEBHOOK_SECRET: emailSecret }
})

let receiver: WebhookReceiver
let answer = 500
beforeAll(async () => {
  receiver = await startWebhookReceiver(() => ({ status: answer, body: "{\"ok\":false}" }))
})
afterAll(() => receiver.close())

/** What the worker does: every recorded event to a delivery per endpoint, then every due delivery sent. */
const dispatch = (server: TestHttpServer) =>
  server.run(Effect.gen(function*() {
    const webhooks = yield* WebhookDispatch
    while ((yield* webhooks.fanOut(200)).events > 0) {
      // until every recorded event is taken
    }
    yield* webhooks.deliverDue(200, 30_000)
  }))

/** A hard bounce of `to`, signed as the provider's relay signs it. */
const postBounce = async (server: TestHttpServer, to: string) => {
  const body = JSON.stringify({
    type: "email.bounced",
    created_at: new Date().toISOString(),
    data: { email_id: `re_${randomBytes(6).toString("hex")}`, to: [to], bounce: { type: "Permanent", message: "mailbox does not exist" } }
  })
  const answered = await call(server, "POST", "/webhooks/resend-events", {
    body,
    headers: { "content-type": "application/json", "X-EmailProvider-Signature": createHmac("sha256", emailSecret).update(body).digest("hex") }
  })
  expect(answered.status, answered.text).toBe(200)
}

describe(chromiumSuite(`the dashboard's webhooks and email activity in Chromium (${chromiumPath})`), () => {
  for (const form of forms) {
    for (const width of widthsOf(form)) {
      it(`the ${form} deployment at ${width} px: an endpoint, its secret once, a failed attempt, a redelivery, and a bounce in the activity`, async () => {
        const server = chromium.server(form)
        const api = form === "overview" ? "/v1" : "/api/v1"
        const organization = await server.createOrganization()
        const key = await server.createApiKey(organization)
        const owner = await server.signIn()
        await server.addMember(organization.id, owner, "owner")
        const context = await chromium.browser().newContext({ viewport: { width, height: 800 }, locale: "en-US", timezoneId: "Europe/Berlin" })
        const [name, ...value] = owner.cookie.split("=")
        await context.addCookies([{ name: name!, value: value.join("="), url: server.baseUrl }])
        const errors: Array<string> = []
        answer = 500
        try {
          const page = await watchedPage(context, errors)
          await page.goto(`${server.baseUrl}/app/o/${organization.slug}`)

          // An endpoint refused for a bad URL, then added: its secret is shown this once.
          await page.getByRole("link", { name: "Webhooks" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Webhooks")
          await checkScreen(page, errors)
          await page.getByLabel("URL").fill("example.com/hook")
          await page.getByRole("checkbox", { name: "subscriber.created" }).check()
          await page.getByRole("button", { name: "Add endpoint" }).click()
          await expect(page.locator("#webhook-url-error").innerText()).resolves.toContain("starts with https:// or http://")
          await checkScreen(page, errors)
          await page.getByLabel("URL").fill(receiver.url)
          await page.getByRole("button", { name: "Add endpoint" }).click()
          const secret = await page.getByLabel("Signing secret").inputValue()
          expect(secret).toMatch(/^whsec_/)
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "Done: to the endpoint" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Webhook endpoint")
          expect(await page.content()).not.toContain(secret)
          await checkScreen(page, errors)

          // A test event: the local server answers 500, and the page says so.
          await page.getByRole("button", { name: "Send a test event" }).click()
          await expect(page.getByRole("alert").first().innerText()).resolves.toMatch(/^The test event failed after \d+ ms: answered 500\.$/)
          // The log keeps it, marked as a test, with the 500 that came back.
          const tested = page.locator("section.delivery").first()
          await expect(tested.locator("h3").innerText()).resolves.toBe("webhook.test Test Failed")
          await expect(tested.locator("dd.response-status").allInnerTexts()).resolves.toEqual(["500"])
          await checkScreen(page, errors)

          // A subscriber is created; the worker's delivery fails with 500, and the log shows it.
          const created = await call(server, "POST", `${api}/subscribers`, { key, json: { email: freshAddress("hooked") } })
          expect(created.status, created.text).toBe(201)
          await dispatch(server)
          await page.reload()
          const delivery = page.locator("section.delivery").first()
          await expect(delivery.locator("h3").innerText()).resolves.toBe("subscriber.created Pending")
          await expect(delivery.locator("dd.response-status").allInnerTexts()).resolves.toEqual(["500"])
          await expect(delivery.locator("tr.attempt.failed").count()).resolves.toBe(1)
          await checkScreen(page, errors)

          // The local server answers 200 now; redelivered, the log shows the success above the failure.
          answer = 200
          await page.getByRole("button", { name: "Redeliver subscriber.created" }).click()
          await expect(page.getByRole("status").first().innerText()).resolves.toContain("goes out again")
          await dispatch(server)
          await page.reload()
          await expect(delivery.locator("h3").innerText()).resolves.toBe("subscriber.created Delivered")
          await expect(delivery.locator("dd.response-status").allInnerTexts()).resolves.toEqual(["200", "500"])
          await expect(delivery.locator("tr.attempt.succeeded").count()).resolves.toBe(1)
          await checkScreen(page, errors)

          // The secret rotated is shown once again, and is another.
          await page.getByRole("link", { name: "Rotate the signing secret" }).click()
          await checkScreen(page, errors)
          await page.getByRole("button", { name: "Rotate the secret" }).click()
          const rotated = await page.getByLabel("Signing secret").inputValue()
          expect(rotated).toMatch(/^whsec_/)
          expect(rotated).not.toBe(secret)
          await checkScreen(page, errors)

          // A hard bounce posted by the provider is listed, linking to the subscriber it moved.
          const bounced = freshAddress("bounced")
          const subscriber = await call(server, "POST", `${api}/subscribers`, { key, json: { email: bounced } })
          expect(subscriber.status, subscriber.text).toBe(201)
          await postBounce(server, bounced)
          await page.getByRole("link", { name: "Email activity" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Email activity")
          const row = page.getByRole("row", { name: new RegExp(bounced) })
          await expect(row.locator("td").nth(1).innerText()).resolves.toBe("Hard bounce")
          await expect(row.locator("td").nth(3).innerText()).resolves.toBe("Status to Bounced")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: bounced }).click()
          await expect(page.locator("main").innerText()).resolves.toContain(bounced)
          await checkScreen(page, errors)

          // In German.
          await page.getByRole("link", { name: "Deutsch" }).click()
          await page.getByRole("link", { name: "E-Mail-Aktivität" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("E-Mail-Aktivität")
          await checkScreen(page, errors)
          await page.getByRole("link", { name: "Webhooks" }).click()
          await expect(page.locator("h1").innerText()).resolves.toBe("Webhooks")
          await checkScreen(page, errors)
          expect(errors).toEqual([])
        } finally {
          await context.close()
        }
      }, FLOW_TIMEOUT_MS)
    }
  }
})
