/**
 * The Chromium every browser suite drives, as it is launched (test/support/chromium.ts): the
 * features Playwright turns off stay off beside those the suites add, and the browser draws no
 * omnibox popup, which a headless browser never shows, beside the pages under test.
 */
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, chromiumSuite, launchChromium, playwrightDisabledFeatures } from "../support/chromium.js"

let browser: Browser

beforeAll(async () => {
  if (chromiumAvailable) browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
})

describe.skipIf(!chromiumAvailable)(chromiumSuite("Chromium as the browser suites launch it"), () => {
  it("keeps off every feature Playwright turns off: Chromium reads only the last --disable-features", async () => {
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.goto("chrome://version")
      const commandLine = await page.locator("#command_line").innerText()
      const lists = [...commandLine.matchAll(/--disable-features=(\S*)/g)].map((match) => match[1]!.split(","))
      // Playwright's own, then the suites'.
      expect(lists.length, commandLine).toBeGreaterThanOrEqual(2)
      const playwrights = lists[0]!
      const read = lists.at(-1)!
      expect(playwrights.filter((feature) => !read.includes(feature)), "turned off by Playwright, on again").toEqual([])
      expect(playwrightDisabledFeatures.toSorted()).toEqual(playwrights.toSorted())
      expect(read).toEqual(expect.arrayContaining(["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]))
    } finally {
      await context.close()
    }
  })

  it("draws no omnibox popup beside a page under test", async () => {
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.setContent("<main><h1>A page under test</h1></main>")
      const session = await browser.newBrowserCDPSession()
      const { targetInfos } = await session.send("Target.getTargets", { filter: [{}] }) as {
        readonly targetInfos: ReadonlyArray<{ readonly type: string; readonly url: string }>
      }
      await session.detach()
      // Chromium draws them as pages of its own (chrome://omnibox-popup.top-chrome/ and its AI-mode twin).
      const omniboxPopups = targetInfos.filter((target) => target.url.startsWith("chrome://omnibox-popup"))
      expect(omniboxPopups.map((target) => target.url)).toEqual([])
      expect(targetInfos.some((target) => target.type === "page")).toBe(true)
    } finally {
      await context.close()
    }
  })
})
