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
import { SignUps } from "@roster/application"
import { EmailAddress, type Form, FormId, type Locale } from "@roster/domain"
import { Effect, Option, Schema } from "effect"
import { allOf, formBody, operationTransform, pageAnswers } from "./openapi-model.js"
import { FormBody } from "./route-table.js"
import { negotiateLocale } from "./sign-in-page.js"
import { signUpPage, signUpPageHeaders, type SignUpPageKind, type SignUpPageScope } from "./sign-up-pages.js"

/**
 * The hosted page of a sign-up form and the page its confirmation link opens, the same in every
 * wire form and without an API key. Both work without JavaScript: the form posts back to its own
 * address, the confirmation page's button posts to its own. Opening either page changes nothing.
 */

const FormPath = Schema.Struct({ form_id: Schema.String.annotations({ description: "the form's id" }) })

const LocaleParams = Schema.Struct({
  locale: Schema.optional(Schema.String.annotations({ description: "`en` or `de`; else the best of `Accept-Language`" }))
})

const ConfirmParams = Schema.Struct({
  ...LocaleParams.fields,
  token: Schema.optional(Schema.String.annotations({ description: "the token of the confirmation email's link" }))
})

const Page = HttpApiSchema.Text({ contentType: "text/html" })

const redirectAnswer = (description: string) =>
  operationTransform((operation) => {
    operation.responses["303"] = {
      description,
      headers: { Location: { description: "the form's own address for it", schema: { type: "string" } } }
    }
    return operation
  })

export const SignUpPageGroup = HttpApiGroup.make("signUpPage")
  .add(
    HttpApiEndpoint.get("confirmPage", "/f/confirm")
      .setUrlParams(ConfirmParams)
      .addSuccess(Page)
      .annotate(OpenApi.Transform, pageAnswers({ 401: "the page that says the link does not work" }))
      .annotateContext(OpenApi.annotations({
        summary: "Confirmation page",
        description: "The page the confirmation email links to: a button that confirms; opening it changes nothing, " +
          "so mail scanners that open every link confirm nothing. 401 with a page that says so for an expired, " +
          "replaced or broken link."
      }))
  )
  .add(
    HttpApiEndpoint.post("confirm", "/f/confirm")
      .setUrlParams(ConfirmParams)
      .annotate(FormBody, true)
      .addSuccess(Page)
      .annotate(OpenApi.Transform, allOf(
        formBody({ type: "object", description: "nothing is read from the body" }),
        pageAnswers({
          401: "the page that says the link does not work",
          402: "the page that says the list is full"
        }),
        redirectAnswer("confirmed: to the form's confirmed URL, when it has one")
      ))
      .annotateContext(OpenApi.annotations({
        summary: "Confirm a sign-up",
        description: "What the confirmation page's button posts: the address becomes a subscriber with the form's tags " +
          "(again, it changes nothing). Answers the page that says so, or 303 to the form's confirmed URL; 401 for a " +
          "link that does not work, 402 with a page that says the list is full when the plan holds no more subscribers."
      }))
  )
  .add(
    HttpApiEndpoint.get("form", "/f/:form_id")
      .setPath(FormPath)
      .setUrlParams(LocaleParams)
      .addSuccess(Page)
      .annotate(OpenApi.Transform, pageAnswers({ 404: "the page that says there is no such form" }))
      .annotateContext(OpenApi.annotations({
        summary: "Sign-up page",
        description: "A form's hosted page: an email field, the form's consent text and a button, in English or German " +
          "by `Accept-Language`. 404 with a page that says so for a form that does not exist."
      }))
  )
  .add(
    HttpApiEndpoint.post("signUp", "/f/:form_id")
      .setPath(FormPath)
      .setUrlParams(LocaleParams)
      .annotate(FormBody, true)
      .addSuccess(Page)
      .annotate(OpenApi.Transform, allOf(
        formBody({
          type: "object",
          properties: {
            email: { type: "string", description: "the reader's address" },
            shown: { type: "string", description: "the page's signed stamp of when it was shown" },
            website: { type: "string", description: "a field people never see, which must stay empty" }
          }
        }),
        pageAnswers({
          400: "the page again: the address is not one, or the page's stamp is missing or older than a day",
          402: "the page that says the list is full",
          404: "the page that says there is no such form"
        }),
        redirectAnswer("signed up: to the form's success URL, when it has one")
      ))
      .annotateContext(OpenApi.annotations({
        summary: "Sign up through a form's page",
        description: "What the sign-up page posts (`application/x-www-form-urlencoded`). Answers the page that says to " +
          "check one's inbox (double opt-in) or that one is subscribed, or 303 to the form's success URL; the answer is the " +
          "same whether the address was known or not. 400 with the page again and the problem beside the field for an " +
          "address that is not one, or with a fresh page when the page's stamp is missing or older than a day; 402 when " +
          "the list is full; 404 for a form that does not exist."
      }))
  )
  .annotate(OpenApi.Title, "Sign-up pages")
  .annotate(OpenApi.Description, "The hosted pages of sign-up forms, for browsers without JavaScript; no API key.")

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: signUpPageHeaders })

