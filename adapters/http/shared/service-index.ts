import { type HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect, Schema } from "effect"
import { operationTransform } from "./openapi-model.js"
import { serviceVersion } from "./service-version.js"

/**
 * `GET /`, the service's front door, the same in every form. A browser (an `Accept` that names
 * `text/html` before any JSON type) is sent on to the dashboard; a program (any other `Accept`, or none) gets a small index naming where the API,
 * its documents and its probes are, so that the root of the service answers what it is rather
 * than 404.
 */

const DOCS_PATH = "/docs"
const DASHBOARD_PATH = "/app"

export const ServiceIndex = Schema.Struct({
  name: Schema.Literal("Roster"),
  version: Schema.String.annotations({ description: "version of the running service" }),
  api: Schema.String.annotations({ description: "the base path of the API's operations in the running wire form" }),
  openapi: Schema.String.annotations({ description: "the OpenAPI document of the running wire form" }),
  dashboard: Schema.String.annotations({ description: "the dashboard, where people sign in and run their organizations" }),
  docs: Schema.String.annotations({ description: "the document rendered by Swagger UI" }),
  redoc: Schema.String.annotations({ description: "the document rendered by Redoc" }),
  health: Schema.String.annotations({ description: "the liveness probe" }),
  ready: Schema.String.annotations({ description: "the readiness probe" })
}).annotations({ identifier: "ServiceIndex", description: "where the parts of the service are, as paths on this host" })

/** Whether an `Accept` header asks for a page first: `text/html` named before any JSON type. */
export const prefersPage = (accept: string | undefined): boolean => {
  if (accept === undefined) return false
  const types = accept.split(",").map((part) => part.split(";")[0]!.trim().toLowerCase())
  const html = types.indexOf("text/html")
  const json = types.findIndex((t) => t === "application/json" || t.endsWith("+json"))
  return html !== -1 && (json === -1 || html < json)
}

export const ServiceIndexGroup = HttpApiGroup.make("index")
  .add(
    HttpApiEndpoint.get("index", "/")
      .addSuccess(ServiceIndex)
      .annotate(OpenApi.Transform, operationTransform((operation) => {
        operation.responses["303"] = {
          description: "a browser: to the dashboard (`Location`)",
          headers: { Location: { description: `\`${DASHBOARD_PATH}\``, schema: { type: "string" } } }
        }
        return operation
      }))
      .annotateContext(OpenApi.annotations({
        summary: "Where things are",
        description: `A browser (an \`Accept\` that names \`text/html\` before any JSON type) is sent to \`${DASHBOARD_PATH}\` ` +
          "with 303; any other client gets the paths of the dashboard, the API, its OpenAPI document, its renderings and the probes."
      }))
  )
  .annotate(OpenApi.Title, "Index")
  .annotate(OpenApi.Description, "The root of the service; no credentials needed.")

/** The index of a form whose operations are under `apiBase` (`/api/v1`, `/v1`). */
// The API's own errors and requirements do not matter to these handlers; any API with the group will do.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const makeServiceIndexHandlersLive = <ApiId extends string>(api: HttpApi.HttpApi<ApiId, HttpApiGroup.HttpApiGroup.Any, any, any>, apiBase: string) => {
  const index: typeof ServiceIndex.Type = {
    name: "Roster",
    version: serviceVersion,
    api: apiBase,
    openapi: "/openapi.json",
    dashboard: DASHBOARD_PATH,
    docs: DOCS_PATH,
    redoc: "/redoc",
    health: "/health",
    ready: "/ready"
  }
  return HttpApiBuilder.group(api as unknown as HttpApi.HttpApi<ApiId, typeof ServiceIndexGroup>, "index", (handlers) =>
    handlers.handle("index", ({ request }) =>
      Effect.succeed(
        prefersPage(request.headers["accept"])
          ? HttpServerResponse.redirect(DASHBOARD_PATH, { status: 303 })
          : index
      )))
}
