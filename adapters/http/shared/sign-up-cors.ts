import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { SignUps } from "@roster/application"
import { allowsOrigin, FormId } from "@roster/domain"
import { Effect, Option, Schema } from "effect"
import { HttpSettings } from "./http-settings.js"
import { foreignOrigin } from "./request-origin.js"
import { pathOf } from "./request-path.js"

/**
 * Cross-origin requests to a sign-up form (CORS): a script on one of the form's allowed origins
 * may post JSON to `/f/{form_id}` and read the answer; no other site may. The answers to such a
 * script's requests (the preflight, the sign-up, and the refusals on the way, a rate limit's
 * included) name its origin in `Access-Control-Allow-Origin`; nothing is said to any other
 * origin, so its browser keeps the answer from its script. No credentials are ever allowed: a
 * sign-up needs none.
 */

/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = 600

/** The form a path names for scripts and embedded forms, `/f/{form_id}`, its id as written; `undefined` for any other path. */
export const signUpFormIdOf = (path: string): string | undefined => {
  const match = /^\/f\/([^/]+)$/.exec(path)
  return match === null || match[1] === "confirm" ? undefined : match[1]
}

/**
 * The origin of another site that a request says it comes from; `undefined` without one, for the
 * service's own, and for `Origin: null`, which browsers send for the hosted page's own form (it
 * sends no referrer) and which names no site.
 */
export const otherSiteOf = (request: HttpServerRequest.HttpServerRequest, publicBaseUrl: string): string | undefined => {
  const origin = foreignOrigin(request, publicBaseUrl)?.trim()
  return origin === undefined || origin === "" || origin === "null" ? undefined : origin
}

/** The headers that let a script of `origin` read an answer; a preflight's also allow what the script may send. */
export const corsHeadersFor = (origin: string, preflight: boolean): Record<string, string> => ({
  "Access-Control-Allow-Origin": origin,
  // A script reads when to try again after a 429; the other headers it needs are safelisted.
  "Access-Control-Expose-Headers": "Retry-After",
  ...(preflight
    ? {
      "Access-Control-Allow-Methods": "POST",
      "Access-Control-Allow-Headers": "Content-Type",
      "Access-Control-Max-Age": String(PREFLIGHT_MAX_AGE_SECONDS)
    }
    : {})
})

const corsMethods = new Set(["POST", "OPTIONS"])

const decodeFormId = Schema.decodeUnknownOption(FormId)

/**
 * Adds the CORS headers to every answer of a post or preflight to `/f/{form_id}` whose `Origin` is
 * one the form allows, whoever answered it (the endpoint, the rate limits, the body limit), and
 * `Vary: Origin` to all of them, since what they say depends on it.
 */
export const makeSignUpCors = Effect.gen(function*() {
  const signUps = yield* SignUps
  const { publicBaseUrl } = yield* HttpSettings

  const allowed = (formId: string, origin: string) =>
    Option.match(decodeFormId(formId), {
      onNone: () => Effect.succeed(false),
      onSome: (id) =>
        // The answer is made already: a form that cannot be read now leaves it as it is, without CORS.
        signUps.find(id).pipe(Effect.map((form) => allowsOrigin(form, origin)), Effect.catchAllCause(() => Effect.succeed(false)))
    })

  return (app: HttpApp.Default) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const formId = corsMethods.has(request.method) ? signUpFormIdOf(pathOf(request)) : undefined
      if (formId === undefined) return yield* app
      const response = yield* app
      const origin = otherSiteOf(request, publicBaseUrl)
      const cors = origin !== undefined && (yield* allowed(formId, origin))
        ? corsHeadersFor(origin, request.method === "OPTIONS")
        : {}
      const vary = response.headers["vary"]
      return HttpServerResponse.setHeaders(response, {
        ...cors,
        vary: vary === undefined || vary.trim() === "" ? "Origin" : `${vary}, Origin`
      })
    })
})
