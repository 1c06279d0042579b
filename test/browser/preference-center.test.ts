/**
 * The preference page in a real browser: Debian's Chromium, driven by playwright-core, against the
 * real server. It works without JavaScript, so every step is a click on a plain form or link.
 * Where no Chromium is installed (`/usr/bin/chromium`, or CHROMIUM_PATH), the suite says skipped.
 */
import { OrganizationRepository, Subscribers } from "@roster/application"
import { Organization } from "@roster/domain"
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import type { Browser, Locator, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, chromiumPath, chromiumSuite, launchChromium } from "../support/chromium.js"
import { call, startHttpServer, type TestHttpServer } from "../support/http-server.js"


let server: TestHttpServer
let browser: Browser

beforeAll(async () => {
  if (!chromiumAvailable) return
  server = await startHttpServer()
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/** An organization with tags, one of which is named like a script, a subscriber, and their link. */
const subscriberWithLink = async () => {
  const { key, organization } = await server.seedOrganization()
  await server.run(Effect.flatMap(OrganizationRepository, (organizations) =>
    organizations.update(new Organization({ ...organization, name: "Acme <b>Bold</b> News" }))))
  for (const json of [
    { name: "Weekly digest", description: "Every Monday morning" },
    { name: "<script>window.hacked = true</script>" }
  ]) {
    expect((await call(server, "POST", "/api/v1/tags", { key, json })).status).toBe(201)
  }
  const subscriber = (await call(server, "POST", "/api/v1/subscribers", {
    key,
    json: { email: `reader-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}@example.com` }
  })).body
  const token = (await call(server, "POST", `/api/v1/subscribers/${subscriber.id}/token`, { key })).body.token as string
  return { key, subscriber, url: `${server.baseUrl}/preference-center?token=${encodeURIComponent(token)}` }
}

const withPage = async (run: (page: Page) => Promise<void>, locale = "en-US") => {
  const context = await browser.newContext({ acceptDownloads: true, locale, viewport: { width: 390, height: 844 } })
  try {
    await run(await context.newPage())
  } finally {
    await context.close()
  }
}

/** The text of the first element the locator finds, once there is one. */
const textOf = async (locator: Locator) => (await locator.first().innerText()).trim()

const subscriberState = async (key: string, id: string) => {
  const answer = await call(server, "GET", `/api/v1/subscribers/${id}`, { key })
  return { http: answer.status, status: answer.body.status, tags: (answer.body.tags ?? []).map((t: { name: string }) => t.name) }
}

describe.skipIf(!chromiumAvailable)(chromiumSuite(`the preference page in Chromium (${chromiumPath})`), () => {
  it("shows the organization, the address and every tag; a tag or organization name holding markup stays text", async () => {
    const { subscriber, url } = await subscriberWithLink()
    await withPage(async (page) => {
      const errors: Array<string> = []
      page.on("pageerror", (error) => errors.push(error.message))
      await page.goto(url)
      expect(await textOf(page.locator("h1"))).toBe("Your email preferences")
      const text = await page.locator("main").innerText()
      expect(text).toContain("Acme <b>Bold</b> News")
      expect(text).toContain(subscriber.email)
      expect(text).toContain("Weekly digest")
      expect(text).toContain("Every Monday morning")
      expect(text).toContain("<script>window.hacked = true</script>")
      expect(await page.evaluate("window.hacked")).toBeUndefined()
      expect(await page.locator("b").count()).toBe(0)
      expect(errors).toEqual([])
    })
  })

  it("toggles a tag on and off, and unsubscribes from everything and back, by plain forms", async () => {
    const { key, subscriber, url } = await subscriberWithLink()
    await withPage(async (page) => {
      await page.goto(url)
      await page.getByRole("button", { name: "Subscribe: Weekly digest" }).click()
      expect(await textOf(page.getByRole("status"))).toBe("Your preferences are saved.")
      expect((await subscriberState(key, subscriber.id)).tags).toEqual(["Weekly digest"])

      await page.getByRole("button", { name: "Unsubscribe: Weekly digest" }).click()
      await page.getByRole("button", { name: "Subscribe: Weekly digest" }).waitFor({ state: "visible" })
      expect((await subscriberState(key, subscriber.id)).tags).toEqual([])

      await page.getByRole("button", { name: "Unsubscribe from everything" }).click()
      await page.getByRole("button", { name: "Get email again" }).waitFor({ state: "visible" })
      expect((await subscriberState(key, subscriber.id)).status).toBe("unsubscribed")

      await page.getByRole("button", { name: "Get email again" }).click()
      await page.getByRole("button", { name: "Unsubscribe from everything" }).waitFor({ state: "visible" })
      expect((await subscriberState(key, subscriber.id)).status).toBe("active")
    })
  })

  it("speaks German to a German browser, and when asked with ?locale=de", async () => {
    const { url } = await subscriberWithLink()
    await withPage(async (page) => {
      await page.goto(url)
      expect(await textOf(page.locator("h1"))).toBe("Ihre E-Mail-Einstellungen")
      await page.getByRole("button", { name: "Abonnieren: Weekly digest" }).click()
      expect(await textOf(page.getByRole("status"))).toBe("Ihre Einstellungen sind gespeichert.")
    }, "de-DE")
    await withPage(async (page) => {
      await page.goto(`${url}&locale=de`)
      expect(await page.locator("html").getAttribute("lang")).toBe("de")
    })
  })

  it("downloads the data export as a JSON file", async () => {
    const { subscriber, url } = await subscriberWithLink()
    await withPage(async (page) => {
      await page.goto(url)
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download my data" }).click()])
      expect(download.suggestedFilename()).toMatch(/^roster-data-\d{4}-\d{2}-\d{2}\.json$/)
      const exported = JSON.parse(await readFile(await download.path(), "utf8"))
      expect(exported.subscriber).toMatchObject({ id: subscriber.id, email: subscriber.email })
    })
  })

  it("deletes the account after a confirmation; the worker's erasure removes the subscriber", async () => {
    const { key, subscriber, url } = await subscriberWithLink()
    await withPage(async (page) => {
      await page.goto(url)
      await page.getByRole("link", { name: "Delete my data" }).click()
      expect(await textOf(page.locator("h1"))).toBe("Delete your data?")
      await page.getByRole("link", { name: "Keep my data" }).click()
      expect(await textOf(page.locator("h1"))).toBe("Your email preferences")
      await page.getByRole("link", { name: "Delete my data" }).click()
      await page.getByRole("button", { name: "Delete my data" }).click()
      expect(await textOf(page.locator("h1"))).toBe("Your data is being deleted")
      await page.goto(url)
      expect(await textOf(page.locator("h1"))).toBe("This link no longer works")
    })
    await server.run(Effect.flatMap(Subscribers, (subscribers) => subscribers.eraseRequested(100)))
    expect((await subscriberState(key, subscriber.id)).http).toBe(404)
  })

  it("shows a friendly page, not JSON, for a broken link", async () => {
    await withPage(async (page) => {
      const answer = await page.goto(`${server.baseUrl}/preference-center?token=broken`)
      expect(answer?.status()).toBe(401)
      expect(await textOf(page.locator("h1"))).toBe("This link no longer works")
    })
  })
})

