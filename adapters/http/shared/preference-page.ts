import {
  type HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiSchema,
  HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { Preferences, type PreferenceView } from "@roster/application"
import { type InvalidToken, type Locale, MAX_TAGS_PER_SUBSCRIBER, TagId } from "@roster/domain"
import { Effect, Option, Schema } from "effect"
import { HttpSettings } from "./http-settings.js"
import { allOf, formBody, operationTransform, pageAnswers } from "./openapi-model.js"
import { preferenceToken, PreferenceTokenParams } from "./preference-schemas.js"
import { foreignOrigin, isCrossSiteFetch } from "./request-origin.js"
import { FormBody } from "./route-table.js"
import { negotiateLocale } from "./sign-in-page.js"
import { subscriberPage, subscriberPageHeaders } from "./subscriber-pages.js"

/**
 * The preference center as a page, for browsers (`Accept: text/html`), the same in every form. It
 * works without JavaScript: each change is a plain form posted back to `POST /preference-center`,
 * which answers 303 to the page again (or the page saying the erasure is under way). The token in
 * the form's address is what proves who asks, and no cookie is involved; a post that comes from
 * another site (`Sec-Fetch-Site`, `Origin`) is refused all the same.
 */

/**
 * Whether a post comes from another site's page. The page sends no referrer, so browsers post its
 * forms with `Origin: null`: that one says nothing here, while sessions treat it as foreign.
 */
const fromAnotherSite = (request: HttpServerRequest.HttpServerRequest, publicBaseUrl: string): boolean => {
  const origin = foreignOrigin(request, publicBaseUrl)
  return isCrossSiteFetch(request) || (origin !== undefined && origin.trim() !== "null")
}

/** Whether the request is a browser's, which wants the page rather than JSON. */
export const wantsPage = (request: HttpServerRequest.HttpServerRequest): boolean =>
  (request.headers["accept"] ?? "").toLowerCase().includes("text/html")

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: subscriberPageHeaders })

const localeOf = (params: typeof PreferenceTokenParams.Type, request: HttpServerRequest.HttpServerRequest): Locale =>
  negotiateLocale(params.locale, request.headers["accept-language"])

const invalidPage = (locale: Locale) => (_: InvalidToken) => Effect.succeed(html(subscriberPage("invalid", locale), 401))

const preferencesPage = (view: PreferenceView, token: string, locale: Locale, saved: boolean) =>
  html(subscriberPage("preferences", locale, {
    organization: view.organization.name,
    email: view.subscriber.email,
    status: view.subscriber.status,
    token,
    saved,
    tags: view.tags.map(({ subscribedAt, tag }) => ({
      id: tag.id,
      name: tag.name,
      description: tag.description,
      subscribed: subscribedAt !== null
    }))
  }))

/** `GET /preference-center` for a browser: the page, or the page that asks to confirm an erasure. */
export const preferencePage = (
  preferences: Preferences,
  params: typeof PreferenceTokenParams.Type,
  request: HttpServerRequest.HttpServerRequest
) => {
  const locale = localeOf(params, request)
  return Effect.flatMap(preferenceToken(params), (token) =>
    Effect.map(preferences.view(token), (view) =>
      params.confirm === "erase"
        ? html(subscriberPage("confirmErasure", locale, {
          organization: view.organization.name,
          email: view.subscriber.email,
          token
        }))
        : preferencesPage(view, token, locale, params.saved !== undefined))).pipe(
      Effect.catchTag("InvalidToken", invalidPage(locale))
    )
}

/** What a form may ask for by name. */
const PageAction = Schema.Literal("subscribe", "unsubscribe", "unsubscribe_all", "resubscribe", "erase")

/**
 * What the page's forms post: a tag's button sends `subscribe` or `unsubscribe` with the tag's id
 * (one form holds the whole list, so each button carries its own tag); the other buttons send
 * `action`. `action=subscribe&tag_id=…` is the same as `subscribe=…`, as pages served before posted.
 */
const FormFields = Schema.Struct({
  subscribe: Schema.optional(TagId),
  unsubscribe: Schema.optional(TagId),
  action: Schema.optional(PageAction),
  tag_id: Schema.optional(TagId)
})

/** The one thing a form asks for, if it asks for one. */
const formAction = (fields: typeof FormFields.Type) =>
  fields.subscribe !== undefined
    ? Option.some({ action: "subscribe" as const, tag_id: fields.subscribe })
    : fields.unsubscribe !== undefined
    ? Option.some({ action: "unsubscribe" as const, tag_id: fields.unsubscribe })
    : fields.action !== undefined
    ? Option.some({ action: fields.action, tag_id: fields.tag_id })
    : Option.none()

const decodeAction = (body: unknown) => Option.flatMap(Schema.decodeUnknownOption(FormFields)(body), formAction)

