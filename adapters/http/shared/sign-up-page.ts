import {
  type HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiError,
  HttpApiGroup,
  HttpApiSchema,
  type HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { SignUps } from "@roster/application"
import { allowsOrigin, EmailAddress, type Form, FormId, type Locale, MAX_EMAIL_LENGTH, MAX_NAME_LENGTH, PersonName } from "@roster/domain"
import { Effect, Either, Option, Schema } from "effect"
import { apiError } from "./api-error.js"
import { decodeErrorOf, isJsonMediaType, MAX_BODY_BYTES } from "./failure-answers.js"
import { HttpSettings } from "./http-settings.js"
import { allOf, formBody, operationTransform, pageAnswers } from "./openapi-model.js"
import { readBodyText } from "./request-body.js"
import { FormBody } from "./route-table.js"
import { negotiateLocale } from "./sign-in-page.js"
import { otherSiteOf } from "./sign-up-cors.js"
import { signUpPage, signUpPageHeaders, type SignUpPageKind, type SignUpPageScope } from "./sign-up-pages.js"
import { EMAIL_PATTERN, EmailInput, strictInput } from "./wire-fields.js"
import type { WireErrors } from "./wire-errors.js"

/**
 * The hosted page of a sign-up form and the page its confirmation link opens, the same in every
 * wire form and without an API key. Both work without JavaScript: the form posts back to its own
 * address, the confirmation page's button posts to its own. Opening either page changes nothing.
 * The form's address also takes the form a site embeds, and JSON from a script on one of the
 * form's allowed origins (CORS: shared/sign-up-cors.ts); a script is answered in JSON, with errors
 * in the running form's error body.
 */

/** The largest body a sign-up takes: an address, two names and a few fields fit many times over. */
export const SIGN_UP_MAX_BODY_BYTES = 16 * 1024

const FormPath = Schema.Struct({ form_id: Schema.String.annotations({ description: "the form's id" }) })

const LocaleParams = Schema.Struct({
  locale: Schema.optional(Schema.String.annotations({ description: "`en` or `de`; else the best of `Accept-Language`" }))
})

const ConfirmParams = Schema.Struct({
  ...LocaleParams.fields,
  token: Schema.optional(Schema.String.annotations({ description: "the token of the confirmation email's link" }))
})

const Page = HttpApiSchema.Text({ contentType: "text/html" })

const NameInput = Schema.NullOr(PersonName.annotations({ jsonSchema: { type: "string", maxLength: MAX_NAME_LENGTH } }))

/** What a script posts: the reader's address, optionally their names, and the trap field. */
export const SignUpRequest = Schema.Struct({
  email: EmailInput("the reader's address"),
  first_name: Schema.optionalWith(NameInput.annotations({ description: "trimmed; kept with the subscriber" }), { exact: true }),
  last_name: Schema.optionalWith(NameInput.annotations({ description: "trimmed; kept with the subscriber" }), { exact: true }),
  website: Schema.optionalWith(
    Schema.String.annotations({ description: "the trap field, hidden from people: a sign-up with it filled in does nothing" }),
    { exact: true }
  )
}).annotations({ identifier: "SignUpRequest", ...strictInput })

const decodeSignUpRequest = Schema.decodeUnknown(SignUpRequest)

/** The JSON answer to a script's sign-up, the same whether the address was known or not. */
const signUpAnswerSchema = (status: "confirm_by_email" | "subscribed", description: string) => ({
  type: "object",
  required: ["status"],
  additionalProperties: false,
  properties: { status: { type: "string", const: status, description } }
})

const nameSchema = { type: ["string", "null"], maxLength: MAX_NAME_LENGTH, description: "trimmed; kept with the subscriber" }

/** {@link SignUpRequest} as JSON Schema. */
const signUpRequestSchema = {
  type: "object",
  required: ["email"],
  additionalProperties: false,
  properties: {
    email: { type: "string", format: "idn-email", pattern: EMAIL_PATTERN, maxLength: MAX_EMAIL_LENGTH, description: "the reader's address" },
    first_name: nameSchema,
    last_name: nameSchema,
    website: { type: "string", description: "the trap field, hidden from people: a sign-up with it filled in does nothing" }
  }
}

/** OpenAPI: the sign-up's two bodies (the page's form, a script's JSON) and its JSON answers. */
const signUpBodiesAndAnswers = operationTransform((operation) => {
  operation.requestBody = {
    required: false,
    content: {
      "application/x-www-form-urlencoded": {
        schema: {
          type: "object",
          properties: {
            email: { type: "string", description: "the reader's address" },
            shown: {
              type: "string",
              description: "the hosted page's signed stamp of when it was shown; an embedded form on an allowed origin has none"
            },
            website: { type: "string", description: "a field people never see, which must stay empty" }
          }
        }
      },
      "application/json": { schema: signUpRequestSchema }
    }
  }
  const ok = operation.responses["200"]
  if (ok !== undefined) {
    ok.content = {
      ...ok.content,
      "application/json": { schema: signUpAnswerSchema("subscribed", "the form has no double opt-in: the reader is subscribed") }
    }
  }
  operation.responses["202"] = {
    description: "a script's sign-up to a form with double opt-in: the reader confirms it from the email sent",
    content: {
      "application/json": { schema: signUpAnswerSchema("confirm_by_email", "the reader confirms from the email sent") }
    }
  }
  return operation
})

const redirectAnswer = (description: string) =>
  operationTransform((operation) => {
    operation.responses["303"] = {
      description,
      headers: { Location: { description: "the form's own address for it", schema: { type: "string" } } }
    }
    return operation
  })

/** The errors a script's sign-up is answered with, besides those of the middleware. */
const SIGN_UP_ERRORS = ["validation_error", "forbidden", "not_found", "limit_exceeded", "payload_too_large"] as const

/**
 * The sign-up pages, the same in every form: a form gives the body its errors are written in,
 * which a script's requests get.
 */
export const makeSignUpPageGroup = (errors: WireErrors) =>
  HttpApiGroup.make("signUpPage")
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
            "link that does not work, 402 with a page that says the list is full when the plan holds no more subscribers " +
            "(the form's owner hears of it by a `form.list_full` event, at most once an hour per form)."
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
        .pipe(errors.endpoint(...SIGN_UP_ERRORS))
        .annotate(OpenApi.Transform, allOf(
          signUpBodiesAndAnswers,
          pageAnswers({
            400: "the page again: the address is not one, or the page's stamp is missing or older than a day",
            402: "the page that says the list is full",
            403: "the page that says the site the form was posted from may not send it",
            404: "the page that says there is no such form"
          }),
          redirectAnswer("signed up: to the form's success URL, when it has one")
        ))
        .annotateContext(OpenApi.annotations({
          summary: "Sign up through a form",
          description: "What the sign-up page posts (`application/x-www-form-urlencoded`), what a form embedded on another " +
            "site posts, and what a script posts as JSON. The answer is the same whether the address was known or not.\n\n" +
            "A form post is answered with a page: the page that says to check one's inbox (double opt-in) or that one is " +
            "subscribed, or 303 to the form's success URL. 400 with the page again and the problem beside the field for an " +
            "address that is not one, or with a fresh page when the hosted page's stamp is missing, made up or older than a " +
            "day (a form embedded on one of the form's allowed origins sends none, and needs none); 402 when the list is " +
            "full; 403 when it comes from another site the form does not allow; 404 for a form that does not exist.\n\n" +
            "JSON (`Content-Type: application/json`, from a script on one of the form's `allowed_origins`, which CORS lets " +
            "read the answer, or from a program that sends no `Origin`) is answered in JSON: 202 " +
            "`{\"status\": \"confirm_by_email\"}` with double opt-in, 200 `{\"status\": \"subscribed\"}` without; errors in " +
            "the running form's error body: 400 naming the field (unknown fields are refused), 403 for an `Origin` the form " +
            "does not allow (named in the detail), 404 for an unknown form, 402 when the list is full.\n\n" +
            `Bodies are at most ${SIGN_UP_MAX_BODY_BYTES / 1024} KiB (413 beyond). Sign-ups are limited per client address ` +
            "and per form (429 with `Retry-After`)."
        }))
    )
    .add(
      HttpApiEndpoint.options("preflight", "/f/:form_id")
        .setPath(FormPath)
        .addSuccess(HttpApiSchema.NoContent)
        .pipe(errors.endpoint("forbidden", "not_found"))
        .annotate(OpenApi.Transform, operationTransform((operation) => {
          const allowed = operation.responses["204"]
          if (allowed !== undefined) {
            const text = (description: string) => ({ description, schema: { type: "string" } })
            allowed.headers = {
              ...allowed.headers,
              "Access-Control-Allow-Origin": text("the request's `Origin`, one of the form's allowed origins"),
              "Access-Control-Allow-Methods": text("`POST`"),
              "Access-Control-Allow-Headers": text("`Content-Type`"),
              "Access-Control-Max-Age": text("how many seconds the browser may keep this answer")
            }
          }
          return operation
        }))
        .annotateContext(OpenApi.annotations({
          summary: "Ask whether a site's script may sign up through a form (CORS preflight)",
          description: "What a browser asks before a script posts JSON to `/f/{form_id}`. 204 with " +
            "`Access-Control-Allow-Origin` naming the request's `Origin` when it is one of the form's `allowed_origins`; " +
            "403 naming the origin when it is not (or when there is none), 404 for a form that does not exist."
        }))
    )
    .annotate(OpenApi.Title, "Sign-up pages")
    .annotate(
      OpenApi.Description,
      "The hosted pages of sign-up forms, for browsers without JavaScript, and the address that forms embedded on other " +
        "sites and scripts on the forms' allowed origins post to; no API key."
    )

