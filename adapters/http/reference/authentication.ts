import {
  HttpApiMiddleware,
  HttpApiSecurity,
  HttpApp,
  HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { ApiKeys } from "@roster/application"
import { Effect, Layer, Redacted } from "effect"
import { CurrentPrincipal } from "../current-principal.js"
import { HttpSettings } from "../http-settings.js"
import { pathOf } from "../request-path.js"
import { makeProblem, UnauthorizedProblem } from "./problems.js"

const apiKeyScheme = HttpApiSecurity.apiKey({ in: "header", key: "X-API-Key" }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "An API key of the organization (`svc_live_...` or `svc_test_...`), sent in the `X-API-Key` header. " +
      "The key's organization is the one acted for; its scopes decide what it may do."
  )
)

/** Every `/api/v1` endpoint needs an API key; it provides the {@link CurrentPrincipal}. */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("roster/reference/Authentication", {
  failure: UnauthorizedProblem,
  provides: CurrentPrincipal,
  security: { apiKey: apiKeyScheme }
}) {}

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const { errorsBaseUrl } = yield* HttpSettings
    /** A 401 names the scheme it wants (RFC 9110 asks every 401 for a challenge). */
    const challenge = HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "WWW-Authenticate", "ApiKey header=\"X-API-Key\""))
    )
    const unauthorized = (detail: string) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        Effect.zipRight(challenge, Effect.fail(makeProblem("unauthorized", { errorsBaseUrl, instance: pathOf(request), detail }))))
    return {
      apiKey: (key) => {
        const presented = Redacted.value(key).trim()
        return presented === ""
          ? unauthorized("missing X-API-Key header")
          : apiKeys.authenticate(presented).pipe(Effect.catchTag("Unauthenticated", (e) => unauthorized(e.reason)))
      }
    }
  })
)