export const PreferencePageGroup = HttpApiGroup.make("preferencePage")
  .add(
    HttpApiEndpoint.post("change", "/preference-center")
      .setUrlParams(PreferenceTokenParams)
      .annotate(FormBody, true)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/html" }))
      .annotate(OpenApi.Transform, allOf(
        formBody({
          type: "object",
          properties: {
            subscribe: { type: "string", format: "uuid", description: "a tag to subscribe to, by id" },
            unsubscribe: { type: "string", format: "uuid", description: "a tag to unsubscribe from, by id" },
            action: { type: "string", enum: PageAction.literals },
            tag_id: { type: "string", format: "uuid", description: "the tag, with `action` `subscribe` or `unsubscribe`" }
          }
        }),
        pageAnswers({
          400: "the page that says the form is not one of the page's",
          401: "the page that says the link no longer works",
          403: "the page that says a post from another site is refused",
          409: "the page that says the subscriber already carries as many tags as a subscriber may"
        }),
        operationTransform((operation) => {
          operation.responses["303"] = {
            description: "the change is made: to the page again (`Location`)",
            headers: { Location: { description: "the preference page of the link", schema: { type: "string" } } }
          }
          return operation
        })
      ))
      .annotateContext(OpenApi.annotations({
        summary: "Change one's preferences from the page",
        description: "The forms of the preference page post here (`application/x-www-form-urlencoded`): a tag's button " +
          "sends `subscribe` or `unsubscribe` with the tag's id (as does `action=subscribe&tag_id=…`), the others send " +
          "`action`: `unsubscribe_all`, `resubscribe` or `erase`. Answers 303 to the page again, or the page that says " +
          "the erasure is under way; a broken link gets a page that says so (401), a post from another site is refused " +
          `(403), a subscription past the ${MAX_TAGS_PER_SUBSCRIBER} tags a subscriber may carry gets a page that says so (409), and a form ` +
          "that is not one of these 400."
      }))
  )
  .annotate(OpenApi.Title, "Preference page")
  .annotate(OpenApi.Description, "What the preference center's page posts back, for browsers without JavaScript.")

// The API's own errors and requirements do not matter to these handlers; any API with the group will do.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const makePreferencePageHandlersLive = <ApiId extends string>(api: HttpApi.HttpApi<ApiId, HttpApiGroup.HttpApiGroup.Any, any, any>) =>
  HttpApiBuilder.group(api as unknown as HttpApi.HttpApi<ApiId, typeof PreferencePageGroup>, "preferencePage", (handlers) =>
    Effect.gen(function*() {
      const preferences = yield* Preferences
      const { publicBaseUrl } = yield* HttpSettings
      return handlers.handle("change", ({ request, urlParams }) =>
        Effect.gen(function*() {
          const locale = localeOf(urlParams, request)
          if (fromAnotherSite(request, publicBaseUrl)) return html(subscriberPage("refused", locale), 403)
          const form = Option.flatMap(
            Option.getRight(yield* Effect.either(request.urlParamsBody)),
            (body) => decodeAction(Object.fromEntries(body))
          )
          if (Option.isNone(form)) return html(subscriberPage("refused", locale), 400)
          const { action, tag_id } = form.value
          const token = yield* preferenceToken(urlParams)
          const again = HttpServerResponse.redirect(
            `/preference-center?token=${encodeURIComponent(token)}&locale=${locale}&saved=1`,
            { status: 303, headers: subscriberPageHeaders }
          )
          switch (action) {
            case "subscribe":
            case "unsubscribe": {
              if (tag_id === undefined) return html(subscriberPage("refused", locale), 400)
              if (action === "unsubscribe") {
                return yield* Effect.as(preferences.unsubscribe(token, tag_id), again).pipe(
                  Effect.catchTag("ResourceNotFound", () => Effect.succeed(again))
                )
              }
              return yield* Effect.as(preferences.subscribe(token, tag_id), again).pipe(
                Effect.catchTags({
                  ResourceNotFound: () => Effect.succeed(again),
                  TagLimitReached: (reached) => Effect.succeed(html(subscriberPage("tooManyTags", locale, { token, max: reached.max }), 409))
                })
              )
            }
            case "unsubscribe_all":
            case "resubscribe":
              return yield* Effect.as(preferences.setStatus(token, action === "resubscribe" ? "active" : "unsubscribed"), again)
            case "erase": {
              const view = yield* preferences.view(token)
              yield* preferences.requestErasure(token)
              return html(subscriberPage("erasureRequested", locale, {
                organization: view.organization.name,
                email: view.subscriber.email
              }))
            }
          }
        }).pipe(Effect.catchTag("InvalidToken", invalidPage(localeOf(urlParams, request)))))
    }))
