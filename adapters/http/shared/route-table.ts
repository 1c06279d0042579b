import { HttpApi } from "@effect/platform"
import { Context } from "effect"

/**
 * Marks an endpoint whose body is a form posted by HTML forms and mail clients, taken as it comes,
 * rather than JSON: `.annotate(FormBody, true)`.
 */
export class FormBody extends Context.Tag("roster/http/FormBody")<FormBody, boolean>() {}

/** A route the service serves: its method and its path template (`:name` for a parameter). */
export interface KnownRoute {
  readonly method: string
  readonly path: string
  /** Its body is a form, not JSON. */
  readonly formBody: boolean
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
        formBody: Context.getOrElse(endpoint.annotations, FormBody, () => false)
      })
  })
  return routes
}

/** The segments of a path; a trailing slash is ignored, as the router does. */
const segmentsOf = (path: string) => {
  const segments = path.split("/").slice(1)
  return segments.length > 1 && segments[segments.length - 1] === "" ? segments.slice(0, -1) : segments
}

const matches = (template: ReadonlyArray<string>, path: ReadonlyArray<string>): boolean =>
  template.every((segment, i) => segment.startsWith(":") ? path[i]!.length > 0 : segment === path[i])

/** Routes looked up by method and path, their templates split once. */
export interface RouteTable {
  /** The route that serves `method` at `path`, if one does. */
  readonly routeAt: (method: string, path: string) => KnownRoute | undefined
  /**
   * The methods the routes serve at `path`, in a stable order; empty when no route has this path.
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
  const candidates = (path: string) => {
    const wanted = segmentsOf(path)
    return (byLength.get(wanted.length) ?? []).filter(({ template }) => matches(template, wanted))
  }
  return {
    routeAt: (method, path) => candidates(path).find(({ route }) => route.method === method)?.route,
    methodsAt: (path) => [...new Set(candidates(path).map(({ route }) => route.method))].sort()
  }
}
