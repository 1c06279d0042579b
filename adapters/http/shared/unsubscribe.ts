import {
  type HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiSchema,
  type HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { Preferences } from "@roster/application"
import { Effect, Schema } from "effect"
import { preferenceToken } from "./preference-schemas.js"
import { allOf, formBody, pageAnswers } from "./openapi-model.js"
import { FormBody } from "./route-table.js"
import { negotiateLocale } from "./sign-in-page.js"
import { subscriberPage, subscriberPageHeaders } from "./subscriber-pages.js"

/**
 * One-click unsubscribe (RFC 8058), the same in every form. Mail clients POST
 * `List-Unsubscribe=One-Click` to the `List-Unsubscribe` URL; that unsubscribes at once, with no
 * login and no further step, and again changes nothing. Opening the URL (GET) only shows a page
 * with a button, since mail scanners open every link.
 */

const UnsubscribeParams = Schema.Struct({
  token: Schema.optional(Schema.String.annotations({ description: "the preference token of the email's link" })),
  locale: Schema.optional(Schema.String.annotations({ description: "`en` or `de`; else the best of `Accept-Language`" }))
})

const Page = HttpApiSchema.Text({ contentType: "text/html" })

const pageStatuses = "200 with the page; 401 with a page that says the link no longer works."

const invalidLinkPage = pageAnswers({ 401: "the page that says the link no longer works" })

export const UnsubscribeGroup = HttpApiGroup.make("unsubscribe")
  .add(
    HttpApiEndpoint.get("confirm", "/unsubscribe")
      .setUrlParams(UnsubscribeParams)
      .addSuccess(Page)
      .annotate(OpenApi.Transform, invalidLinkPage)
      .annotateContext(OpenApi.annotations({
        summary: "Unsubscribe page",
        description: `A page with a button that unsubscribes from all mail; opening it changes nothing. ${pageStatuses}`
      }))
  )
  .add(
    HttpApiEndpoint.post("unsubscribe", "/unsubscribe")
      .setUrlParams(UnsubscribeParams)
      .annotate(FormBody, true)
      .addSuccess(Page)
      .annotate(OpenApi.Transform, allOf(
        formBody({
          type: "object",
          properties: { "List-Unsubscribe": { type: "string", enum: ["One-Click"] } },
          description: "what mail clients send (RFC 8058)"
        }),
        invalidLinkPage
      ))
      .annotateContext(OpenApi.annotations({
        summary: "Unsubscribe in one click (RFC 8058)",
        description: "Unsubscribes the link's subscriber from all mail at once, with no login; again, it changes nothing. " +
          "Mail clients send the form body `List-Unsubscribe=One-Click`, which is the only body taken. " + pageStatuses
      }))
  )
  .annotate(OpenApi.Title, "Unsubscribe")
  .annotate(OpenApi.Description, "The `List-Unsubscribe` link of every email: one click, no login.")

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: subscriberPageHeaders })

const localeOf = (params: typeof UnsubscribeParams.Type, request: HttpServerRequest.HttpServerRequest) =>
  negotiateLocale(params.locale, request.headers["accept-language"])

/** The pages of one-click unsubscribe, the same in every form. */
// The API's own errors and requirements do not matter to these handlers; any API with the group will do.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const makeUnsubscribeHandlersLive = <ApiId extends string>(api: HttpApi.HttpApi<ApiId, HttpApiGroup.HttpApiGroup.Any, any, any>) =>
  HttpApiBuilder.group(api as unknown as HttpApi.HttpApi<ApiId, typeof UnsubscribeGroup>, "unsubscribe", (handlers) =>
    Effect.gen(function*() {
      const preferences = yield* Preferences
      /** The page of `kind` for the link's subscriber, or the page of a link that no longer works. */
      const answer = (
        params: typeof UnsubscribeParams.Type,
        request: HttpServerRequest.HttpServerRequest,
        kind: "confirm" | "done",
        run: (token: string) => ReturnType<typeof preferences.view>
      ) => {
        const locale = localeOf(params, request)
        return Effect.flatMap(preferenceToken(params), (token) =>
          Effect.map(run(token), ({ organization, subscriber }) =>
            html(subscriberPage(kind, locale, { organization: organization.name, email: subscriber.email, token })))).pipe(
            Effect.catchTag("InvalidToken", () => Effect.succeed(html(subscriberPage("invalid", locale), 401)))
          )
      }
      return handlers
        .handle("confirm", ({ request, urlParams }) => answer(urlParams, request, "confirm", preferences.view))
        .handle("unsubscribe", ({ request, urlParams }) =>
          answer(urlParams, request, "done", (token) => preferences.setStatus(token, "unsubscribed")))
    }))
