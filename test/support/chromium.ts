import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { type Browser, chromium, type Page } from "playwright-core"

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

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/**
 * Run in the page after axe-core: its default rules, less those none of whose checks can fail
 * worse than moderate (landmarks, heading order, ...). Their findings would be dropped below
 * anyway, and on a page as large as Redoc's each of them costs seconds. The checks' impacts are
 * read from axe-core's own rule table, so a rule a newer axe-core makes serious is run.
 */
const runSeriousRules = `(() => {
  const checkImpact = (check) => axe._audit.data.checks[check.id ?? check]?.impact
  const canBeSerious = (rule) => [...rule.any, ...rule.all, ...rule.none]
    .some((check) => ["serious", "critical", undefined].includes(checkImpact(check)))
  const disabled = Object.fromEntries(axe._audit.rules.filter((rule) => !canBeSerious(rule)).map((rule) => [rule.id, { enabled: false }]))
  return axe.run(document, { resultTypes: ["violations"], rules: disabled }).then((results) => results.violations)
})()`

/**
 * The serious and critical violations axe-core finds on the page, by rule and where. A page whose
 * Content-Security-Policy allows no script needs a context with `bypassCSP` to let axe-core in.
 */
export const seriousViolations = async (page: Page): Promise<ReadonlyArray<string>> => {
  await page.evaluate(axeSource)
  // Strings, not functions: the page's globals are the browser's, which this project's types do not know.
  const violations = await page.evaluate(runSeriousRules) as ReadonlyArray<{
    readonly id: string
    readonly impact: string
    readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<string> }>
  }>
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
}
