import { FileSystem, HttpApi, HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect, Layer } from "effect"
import { createRequire } from "node:module"
import { HttpSettings } from "./http-settings.js"
import type { KnownRoute } from "./route-table.js"

/**
 * The machine-readable description and the two renderings of it, all from this server: the
 * OpenAPI document at `/openapi.json`, Swagger UI at `/docs` and Redoc at `/redoc`. Each
 * rendering is a small page of ours that loads the renderer's script (and Swagger UI's
 * stylesheet) from the installed package's files, served under the page's path. Nothing is
 * fetched from elsewhere: Swagger UI's online validator is off, and Redoc's bundle is served
 * without the Redocly logo it would load from Redocly's CDN.
 */

const OPENAPI_PATH = "/openapi.json"
const SWAGGER_PATH = "/docs"
const SWAGGER_BUNDLE_PATH = "/docs/swagger-ui-bundle.js"
const SWAGGER_STYLESHEET_PATH = "/docs/swagger-ui.css"
const REDOC_PATH = "/redoc"
const REDOC_BUNDLE_PATH = "/redoc/redoc.standalone.js"

export const docsRoutes: ReadonlyArray<KnownRoute> = [
  OPENAPI_PATH,
  SWAGGER_PATH,
  SWAGGER_BUNDLE_PATH,
  SWAGGER_STYLESHEET_PATH,
  REDOC_PATH,
  REDOC_BUNDLE_PATH
].map((path) => ({ method: "GET", path, body: "json" as const }))

const JAVASCRIPT = "application/javascript; charset=utf-8"
const CSS = "text/css; charset=utf-8"

/**
 * The answer for a file of an installed package (`specifier` as `require.resolve` takes it),
 * read on first use and kept: the renderers' files run to megabytes that most processes never
 * serve. The file is located when the routes are set up, so a missing package stops the start.
 */
const packageFile = (specifier: string, contentType: string, edit?: (text: string) => string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = createRequire(import.meta.url).resolve(specifier)
    return yield* Effect.cached(
      fs.readFile(path).pipe(
        Effect.map((bytes) => edit === undefined ? bytes : new TextEncoder().encode(edit(new TextDecoder().decode(bytes)))),
        Effect.map((bytes) =>
          HttpServerResponse.uint8Array(bytes, { contentType, headers: { "cache-control": "public, max-age=86400" } })
        ),
        Effect.orDie
      )
    )
  })

/**
 * A documentation page of ours: `head` after the page's title, `body` as it is. The empty icon
 * keeps the browser from asking for `/favicon.ico`, which the service does not serve.
 */
const referencePage = (head: string, body: string) =>
  HttpServerResponse.html(`<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Roster API reference</title>
  <link rel="icon" href="data:," />
  ${head}
</head>
<body>
  ${body}
</body>
</html>
`)

/**
 * Swagger UI's own colours, darkened where its text falls short of WCAG AA contrast (4.5:1) on
 * them: the method badges, links, the version stamps, the Authorize button and the schemas'
 * expand buttons.
 */
const swaggerContrast = `<style>
  .swagger-ui .opblock.opblock-get .opblock-summary-method { background: #0b5cad; }
  .swagger-ui .opblock.opblock-post .opblock-summary-method { background: #0a6b43; }
  .swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00; }
  .swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f6b5c; }
  .swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b3261e; }
  .swagger-ui .opblock.opblock-head .opblock-summary-method, .swagger-ui .opblock.opblock-options .opblock-summary-method { background: #5b3fa8; }
  .swagger-ui .info .title small { background: #4a5160; }
  .swagger-ui .info .title small.version-stamp { background: #3d6b00; }
  .swagger-ui .info a, .swagger-ui .info .url, .swagger-ui a.nostyle, .swagger-ui .link { color: #1a5fb4; }
  .swagger-ui .btn.authorize { color: #0a6b43; border-color: #0a6b43; }
  .swagger-ui .btn.authorize svg { fill: #0a6b43; }
  .swagger-ui .json-schema-2020-12-expand-deep-button { color: #595959; }
</style>`

const swaggerPage = referencePage(
  `<link rel="stylesheet" href="${SWAGGER_STYLESHEET_PATH}" />
  ${swaggerContrast}`,
  `<div id="swagger-ui"></div>
  <script src="${SWAGGER_BUNDLE_PATH}"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: "${OPENAPI_PATH}",
      dom_id: "#swagger-ui",
      validatorUrl: null,
      // Each group opens when chosen: Swagger UI stops drawing past about 124 open operations.
      docExpansion: "none",
      // Swagger UI leaves its list of servers without a name a screen reader could give.
      onComplete: () => document.getElementById("servers")?.setAttribute("aria-label", "Server")
    })
  </script>`
)

const SwaggerLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const bundle = yield* packageFile("swagger-ui-dist/swagger-ui-bundle.js", JAVASCRIPT)
    const stylesheet = yield* packageFile("swagger-ui-dist/swagger-ui.css", CSS)
    yield* router.get(SWAGGER_PATH, Effect.succeed(swaggerPage))
    yield* router.get(SWAGGER_BUNDLE_PATH, bundle)
    yield* router.get(SWAGGER_STYLESHEET_PATH, stylesheet)
  })
)

const redocPage = referencePage(
  `<style>body { margin: 0; padding: 0; }</style>`,
  `<redoc spec-url="${OPENAPI_PATH}"></redoc>
  <script src="${REDOC_BUNDLE_PATH}"></script>`
)

/**
 * Redoc's side menu ends with a link to Redocly whose logo is an image on Redocly's CDN; the
 * bundle is served with that image taken out (the link stays, as text). test/browser/api-docs.test.ts
 * checks that the page asks nothing of another origin, so a Redoc that loads it otherwise is noticed.
 */
const withoutRemoteLogo = (bundle: string) =>
  bundle.replace(
    /[\w$]+\.createElement\("img",\{alt:"redocly logo",onError:\(\)=>[\w$]+\(!1\),src:"https:\/\/cdn\.redoc\.ly\/[^"]*"\}\)/g,
    "null"
  )

const RedocLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const bundle = yield* packageFile("redoc/bundles/redoc.standalone.js", JAVASCRIPT, withoutRemoteLogo)
    yield* router.get(REDOC_PATH, Effect.succeed(redocPage))
    yield* router.get(REDOC_BUNDLE_PATH, bundle)
  })
)

/** The API as its documents describe it: served at this deployment's public address (`servers`). */
const ServedApi = Layer.effect(
  HttpApi.Api,
  Effect.gen(function*() {
    const { api, context } = yield* HttpApi.Api
    const { publicBaseUrl } = yield* HttpSettings
    return { api: api.annotate(OpenApi.Servers, [{ url: publicBaseUrl, description: "this deployment" }]), context }
  })
)

export const DocsLive = Layer.mergeAll(
  HttpApiBuilder.middlewareOpenApi({ path: OPENAPI_PATH }),
  SwaggerLive,
  RedocLive
).pipe(Layer.provide(ServedApi))
