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

/**
 * The widths a deployment's pages are checked at: the reference deployment's at 1280 px, the
 * overview deployment's at 375 px. Both serve the same pages from the same templates (the API's
 * prefix is what differs), so between them every page is checked at both widths, and each flow is
 * walked through twice, not four times.
 */
export const widthsOf = (form: "reference" | "overview"): ReadonlyArray<number> => (form === "reference" ? [1280] : [375])

/**
 * How long a test walking through several pages may take: some 10 to 20 s on a quiet two-core
 * machine, several times that when the machine is busy. Only a hang runs into it.
 */
export const FLOW_TIMEOUT_MS = 120_000

/**
 * The features Playwright turns off as it launches Chromium (playwright-core's chromiumSwitches.ts).
 * Chromium keeps only the last `--disable-features` of its command line, and ours comes after
 * Playwright's, so it names them again; test/browser/chromium-launch.test.ts holds this list to
 * the one Playwright gives.
 */
export const playwrightDisabledFeatures = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "DialMediaRouteProvider",
  "GlobalMediaControls",
  "HttpsUpgrades",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "BlockOriginHeaderModificationOnRedirect",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "Translate",
  "AutoDeElevate",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion"
]

/**
 * The omnibox's popups, which Chromium draws as pages of its own (WebUI) in a renderer of their own
 * for every window it opens, though a headless browser shows no omnibox. They took about a sixth
 * of the processor time of the dashboard's browser suites.
 */
const unseenBrowserUi = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]

/** The arguments the suites launch Chromium with: headless in a container, nothing fetched or drawn of its own. */
export const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--no-first-run",
  `--disable-features=${[...playwrightDisabledFeatures, ...unseenBrowserUi].join(",")}`
]

/** Chromium launched headless as every browser suite drives it. */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs })

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/**
 * Run in the page after axe-core: its default rules, less those none of whose checks can fail
 * worse than moderate (landmarks, heading order, ...). Their findings would be dropped below
 * anyway, and on a page as large as Redoc's each of them costs seconds. The checks' impacts are
 * read from axe-core's own rule table, so a rule a newer axe-core makes serious is run. With
 * `contrastWithin` (a selector), the rules of colour (the contrast of text, and links told apart
 * from the text around them) are checked within what it selects only.
 */
const runSeriousRules = (contrastWithin: string | undefined) => `(() => {
  const contrastWithin = ${JSON.stringify(contrastWithin ?? null)}
  const checkImpact = (check) => axe._audit.data.checks[check.id ?? check]?.impact
  const canBeSerious = (rule) => [...rule.any, ...rule.all, ...rule.none]
    .some((check) => ["serious", "critical", undefined].includes(checkImpact(check)))
  const disabled = Object.fromEntries(axe._audit.rules.filter((rule) => !canBeSerious(rule)).map((rule) => [rule.id, { enabled: false }]))
  const options = { resultTypes: ["violations"], rules: disabled }
  if (contrastWithin === null) return axe.run(document, options).then((results) => results.violations)
  const colour = ["color-contrast", "link-in-text-block"]
  const everywhere = axe.run(document, { ...options, rules: { ...disabled, ...Object.fromEntries(colour.map((id) => [id, { enabled: false }])) } })
  return everywhere.then((rest) =>
    axe.run({ include: [contrastWithin] }, { resultTypes: ["violations"], runOnly: { type: "rule", values: colour } })
      .then((contrast) => [...rest.violations, ...contrast.violations]))
})()`

/**
 * The serious and critical violations axe-core finds on the page, by rule and where. A page whose
 * Content-Security-Policy allows no script needs a context with `bypassCSP` to let axe-core in.
 * Colour contrast, the costliest check by far (some 25 s on Redoc's page of 38,000 elements), and
 * links told apart from their text by more than colour (4 s more there) are checked within
 * `contrastWithin` alone where it is given: for a page that draws many parts alike from one
 * theme, a sample of them.
 */
export const seriousViolations = async (
  page: Page,
  { contrastWithin }: { readonly contrastWithin?: string } = {}
): Promise<ReadonlyArray<string>> => {
  await page.evaluate(axeSource)
  // Strings, not functions: the page's globals are the browser's, which this project's types do not know.
  const violations = await page.evaluate(runSeriousRules(contrastWithin)) as ReadonlyArray<{
    readonly id: string
    readonly impact: string
    readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<string> }>
  }>
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
}
