import { AuthMail, Mailer, type OutgoingEmail, type SignInLinkMail } from "@roster/application"
import type { Locale } from "@roster/domain"
import { Effect, Layer } from "effect"
import { type LiquidOptions, Liquid, type Template } from "liquidjs"
import { createHash } from "node:crypto"
import { signInTemplates } from "./sign-in-templates.js"

/**
 * Templates come from this module only: the engines have an empty in-memory file system (no
 * include, render or layout can reach the disk), fail on unknown variables and filters, see own
 * properties only, and stop a render that runs away.
 */
const engineOptions: LiquidOptions = {
  templates: {},
  relativeReference: false,
  strictVariables: true,
  strictFilters: true,
  ownPropertyOnly: true,
  parseLimit: 100_000,
  renderLimit: 1_000
}

interface ParsedSignIn {
  readonly subject: ReadonlyArray<Template>
  readonly html: ReadonlyArray<Template>
  readonly text: ReadonlyArray<Template>
}

/** The sign-in email's templates could not be rendered. */
class RenderFailed {
  readonly _tag = "RenderFailed"
  constructor(readonly cause: unknown) {}
}

/** The link a sign-in email carries: the sign-in page, whose button uses the token. */
export const signInLink = (publicBaseUrl: string, token: string): string =>
  `${publicBaseUrl.replace(/\/+$/, "")}/auth/sign-in?token=${encodeURIComponent(token)}`

/**
 * The emails of signing in, rendered from Liquid templates in the recipient's language (English
 * or German), with links under `publicBaseUrl`. A failed delivery is logged, never raised: the
 * person asks for another link.
 */
export const makeTemplatedAuthMail = (options: { readonly publicBaseUrl: string }): Layer.Layer<AuthMail, never, Mailer> =>
  Layer.effect(
    AuthMail,
    Effect.gen(function*() {
      const mailer = yield* Mailer
      const html = new Liquid({ ...engineOptions, outputEscape: "escape" })
      const text = new Liquid(engineOptions)
      const parsed = yield* Effect.sync(() => {
        const byLocale = {} as Record<Locale, ParsedSignIn>
        for (const [locale, templates] of Object.entries(signInTemplates) as Array<[Locale, typeof signInTemplates.en]>) {
          byLocale[locale] = {
            subject: text.parse(templates.subject),
            html: html.parse(templates.html),
            text: text.parse(templates.text)
          }
        }
        return byLocale
      })

      const render = (mail: SignInLinkMail) =>
        Effect.try({
          try: (): OutgoingEmail => {
            const templates = parsed[mail.locale] ?? parsed.en
            const scope = {
              email: mail.to,
              link: signInLink(options.publicBaseUrl, mail.token),
              minutes: mail.expiresInMinutes
            }
            const subject = String(text.renderSync(templates.subject as Array<Template>, scope)).trim()
            return {
              to: mail.to,
              subject,
              html: String(html.renderSync(templates.html as Array<Template>, { ...scope, subject })),
              text: String(text.renderSync(templates.text as Array<Template>, scope)),
              // A retried send of this link is delivered once; the token itself never leaves in a header.
              idempotencyKey: `sign-in-${createHash("sha256").update(mail.token).digest("hex")}`
            }
          },
          catch: (cause) => new RenderFailed(cause)
        })

      const sendSignInLink = (mail: SignInLinkMail) =>
        Effect.flatMap(render(mail), (email) => mailer.send(email)).pipe(
          Effect.asVoid,
          Effect.catchTags({
            MailerError: (error) =>
              Effect.logWarning("the sign-in email could not be delivered").pipe(
                Effect.annotateLogs({ reason: error.reason, retryable: error.retryable, locale: mail.locale })
              ),
            RenderFailed: (failure) =>
              Effect.logError("the sign-in email could not be written", failure.cause).pipe(
                Effect.annotateLogs({ locale: mail.locale })
              )
          })
        )

      return AuthMail.of({ sendSignInLink })
    })
  )
