import { Mailer, type OutgoingEmail } from "@roster/application"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"

const writeToStdout = (text: string): Effect.Effect<void> =>
  Effect.sync(() => {
    process.stdout.write(text)
  })

/** Control characters other than tab and newline; hostile text must not steer the terminal. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

const printable = (text: string): string => text.replace(/\r\n?/g, "\n").replace(CONTROL, "\uFFFD")

/** Header values stay on their own line. */
const oneLine = (text: string): string => printable(text).replace(/[\n\t]+/g, " ")

const RULE = "─".repeat(72)

/** The sender of emails that name none, unless EMAIL_FROM says otherwise. */
export const DEFAULT_EMAIL_FROM = "Roster <noreply@localhost>"

/** One email as the terminal shows it: the envelope, then the text body (where the links are), else the HTML. */
export const formatEmail = (email: OutgoingEmail, from: string, providerId: string): string => {
  const header = (name: string, value: string) => `${name}: ${oneLine(value)}`
  const lines = [
    `${RULE}`,
    `email ${providerId}, printed by the console mailer and not delivered`,
    header("From", email.from ?? from),
    header("To", email.to),
    header("Subject", email.subject),
    ...(email.idempotencyKey === undefined ? [] : [header("Idempotency-Key", email.idempotencyKey)]),
    ...Object.entries(email.headers ?? {}).map(([name, value]) => header(oneLine(name), value)),
    "",
    printable(email.text ?? email.html ?? "").trimEnd(),
    RULE
  ]
  return `${lines.join("\n")}\n`
}

/**
 * Prints each email instead of delivering it, so that sign-in links can be followed from the
 * terminal while no provider is configured. `write` receives the whole email at once (stdout by
 * default).
 */
export const makeConsoleMailer = (
  write: (text: string) => Effect.Effect<void> = writeToStdout,
  options: { readonly from?: string } = {}
): Layer.Layer<Mailer> =>
  Layer.sync(Mailer, () => {
    const send = (email: OutgoingEmail) =>
      Effect.gen(function*() {
        const providerId = `console-${randomUUID()}`
        yield* write(formatEmail(email, options.from ?? DEFAULT_EMAIL_FROM, providerId))
        return { providerId }
      })
    return Mailer.of({ send, sendBatch: (emails) => Effect.forEach(emails, send) })
  })
