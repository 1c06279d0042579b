import { HttpApi } from "@effect/platform"
import { Context } from "effect"

/**
 * Marks an endpoint whose body is a form posted by HTML forms and mail clients, taken as it comes,
 * rather than JSON: `.annotate(FormBody, true)`.
 */
export class FormBody extends Context.Tag("roster/http/FormBody")<FormBody, boolean>() {}

/**
 * Marks an endpoint whose body is a file its handler streams as it comes (a CSV import), neither
 * bounded by the JSON limit nor read before the handler: `.annotate(FileBody, true)`.
 */
export class FileBody extends Context.Tag("roster/http/FileBody")<FileBody, boolean>() {}

/** What a route's body is: JSON (checked and read before the endpoint), a form, or a file the handler streams. */
export type BodyKind = "json" | "form" | "file"

/** A route the service serves: its method and its path template (`:name` for a parameter). */
export interface KnownRoute {
  readonly method: string
  readonly path: string
  readonly body: BodyKind
}

/** Every route of an HttpApi definition. */
export const routesOf = (api: HttpApi.HttpApi.Any): ReadonlyArray<KnownRoute> => {
  const routes: Array<KnownRoute> = []
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) =>
      routes.push({
        method: endpoint.method,
        path: endpoint.path,
        body: Context.getOrElse(endpoint.annotations, FileBody, () => false)
          ? "file"
          : Context.getOrElse(endpoint.annotations, FormBody, () => false)
          ? "form"
          : "json"
      })
  })
  return routes
}

/** The segments of a path; a trailing slash is ignored, as the router does. */
const segmentsOf = (path: string) => {
  const segments = path.split("/").slice(1)
  return segments.length > 1 && segments[segments.length - 1] === "" ? segments.slice(0, -1) : segments
}

const isParameter = (segment: string) => segment.startsWith(":")

const matches = (template: ReadonlyArray<string>, path: ReadonlyArray<string>): boolean =>
  template.every((segment, i) => isParameter(segment) ? path[i]!.length > 0 : segment === path[i])

/**
 * Templates in the order the router prefers them: a fixed segment before a parameter at the first
 * place they differ (`/subscribers/imports` before `/subscribers/:subscriber_id`).
 */
const bySpecificity = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): number => {
  for (let i = 0; i < a.length; i++) {
    const [fixedA, fixedB] = [!isParameter(a[i]!), !isParameter(b[i]!)]
    if (fixedA !== fixedB) return fixedA ? -1 : 1
  }
  return 0
}

/** Routes looked up by method and path, their templates split once. */
export interface RouteTable {
  /** The route that serves `method` at `path`, if one does. */
  readonly routeAt: (method: string, path: string) => KnownRoute | undefined
  /**
   * The methods the routes serve at `path`, in a stable order, those of its most specific template;
   * empty when no route has this path.
   * Tells a wrong method (405) from a path that does not exist (404).
   */
  readonly methodsAt: (path: string) => ReadonlyArray<string>
}

export const makeRouteTable = (routes: ReadonlyArray<KnownRoute>): RouteTable => {
  const byLength = new Map<number, Array<{ readonly route: KnownRoute; readonly template: ReadonlyArray<string> }>>()
  for (const route of routes) {
    const template = segmentsOf(route.path)
    const sameLength = byLength.get(template.length) ?? []
    sameLength.push({ route, template })
    byLength.set(template.length, sameLength)
  }
  for (const sameLength of byLength.values()) sameLength.sort((a, b) => bySpecificity(a.template, b.template))
  const candidates = (path: string) => {
    // The router ends the path at a `;` as at a `?` (`/subscribers;jsessionid=1`), and so does this.
    const semicolon = path.indexOf(";")
    const wanted = segmentsOf(semicolon === -1 ? path : path.slice(0, semicolon))
    return (byLength.get(wanted.length) ?? []).filter(({ template }) => matches(template, wanted))
  }
  return {
    routeAt: (method, path) => candidates(path).find(({ route }) => route.method === method)?.route,
    methodsAt: (path) => {
      // The templates that serve the path: a fixed segment hides a parameter at its place
      // (`/subscribers/imports` has GET and POST, not the methods of `/subscribers/:subscriber_id`).
      const found = candidates(path)
      const served = found.filter(({ template }) => bySpecificity(template, found[0]!.template) === 0)
      return [...new Set(served.map(({ route }) => route.method))].sort()
    }
  }
}
