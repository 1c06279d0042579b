import { AuthMail, type InvitationMail, Mailer, type OutgoingEmail, type SignInLinkMail } from "@roster/application"
import type { Locale } from "@roster/domain"
import { Effect, Layer } from "effect"
import { type LiquidOptions, Liquid, type Template } from "liquidjs"
import { createHash } from "node:crypto"
import { invitationTemplates, type SignInTemplates, signInTemplates } from "./sign-in-templates.js"

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

/** What each kind of email's idempotency keys begin with. */
const kindKeys = { signIn: "sign-in", invitation: "invitation" } as const

/** An email's templates could not be rendered. */
class RenderFailed {
  readonly _tag = "RenderFailed"
  constructor(readonly cause: unknown) {}
}

/** The link a sign-in email carries: the sign-in page, whose button uses the token. */
export const signInLink = (publicBaseUrl: string, token: string): string =>
  `${publicBaseUrl.replace(/\/+$/, "")}/auth/sign-in?token=${encodeURIComponent(token)}`

/**
 * The emails of signing in and of invitations to an organization, rendered from Liquid templates
 * in the recipient's language (English or German), with links under `publicBaseUrl`. A failed
 * delivery is logged, never raised: the person asks for another link.
 */
export const makeTemplatedAuthMail = (options: { readonly publicBaseUrl: string }): Layer.Layer<AuthMail, never, Mailer> =>
  Layer.effect(
    AuthMail,
    Effect.gen(function*() {
      const mailer = yield* Mailer
      const html = new Liquid({ ...engineOptions, outputEscape: "escape" })
      const text = new Liquid(engineOptions)
      const parse = (templates: Readonly<Record<Locale, SignInTemplates>>) => {
        const byLocale = {} as Record<Locale, ParsedSignIn>
        for (const [locale, each] of Object.entries(templates) as Array<[Locale, SignInTemplates]>) {
          byLocale[locale] = { subject: text.parse(each.subject), html: html.parse(each.html), text: text.parse(each.text) }
        }
        return byLocale
      }
      const parsed = yield* Effect.sync(() => ({ signIn: parse(signInTemplates), invitation: parse(invitationTemplates) }))

      /** One email of `kind` to `mail.to`, with `variables` beside the link's own. */
      const render = (kind: keyof typeof parsed, mail: SignInLinkMail, variables: Readonly<Record<string, unknown>>) =>
        Effect.try({
          try: (): OutgoingEmail => {
            const templates = parsed[kind][mail.locale] ?? parsed[kind].en
            const scope = {
              ...variables,
              email: mail.to,
              link: signInLink(options.publicBaseUrl, mail.token),
              minutes: mail.expiresInMinutes
            }
            // One line, whatever the names in it hold.
            const subject = String(text.renderSync(templates.subject as Array<Template>, scope)).replace(/\s+/g, " ").trim()
            return {
              to: mail.to,
              subject,
              html: String(html.renderSync(templates.html as Array<Template>, { ...scope, subject })),
              text: String(text.renderSync(templates.text as Array<Template>, scope)),
              // A retried send of this link is delivered once; the token itself never leaves in a header.
              idempotencyKey: `${kindKeys[kind]}-${createHash("sha256").update(mail.token).digest("hex")}`
            }
          },
          catch: (cause) => new RenderFailed(cause)
        })

      const send = (what: string, mail: SignInLinkMail, email: Effect.Effect<OutgoingEmail, RenderFailed>) =>
        Effect.flatMap(email, (rendered) => mailer.send(rendered)).pipe(
          Effect.asVoid,
          Effect.catchTags({
            MailerError: (error) =>
              Effect.logWarning(`the ${what} email could not be delivered`).pipe(
                Effect.annotateLogs({ reason: error.reason, retryable: error.retryable, locale: mail.locale })
              ),
            RenderFailed: (failure) =>
              Effect.logError(`the ${what} email could not be written`, failure.cause).pipe(
                Effect.annotateLogs({ locale: mail.locale })
              )
          })
        )

      const sendSignInLink = (mail: SignInLinkMail) => send("sign-in", mail, render("signIn", mail, {}))

      const sendInvitation = (mail: InvitationMail) =>
        send("invitation", mail, render("invitation", mail, { organization: mail.organizationName, inviter: mail.invitedBy }))

      return AuthMail.of({ sendSignInLink, sendInvitation })
    })
  )
