import { HttpApiEndpoint, HttpApiGroup, type HttpApiMiddleware, OpenApi } from "@effect/platform"
import {
  CreateOrganizationRequest,
  MagicLinkRequest,
  Message,
  Organization,
  SignedIn,
  SignInPage,
  SignInPageParams,
  UserOrganizations,
  VerifyParams
} from "./auth-schemas.js"
import { NoFields, optionalBody } from "./action-body.js"
import { operationTransform } from "./openapi-model.js"
import type { Context } from "effect"
import { BODY_ERRORS, type WireErrors } from "./wire-errors.js"

/** OpenAPI: the headers a response carries, on its success status. */
const documentHeaders = (status: string, headers: Record<string, string>) =>
  operationTransform((operation) => {
    const response = operation.responses[status]
    if (response !== undefined) {
      response.headers = {
        ...response.headers,
        ...Object.fromEntries(
          Object.entries(headers).map(([name, description]) => [name, { description, schema: { type: "string" } }])
        )
      }
    }
    return operation
  })

const sessionCookieHeader = {
  "Set-Cookie": "`svc_session=<signed token>; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax` (`Secure` in production)"
}

/**
 * The `/auth/*` routes, the same in every form: a form gives its errors and the middleware that
 * authenticates a signed-in user.
 */
export const makeAuthGroup = <I extends HttpApiMiddleware.HttpApiMiddleware.AnyId, S>(
  errors: WireErrors,
  SessionAuthentication: Context.Tag<I, S>
) =>
  HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("requestMagicLink", "/auth/magic-link")
      .setPayload(MagicLinkRequest)
      .addSuccess(Message)
      .pipe(errors.endpoint("rate_limited", ...BODY_ERRORS))
      .annotate(
        OpenApi.Transform,
        operationTransform((operation) => {
          const limited = operation.responses["429"]
          if (limited !== undefined) {
            limited.headers = {
              "Retry-After": { description: "seconds to wait before asking again", schema: { type: "integer", minimum: 1 } }
            }
          }
          return operation
        })
      )
      .annotateContext(OpenApi.annotations({
        summary: "Email a sign-in link",
        description: "Emails a single-use link to the address, good for 15 minutes, in the language asked for. The answer " +
          "is the same whether or not the address belongs to a user (a user is made when the link is first used). " +
          "`email` must be one address as a string. Limited per address and per client address: 429 `rate_limited` " +
          "with `Retry-After` when exceeded."
      }))
  )
  .add(
    HttpApiEndpoint.get("signInPage", "/auth/sign-in")
      .setUrlParams(SignInPageParams)
      .addSuccess(SignInPage)
      .annotate(
        OpenApi.Transform,
        documentHeaders("200", {
          "Content-Security-Policy": "`default-src 'none'` with exactly the page's own script and style (by hash) and " +
            "requests to its own origin",
          "Referrer-Policy": "`no-referrer`: the address holds the token"
        })
      )
      .annotateContext(OpenApi.annotations({
        summary: "Sign-in page",
        description: "Where the emailed link leads. Opening the page uses nothing up: its button calls `GET /auth/verify` " +
          "with the token, so mail scanners that fetch every link cannot burn it. English or German, by `locale` or " +
          "`Accept-Language`."
      }))
  )
  .add(
    HttpApiEndpoint.get("verify", "/auth/verify")
      .setUrlParams(VerifyParams)
      .addSuccess(SignedIn)
      .pipe(errors.endpoint("magic_link_expired", "magic_link_already_used", "invalid_token"))
      .annotate(OpenApi.Transform, documentHeaders("200", sessionCookieHeader))
      .annotateContext(OpenApi.annotations({
        summary: "Use a sign-in link",
        description: "Uses the link's token (once): makes the user on first sign-in, sets the `svc_session` cookie for " +
          "7 days and answers the user with their organizations. 401 `magic_link_expired` after 15 minutes, " +
          "`magic_link_already_used` on a second use, `invalid_token` for a missing or unknown token."
      }))
  )
  .add(
    HttpApiEndpoint.post("createOrganization", "/auth/organizations")
      .setPayload(CreateOrganizationRequest)
      .addSuccess(Organization)
      .pipe(errors.endpoint("conflict", ...BODY_ERRORS))
      .middleware(SessionAuthentication)
      .annotateContext(OpenApi.annotations({
        summary: "Create an organization",
        description: "Creates an organization on the free plan with the signed-in user as its owner. 409 `conflict` when " +
          "the slug is taken. Needs a session; no `X-Organization-Id`."
      }))
  )
  .add(
    HttpApiEndpoint.get("listOrganizations", "/auth/organizations")
      .addSuccess(UserOrganizations)
      .middleware(SessionAuthentication)
      .annotateContext(OpenApi.annotations({
        summary: "List my organizations",
        description: "The organizations the signed-in user belongs to, with their role in each. Needs a session."
      }))
  )
  .add(
    HttpApiEndpoint.post("logout", "/auth/logout")
      .setPayload(NoFields)
      .addSuccess(Message)
      .pipe(errors.endpoint("unauthorized", ...BODY_ERRORS))
      .middleware(SessionAuthentication)
      .annotate(OpenApi.Transform, (operation) =>
        optionalBody(
          documentHeaders("200", { "Set-Cookie": "`svc_session=; Max-Age=0; ...`: drops the cookie" })(operation)
        ))
      .annotateContext(OpenApi.annotations({
        summary: "Sign out",
        description: "Ends the session at once, on the server: every copy of its cookie stops working. Clears the cookie."
      }))
  )
  .pipe(errors.group("validation_error", "service_unavailable"))
  .annotate(OpenApi.Title, "Auth")
  .annotate(
    OpenApi.Description,
    "Passwordless sign-in for people: a magic link by email, then a session cookie. No API key and no " +
      "X-Organization-Id here."
  )
