import { FileSystem, HttpApi, HttpApiBuilder, HttpApiSwagger, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect, Layer } from "effect"
import { createRequire } from "node:module"
import { HttpSettings } from "./http-settings.js"
import type { KnownRoute } from "./route-table.js"

/**
 * The machine-readable description and the two renderings of it, all from local assets: the
 * OpenAPI document at `/openapi.json`, Swagger UI at `/docs` (bundled inline) and Redoc at
 * `/redoc` (its standalone bundle served from the installed package).
 */

const OPENAPI_PATH = "/openapi.json"
const SWAGGER_PATH = "/docs"
const REDOC_PATH = "/redoc"
const REDOC_BUNDLE_PATH = "/redoc/redoc.standalone.js"

export const docsRoutes: ReadonlyArray<KnownRoute> = [OPENAPI_PATH, SWAGGER_PATH, REDOC_PATH, REDOC_BUNDLE_PATH]
  .map((path) => ({ method: "GET", path, body: "json" as const }))

const redocPage = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Roster API reference</title>
  <style>body { margin: 0; padding: 0; }</style>
</head>
<body>
  <redoc spec-url="${OPENAPI_PATH}"></redoc>
  <script src="${REDOC_BUNDLE_PATH}"></script>
</body>
</html>
`

const RedocLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const bundlePath = createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js")
    // Read on first use and kept: about 1 MB that most processes never serve.
    const bundle = yield* Effect.cached(
      fs.readFile(bundlePath).pipe(
        Effect.map((bytes) =>
          HttpServerResponse.uint8Array(bytes, {
            contentType: "application/javascript; charset=utf-8",
            headers: { "cache-control": "public, max-age=86400" }
          })
        ),
        Effect.orDie
      )
    )
    yield* router.get(REDOC_PATH, Effect.succeed(HttpServerResponse.html(redocPage)))
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
  HttpApiSwagger.layer({ path: SWAGGER_PATH }),
  RedocLive
).pipe(Layer.provide(ServedApi))