const page = (kind: SignUpPageKind, locale: Locale, scope: SignUpPageScope = {}, status = 200) =>
  html(signUpPage(kind, locale, scope), status)

const redirect = (url: string) => HttpServerResponse.redirect(url, { status: 303, headers: signUpPageHeaders })

const localeOf = (params: typeof LocaleParams.Type, request: HttpServerRequest.HttpServerRequest): Locale =>
  negotiateLocale(params.locale, request.headers["accept-language"])

const decodeFormId = Schema.decodeUnknownOption(FormId)
const decodeEmail = Schema.decodeUnknownOption(EmailAddress)

/** What the form's page posts, each field once; anything else is ignored. */
const fieldsOf = (body: ReadonlyArray<readonly [string, string]>) => {
  const first = (name: string) => body.find(([key]) => key === name)?.[1]
  return { email: first("email") ?? "", stamp: first("shown"), honeypot: first("website") }
}

/** The handlers of the sign-up pages, the same in every form. */
// The API's own errors and requirements do not matter to these handlers; any API with the group will do.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const makeSignUpPageHandlersLive = <ApiId extends string>(api: HttpApi.HttpApi<ApiId, HttpApiGroup.HttpApiGroup.Any, any, any>) =>
  HttpApiBuilder.group(api as unknown as HttpApi.HttpApi<ApiId, typeof SignUpPageGroup>, "signUpPage", (handlers) =>
    Effect.gen(function*() {
      const signUps = yield* SignUps

      /** The form's page, with a fresh stamp; what the reader typed and what was wrong with it, if anything. */
      const formPage = (form: Form, locale: Locale, scope: SignUpPageScope, status: number) =>
        Effect.map(signUps.show(form.id), ({ stamp }) =>
          page("form", locale, {
            ...scope,
            name: form.name,
            consent: form.consentText,
            stamp,
            action: `/f/${form.id}?locale=${locale}`
          }, status))

      const notFound = (locale: Locale) => Effect.succeed(page("notFound", locale, {}, 404))
      const full = (locale: Locale) => () => Effect.succeed(page("full", locale, {}, 402))
      const invalidLink = (locale: Locale) => () => Effect.succeed(page("invalid", locale, {}, 401))

      return handlers
        .handle("form", ({ path, request, urlParams }) => {
          const locale = localeOf(urlParams, request)
          const id = decodeFormId(path.form_id)
          if (Option.isNone(id)) return notFound(locale)
          return Effect.flatMap(signUps.show(id.value), ({ form, stamp }) =>
            Effect.succeed(page("form", locale, {
              name: form.name,
              consent: form.consentText,
              stamp,
              action: `/f/${form.id}?locale=${locale}`
            }))).pipe(Effect.catchTag("ResourceNotFound", () => notFound(locale)))
        })
        .handle("signUp", ({ path, request, urlParams }) =>
          Effect.gen(function*() {
            const locale = localeOf(urlParams, request)
            const id = decodeFormId(path.form_id)
            if (Option.isNone(id)) return yield* notFound(locale)
            const { form } = yield* signUps.show(id.value)
            const body = yield* Effect.orElseSucceed(request.urlParamsBody, () => [] as const)
            const fields = fieldsOf(body)
            const email = decodeEmail(fields.email)
            if (Option.isNone(email)) return yield* formPage(form, locale, { email: fields.email, error: true }, 400)
            const shownAt = fields.stamp === undefined ? undefined : yield* signUps.shownAt(form.id, fields.stamp)
            if (shownAt === undefined) return yield* formPage(form, locale, { email: fields.email, stale: true }, 400)
            const answer = yield* signUps.submit(form.id, { email: email.value, honeypot: fields.honeypot, shownAt }, {
              address: Option.getOrUndefined(request.remoteAddress),
              userAgent: request.headers["user-agent"],
              locale
            })
            if (form.successUrl !== null) return redirect(form.successUrl)
            return page(answer.outcome === "confirm_by_email" ? "checkInbox" : "subscribed", locale, { name: form.name })
          }).pipe(Effect.catchTags({
            ResourceNotFound: () => notFound(localeOf(urlParams, request)),
            PlanLimitExceeded: full(localeOf(urlParams, request))
          })))
        .handle("confirmPage", ({ request, urlParams }) => {
          const locale = localeOf(urlParams, request)
          const token = urlParams.token ?? ""
          return Effect.map(signUps.inspect(token), ({ confirmed, name }) =>
            confirmed
              ? page("confirmed", locale, { name })
              : page("confirm", locale, {
                name,
                action: `/f/confirm?token=${encodeURIComponent(token)}&locale=${locale}`
              })).pipe(Effect.catchTag("InvalidToken", invalidLink(locale)))
        })
        .handle("confirm", ({ request, urlParams }) => {
          const locale = localeOf(urlParams, request)
          return Effect.map(signUps.confirm(urlParams.token ?? ""), ({ form, name }) =>
            form !== null && form.confirmedUrl !== null ? redirect(form.confirmedUrl) : page("confirmed", locale, { name })).pipe(
              Effect.catchTags({ InvalidToken: invalidLink(locale), PlanLimitExceeded: full(locale) })
            )
        })
    }))
