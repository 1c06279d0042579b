import { HttpApp, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Duration, Effect } from "effect"
import { HttpSettings } from "./http-settings.js"
import { foreignOrigin, isCrossSiteFetch } from "./request-origin.js"

/**
 * The sign-in session cookie: a signed token, `HttpOnly`, `SameSite=Lax`, for the whole site,
 * `Secure` in production. The same in every wire form.
 */

export const SESSION_COOKIE = "svc_session"

const cookieOptions = (secure: boolean) => ({ httpOnly: true, sameSite: "lax", path: "/", secure } as const)

/**
 * Sets the session cookie on the response of the current request, living until `expiresAt`; no
 * cache keeps that response.
 */
export const setSessionCookie = (token: string, expiresAt: Date): Effect.Effect<void, never, HttpSettings> =>
  Effect.gen(function*() {
    const { secureCookies } = yield* HttpSettings
    const now = yield* Clock.currentTimeMillis
    const maxAge = Duration.seconds(Math.max(0, Math.round((expiresAt.getTime() - now) / 1000)))
    yield* HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(
        HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, token, { ...cookieOptions(secureCookies), maxAge })
          .pipe(HttpServerResponse.setHeader("Cache-Control", "no-store"))
      )
    )
  })

/** Tells the browser to drop the session cookie (`Max-Age=0`). */
export const clearSessionCookie: Effect.Effect<void, never, HttpSettings> = Effect.gen(function*() {
  const { secureCookies } = yield* HttpSettings
  yield* HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.expireCookie(response, SESSION_COOKIE, cookieOptions(secureCookies)))
  )
})

/** The session cookie the request carries, if any. */
export const sessionCookieOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const value = request.cookies[SESSION_COOKIE]
  return value === undefined || value.trim() === "" ? undefined : value.trim()
}

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * Why a request that changes something with a session cookie must be refused as coming from
 * another site, or `undefined` when it may go on. A browser sends the cookie along with a form
 * or script of any site (SameSite=Lax lets top-level POSTs of same-site pages through); it also
 * says where the request comes from, through `Sec-Fetch-Site` and `Origin`. The service's own
 * pages are at `publicBaseUrl`, or at whatever host the request was sent to.
 */
export const crossSiteReason = (
  request: HttpServerRequest.HttpServerRequest,
  publicBaseUrl: string
): string | undefined => {
  if (safeMethods.has(request.method)) return undefined
  if (isCrossSiteFetch(request)) {
    return "a request with a session cookie that changes something must come from the service's own pages, not from another site"
  }
  const origin = foreignOrigin(request, publicBaseUrl)
  if (origin === undefined) return undefined
  return `a request with a session cookie that changes something must come from the service's own pages, not from ${
    origin.slice(0, 200)
  }`
}
