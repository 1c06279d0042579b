import { Liquid, type Template } from "liquidjs"

/**
 * The Liquid engine of the service's own pages: every value a page is given is escaped as HTML, so
 * whatever it holds (an organization's name, a message) stays text. Templates are parsed once.
 */
const engine = new Liquid({
  templates: {},
  relativeReference: false,
  strictVariables: true,
  strictFilters: true,
  ownPropertyOnly: true,
  outputEscape: "escape"
})

/** A page's template, parsed once; render it with {@link renderPage}. */
export const pageTemplate = (source: string): ReadonlyArray<Template> => engine.parse(source)

/** The page `template` makes of `values`, every value escaped. */
export const renderPage = (template: ReadonlyArray<Template>, values: object): string =>
  String(engine.renderSync(template as Array<Template>, values))
