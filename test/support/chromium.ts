import { existsSync } from "node:fs"
import { type Browser, chromium } from "playwright-core"

/**
 * The Chromium the browser suites drive: `/usr/bin/chromium` (Debian's package), or
 * `CHROMIUM_PATH`. Where it is absent a suite skips itself and says why in its name.
 */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

export const chromiumAvailable = existsSync(chromiumPath)

/** `title`, or, without Chromium, `title` with the reason it is skipped and how to install it. */
export const chromiumSuite = (title: string): string =>
  chromiumAvailable
    ? title
    : `${title} (skipped: Chromium not found at ${chromiumPath}; apt-get install -y chromium, or set CHROMIUM_PATH)`

/** The arguments the suites launch Chromium with: headless in a container, nothing fetched of its own. */
export const chromiumArgs = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

/** Chromium launched headless as every browser suite drives it. */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs })
