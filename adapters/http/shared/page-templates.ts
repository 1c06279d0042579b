import { Liquid, type Template } from "liquidjs"

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
  new Liquid({ ...options, strictVariables: !lenient, templates: { ...templates } })

const engine = makePageEngine({})

/** A page's template, parsed once; render it with {@link renderPage}. */
export const pageTemplate = (source: string): ReadonlyArray<Template> => engine.parse(source)

/** The page `template` makes of `values`, every value escaped. */
export const renderPage = (template: ReadonlyArray<Template>, values: object): string =>
  String(engine.renderSync(template as Array<Template>, values))
