import { Liquid, type Template } from "liquidjs"
import { createHash } from "node:crypto"

/**
 * The Liquid engines of the service's own pages: every value a page is given is escaped as HTML,
 * so whatever it holds (an organization's name, a message) stays text. Templates are parsed once.
 */
const options = {
  relativeReference: false,
  strictVariables: true,
  strictFilters: true,
  ownPropertyOnly: true,
  outputEscape: "escape"
} as const

/**
 * An engine whose pages may name each other (`{% layout "page" %}`, `{% render "pager" %}`) among
 * `templates`, which are held in memory. `lenient` lets a page leave out what it has no value for
 * (an absent error, a field not yet filled in) rather than fail.
 */
export const makePageEngine = (templates: Readonly<Record<string, string>>, { lenient = false } = {}): Liquid =>
  // The templates never change: each layout and partial is parsed on its first use, not on each.
  new Liquid({ ...options, strictVariables: !lenient, templates: { ...templates }, cache: true })

const engine = makePageEngine({})

/** A page's template, parsed once; render it with {@link renderPage}. */
export const pageTemplate = (source: string): ReadonlyArray<Template> => engine.parse(source)

/** The page `template` makes of `values`, every value escaped. */
export const renderPage = (template: ReadonlyArray<Template>, values: object): string =>
  String(engine.renderSync(template as Array<Template>, values))

/**
 * A page that stands alone (the preference center's, the sign-up forms'): no script, no external
 * asset, its one inline `style`, and a `body` laid out in `<main>` under the title `titleOf`
 * names (a Liquid expression). Its headers allow that style only and forms posted back to this
 * origin, send no referrer (a page's address may hold its token) and keep it out of caches.
 */
export const standalonePage = (style: string, titleOf: string) => ({
  headers: {
    "Content-Security-Policy": [
      "default-src 'none'",
      `style-src 'sha256-${createHash("sha256").update(style, "utf8").digest("base64")}'`,
      "form-action 'self'",
      "base-uri 'none'",
      "frame-ancestors 'none'"
    ].join("; "),
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY"
  } as Readonly<Record<string, string>>,
  layout: (body: string) =>
    pageTemplate(`<!DOCTYPE html>
<html lang="{{ locale }}">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <meta name="referrer" content="no-referrer" />
  <title>{{ ${titleOf} }}</title>
  <style>${style}</style>
</head>
<body>
  <main>
${body}
  </main>
</body>
</html>
`)
})