export type SignUpPageGroup = ReturnType<typeof makeSignUpPageGroup>

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
const fieldsOf = (text: string) => {
  const body = new URLSearchParams(text)
  return { email: body.get("email") ?? "", stamp: body.get("shown") ?? undefined, honeypot: body.get("website") ?? undefined }
}

const tooLarge = apiError("payload_too_large", `a sign-up's body is at most ${SIGN_UP_MAX_BODY_BYTES} bytes`)

/**
 * The body of a sign-up as text, at most {@link SIGN_UP_MAX_BODY_BYTES}: a larger one is refused
 * unread when it says its length, else once that much has come in (read on up to the limit of
 * every body, so that the client still gets the answer). Text that cannot be read is none.
 */
const signUpBodyOf = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (Number(request.headers["content-length"] ?? 0) > SIGN_UP_MAX_BODY_BYTES) return yield* Effect.fail(tooLarge)
    const text = yield* readBodyText(request, MAX_BODY_BYTES)
    if (Either.isLeft(text)) return text.left === "too_large" ? yield* Effect.fail(tooLarge) : Either.left(text.left)
    if (Buffer.byteLength(text.right) > SIGN_UP_MAX_BODY_BYTES) return yield* Effect.fail(tooLarge)
    return Either.right(text.right)
  })

