import { Config, Context, Effect, Layer } from "effect"

/** Where the service is reached from outside, as links and problem `type` values name it. */
export interface HttpSettingsShape {
  /** Base of links in emails and documents, without a trailing slash. */
  readonly publicBaseUrl: string
  /** Prefix of problem `type` values; `GET /errors/{code}` serves the pages they name. */
  readonly errorsBaseUrl: string
  /** Whether the session cookie is sent over HTTPS only (`NODE_ENV=production`). */
  readonly secureCookies: boolean
}

export class HttpSettings extends Context.Tag("roster/http/HttpSettings")<HttpSettings, HttpSettingsShape>() {}

const httpUrl = (name: string) =>
  Config.string(name).pipe(
    Config.validate({
      message: "must be an absolute http or https URL",
      validation: (s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)
    })
  )

const withoutTrailingSlash = (s: string) => s.replace(/\/+$/, "")

/**
 * Reads `PUBLIC_BASE_URL` (default `http://localhost:$PORT`, `PORT` default 3000) and
 * `ERRORS_BASE_URL` (default `$PUBLIC_BASE_URL/errors`) and `NODE_ENV` (cookies are `Secure` in
 * production).
 */
export const HttpSettingsLive = Layer.effect(
  HttpSettings,
  Effect.gen(function*() {
    const port = yield* Config.port("PORT").pipe(Config.withDefault(3000))
    const publicBaseUrl = withoutTrailingSlash(
      yield* httpUrl("PUBLIC_BASE_URL").pipe(Config.withDefault(`http://localhost:${port}`))
    )
    const errorsBaseUrl = withoutTrailingSlash(
      yield* httpUrl("ERRORS_BASE_URL").pipe(Config.withDefault(`${publicBaseUrl}/errors`))
    )
    const nodeEnv = yield* Config.string("NODE_ENV").pipe(Config.withDefault("development"))
    return { publicBaseUrl, errorsBaseUrl, secureCookies: nodeEnv === "production" }
  })
)
