import { HttpApiMiddleware, HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Schema } from "effect"
import { CurrentPrincipal } from "../current-principal.js"
import { apiKeyScheme, RequestAuthentication, sessionScheme } from "../reference/authentication.js"
import { errorOfProblem, ForbiddenError, UnauthorizedError, ValidationError } from "./errors.js"

/**
 * Every overview API endpoint needs an API key or a session cookie (with `X-Organization-Id`);
 * it provides the {@link CurrentPrincipal}. The request is authenticated as in the reference
 * form, and refused in this form's error body.
 */
export class OverviewAuthentication extends HttpApiMiddleware.Tag<OverviewAuthentication>()(
  "roster/overview/Authentication",
  {
    failure: Schema.Union(UnauthorizedError, ForbiddenError, ValidationError),
    provides: CurrentPrincipal,
    security: { apiKey: apiKeyScheme, session: sessionScheme }
  }
) {}

const challenge = `ApiKey header="X-API-Key"`

export const OverviewAuthenticationLive = Layer.effect(
  OverviewAuthentication,
  Effect.gen(function*() {
    const { authenticate } = yield* RequestAuthentication
    const authenticated = authenticate.pipe(
      Effect.mapError((problem) => errorOfProblem(problem) as UnauthorizedError | ForbiddenError | ValidationError),
      // A 401 names the scheme it wants (RFC 9110 asks every 401 for a challenge).
      Effect.tapError((error) =>
        error.error.code === "unauthorized"
          ? HttpApp.appendPreResponseHandler((_request, response) =>
            Effect.succeed(HttpServerResponse.setHeader(response, "WWW-Authenticate", challenge))
          )
          : Effect.void
      )
    )
    // The schemes are tried in order and only the last failure is answered; both answer the
    // request's one outcome.
    return { apiKey: () => authenticated, session: () => authenticated }
  })
)