/** The JSON a script's sign-up is answered with. */
const signUpAnswer = (outcome: "confirm_by_email" | "subscribed") =>
  HttpServerResponse.unsafeJson({ status: outcome }, {
    status: outcome === "confirm_by_email" ? 202 : 200,
    headers: { "Cache-Control": "no-store" }
  })

const notThisOrigin = (origin: string | undefined) =>
  apiError(
    "forbidden",
    origin === undefined
      ? "a request without an Origin cannot be allowed; a browser sends one for a script"
      : `the origin ${origin} may not post to this form; the form's owner can add it to the form's allowed_origins`
  )

/** The handlers of the sign-up pages, the same in every form. */
// The API's own errors and requirements do not matter to these handlers; any API with the group will do.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const makeSignUpPageHandlersLive = <ApiId extends string>(api: HttpApi.HttpApi<ApiId, HttpApiGroup.HttpApiGroup.Any, any, any>) =>
  HttpApiBuilder.group(api as unknown as HttpApi.HttpApi<ApiId, SignUpPageGroup>, "signUpPage", (handlers) =>
    Effect.gen(function*() {
      const signUps = yield* SignUps
      const { publicBaseUrl } = yield* HttpSettings

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

      /** The form a script names, or `not_found`. */
      const scriptsForm = (formId: string) =>
        Option.match(decodeFormId(formId), {
          onNone: () => Effect.fail(apiError("not_found", `no form with id ${formId}`)),
          onSome: (id) =>
            signUps.find(id).pipe(Effect.catchTag("ResourceNotFound", () => Effect.fail(apiError("not_found", `no form with id ${id}`))))
        })

      const client = (request: HttpServerRequest.HttpServerRequest, locale: Locale) => ({
        address: Option.getOrUndefined(request.remoteAddress),
        userAgent: request.headers["user-agent"],
        locale
      })

      /**
       * A script's sign-up: JSON in, JSON out. A script of another site may post only from one of
       * the form's allowed origins; a program that sends no `Origin` is no browser, and CORS has
       * nothing to guard from it. No page was shown, so there is no time to check, only the trap.
       */
      const scriptSignUp = (formId: string, request: HttpServerRequest.HttpServerRequest, locale: Locale) =>
        Effect.gen(function*() {
          const form = yield* scriptsForm(formId)
          const origin = otherSiteOf(request, publicBaseUrl)
          if (origin !== undefined && !allowsOrigin(form, origin)) return yield* Effect.fail(notThisOrigin(origin))
          const text = yield* signUpBodyOf(request)
          if (Either.isLeft(text)) {
            return yield* Effect.fail(apiError("validation_error", "body: could not be read", {
              fields: [{ field: "body", message: text.left === "not_utf8" ? "is not valid UTF-8" : "could not be read" }]
            }))
          }
          const json = yield* Effect.try({
            try: () => JSON.parse(text.right) as unknown,
            catch: () =>
              apiError("validation_error", "body: is not valid JSON", { fields: [{ field: "body", message: "is not valid JSON" }] })
          })
          const body = yield* decodeSignUpRequest(json).pipe(
            Effect.catchTag("ParseError", (error) =>
              Effect.flatMap(HttpApiError.HttpApiDecodeError.fromParseError(error), (decode) => Effect.fail(decodeErrorOf(decode))))
          )
          const nameOf = (name: string | null | undefined) => name === null || name === "" ? undefined : name
          const answer = yield* signUps.submit(form.id, {
            email: body.email,
            firstName: nameOf(body.first_name),
            lastName: nameOf(body.last_name),
            honeypot: body.website
          }, client(request, locale)).pipe(
            Effect.catchTags({
              ResourceNotFound: () => Effect.fail(apiError("not_found", `no form with id ${form.id}`)),
              // The reader is told the list is full, not the organization's plan.
              PlanLimitExceeded: () =>
                Effect.fail(apiError("limit_exceeded", "this list cannot take new subscribers at the moment; try again later"))
            })
          )
          return signUpAnswer(answer.outcome)
        })

      /**
       * A form's post: the hosted page's (no `Origin`, `Origin: null` or the service's own, with
       * the page's stamp) or a form embedded on one of the form's allowed origins (no stamp: that
       * page was not the service's to stamp). A post from any other site is refused with a page
       * that links to the form's own.
       */
      const formSignUp = (formId: string, request: HttpServerRequest.HttpServerRequest, locale: Locale) =>
        Effect.gen(function*() {
          const id = decodeFormId(formId)
          if (Option.isNone(id)) return yield* notFound(locale)
          const form = yield* signUps.find(id.value)
          const origin = otherSiteOf(request, publicBaseUrl)
          const embedded = origin !== undefined && allowsOrigin(form, origin)
          if (origin !== undefined && !embedded) {
            return page("notAllowed", locale, { name: form.name, action: `/f/${form.id}?locale=${locale}` }, 403)
          }
          const text = yield* signUpBodyOf(request)
          const fields = fieldsOf(Either.getOrElse(text, () => ""))
          const email = decodeEmail(fields.email)
          if (Option.isNone(email)) return yield* formPage(form, locale, { email: fields.email, error: true }, 400)
          const shownAt = fields.stamp === undefined ? undefined : yield* signUps.shownAt(form.id, fields.stamp)
          if (shownAt === undefined && !(embedded && fields.stamp === undefined)) {
            return yield* formPage(form, locale, { email: fields.email, stale: true }, 400)
          }
          const answer = yield* signUps.submit(form.id, { email: email.value, honeypot: fields.honeypot, shownAt }, client(request, locale))
          if (form.successUrl !== null) return redirect(form.successUrl)
          return page(answer.outcome === "confirm_by_email" ? "checkInbox" : "subscribed", locale, { name: form.name })
        }).pipe(Effect.catchTags({
          ResourceNotFound: () => notFound(locale),
          PlanLimitExceeded: full(locale)
        }))

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
        .handle("signUp", ({ path, request, urlParams }) => {
          const locale = localeOf(urlParams, request)
          return isJsonMediaType(request.headers["content-type"] ?? "")
            ? scriptSignUp(path.form_id, request, locale)
            : formSignUp(path.form_id, request, locale)
        })
        .handle("preflight", ({ path, request }) =>
          Effect.gen(function*() {
            const form = yield* scriptsForm(path.form_id)
            const origin = otherSiteOf(request, publicBaseUrl)
            if (origin === undefined || !allowsOrigin(form, origin)) return yield* Effect.fail(notThisOrigin(origin))
            // The CORS headers are added with those of every other answer to the form's address (sign-up-cors.ts).
            return HttpServerResponse.empty({ status: 204 })
          }))
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
