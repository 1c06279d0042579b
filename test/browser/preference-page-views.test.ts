/**
 * The preference page as a person meets it, in Debian's Chromium through the real server of each
 * deployment (the reference and the overview wire form): at 1280 and 375 px wide, in English and
 * German, with axe-core finding no serious or critical violation. It shows the public tags only,
 * a tag is taken with a click, and at a subscriber's tag limit the page says why it took nothing.
 * Where no Chromium is installed (`/usr/bin/chromium`, or CHROMIUM_PATH), the suite says skipped.
 */
import { TagAssignments, TagRepository } from "@roster/application"
import { MAX_TAGS_PER_SUBSCRIBER, type OrganizationId, Slug, SubscriberId, Tag, TagId } from "@roster/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, chromiumPath, chromiumSuite, launchChromium, seriousViolations } from "../support/chromium.js"
import { call, startHttpServer, type TestHttpServer } from "../support/http-server.js"

type FormName = "reference" | "overview"
const deployments: ReadonlyArray<{ readonly form: FormName; readonly api: string }> = [
  { form: "reference", api: "/api/v1" },
  { form: "overview", api: "/v1" }
]

let servers: Partial<Record<FormName, TestHttpServer>> = {}
let browser: Browser

beforeAll(async () => {
  if (!chromiumAvailable) return
  const [reference, overview] = await Promise.all([startHttpServer(), startHttpServer({ form: "overview" })])
  servers = { reference: reference!, overview: overview! }
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await Promise.all(Object.values(servers).map((server) => server.close()))
})

/** The body of an answer of either form: bare in the reference form, in `data` in the overview form. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const bodyOf = (form: FormName, body: any) => (form === "overview" ? body.data : body)

/** An organization with a public and a private tag, a subscriber, and their link. */
const subscriberWithLink = async (form: FormName, api: string) => {
  const server = servers[form]!
  const { key, organization } = await server.seedOrganization()
  for (const json of [
    { name: "Weekly digest", description: "Every Monday morning" },
    { name: "Product news" },
    { name: "VIP customers", visibility: "private" }
  ]) {
    const made = await call(server, "POST", `${api}/tags`, { key, json })
    expect(made.status, made.text).toBe(201)
  }
  const email = `reader-${randomUUID()}@example.com`
  const subscriber = bodyOf(form, (await call(server, "POST", `${api}/subscribers`, { key, json: { email } })).body)
  const token = bodyOf(form, (await call(server, "POST", `${api}/subscribers/${subscriber.id}/token`, { key })).body).token as string
  return { organization, subscriber, url: `${server.baseUrl}/preference-center?token=${encodeURIComponent(token)}` }
}

const withPage = async (width: number, locale: string, run: (page: Page) => Promise<void>) => {
  // The page runs no script of its own, and its Content-Security-Policy allows none: axe-core is
  // let in by the test's browser alone.
  const context = await browser.newContext({ locale, viewport: { width, height: 900 }, bypassCSP: true })
  try {
    await run(await context.newPage())
  } finally {
    await context.close()
  }
}

/** Whether the page fits its viewport without scrolling sideways. */
const fitsWidth = (page: Page) => page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

const languages = [
  { locale: "en-US", lang: "en", subscribe: "Subscribe", unsubscribe: "Unsubscribe" },
  { locale: "de-DE", lang: "de", subscribe: "Abonnieren", unsubscribe: "Abbestellen" }
] as const

describe.skipIf(!chromiumAvailable)(chromiumSuite(`the preference page in Chromium (${chromiumPath})`), () => {
  describe.each(deployments)("deployed with the $form form", ({ form, api }) => {
    for (const width of [1280, 375]) {
      for (const language of languages) {
        it(`at ${width} px in ${language.lang}: public tags only, a tag taken by a click, no serious axe violation`, async () => {
          const { url } = await subscriberWithLink(form, api)
          await withPage(width, language.locale, async (page) => {
            await page.goto(url)
            expect(await page.getAttribute("html", "lang")).toBe(language.lang)
            const body = await page.innerText("body")
            expect(body).toContain("Weekly digest")
            expect(body).toContain("Product news")
            expect(body).not.toContain("VIP customers")
            expect(await seriousViolations(page)).toEqual([])
            expect(await fitsWidth(page)).toBe(true)

            await page.getByRole("button", { name: `${language.subscribe}: Weekly digest` }).click()
            await page.waitForLoadState()
            await expect(page.getByRole("button", { name: `${language.unsubscribe}: Weekly digest` }).count()).resolves.toBe(1)
            expect(await seriousViolations(page)).toEqual([])
            expect(await fitsWidth(page)).toBe(true)
          })
        })
      }
    }

    it("at a subscriber's tag limit, a click on another tag answers a page that says why, clean for axe at 375 px", async () => {
      const server = servers[form]!
      const { organization, subscriber, url } = await subscriberWithLink(form, api)
      await server.run(Effect.gen(function*() {
        const tags = yield* TagRepository
        const assignments = yield* TagAssignments
        const at = new Date()
        const made: Array<TagId> = []
        for (let i = 1; i <= MAX_TAGS_PER_SUBSCRIBER; i++) {
          const number = String(i).padStart(3, "0")
          const tag = new Tag({
            id: TagId.make(randomUUID()),
            organizationId: organization.id as OrganizationId,
            name: `Topic ${number}`,
            slug: Slug.make(`topic-${number}`),
            description: null,
            displayName: null,
            category: null,
            visibility: "public",
            metadata: {},
            subscriberCount: 0,
            createdAt: at,
            updatedAt: at
          })
          yield* tags.insert(tag, null)
          made.push(tag.id)
        }
        yield* assignments.attach(organization.id, SubscriberId.make(subscriber.id), made, at, null)
      }))
      await withPage(375, "de-DE", async (page) => {
        await page.goto(url)
        const [answer] = await Promise.all([
          page.waitForResponse((response) => response.request().method() === "POST"),
          page.getByRole("button", { name: "Abonnieren: Weekly digest" }).click()
        ])
        expect(answer.status()).toBe(409)
        await page.waitForLoadState()
        expect(await page.innerText("body")).toContain(`Sie können höchstens ${MAX_TAGS_PER_SUBSCRIBER} Themen abonnieren`)
        expect(await seriousViolations(page)).toEqual([])
        expect(await fitsWidth(page)).toBe(true)
      })
    })
  })
})
