import type { Mailer } from "@roster/application"
import { Config, type ConfigError, Effect, Layer, Option, Redacted } from "effect"
import { makeConsoleMailer } from "./console-mailer.js"
import { EmailFrom, httpUrl } from "./mail-config.js"
import { makeResendMailer } from "./resend-mailer.js"

/**
 * Resend when RESEND_API_KEY is set (at RESEND_BASE_URL, if given), else the console mailer,
 * which prints each email. Emails that name no sender come from EMAIL_FROM.
 */
export const MailerLive: Layer.Layer<Mailer, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.gen(function*() {
    const apiKey = yield* Config.redacted("RESEND_API_KEY").pipe(
      Config.validate({
        message: "RESEND_API_KEY: must not be empty when set",
        validation: (key) => Redacted.value(key).trim() !== "" }),
      Config.option
    )
    const baseUrl = yield* Config.option(httpUrl("RESEND_BASE_URL"))
    const from = yield* EmailFrom
    if (Option.isNone(apiKey)) {
      yield* Effect.logInfo("emails are printed here, not delivered: set RESEND_API_KEY to send them through Resend")
      return makeConsoleMailer(undefined, { from })
    }
    return makeResendMailer({ apiKey: apiKey.value, baseUrl: Option.getOrUndefined(baseUrl), from })
  })
)
