import type { ConfirmationRequested, ConsentView, GivenConsent } from "@roster/application"
import { ConsentText, isStorableText, Locale, MAX_CONSENT_TEXT_LENGTH, truncateClientAddress, UNSTORABLE_TEXT } from "@roster/domain"
import { Schema } from "effect"
import { oneOf, strictInput, Timestamp, Uuid } from "./wire-fields.js"

/** Consents and double opt-in on the wire, the same in both forms (the overview form wraps them in `data`). */

export const ConsentRecord = Schema.Struct({
  id: Uuid,
  agreed_at: Timestamp,
  form: Schema.NullOr(Schema.Struct({ id: Uuid, name: Schema.String })).annotations({
    description: "the sign-up form it was given through, while the form exists; null otherwise"
  }),
  api_key: Schema.NullOr(Schema.Struct({ id: Uuid })).annotations({
    description: "the API key that recorded it (a subscriber created, or a double opt-in asked for, through the API); null otherwise"
  }),
  text: Schema.NullOr(Schema.String).annotations({ description: "the text agreed to, as it read then" }),
  client_address: Schema.NullOr(Schema.String).annotations({
    description: "the client's network: its address cut to the /24 (IPv4) or /48 (IPv6)"
  }),
  user_agent: Schema.NullOr(Schema.String),
  confirmed_at: Schema.NullOr(Timestamp).annotations({
    description: "when the address confirmed it through the emailed link (double opt-in); null without double opt-in"
  })
}).annotations({ identifier: "Consent", description: "what the subscriber agreed to, when and where" })

export const toConsentRecord = ({ consent, form }: ConsentView): typeof ConsentRecord.Type => ({
  id: consent.id,
  agreed_at: consent.agreedAt.toISOString(),
  form,
  api_key: consent.apiKeyId === null ? null : { id: consent.apiKeyId },
  text: consent.text,
  client_address: consent.clientAddress,
  user_agent: consent.userAgent,
  confirmed_at: consent.confirmedAt === null ? null : consent.confirmedAt.toISOString()
})

/** The longest user agent taken; the first 512 characters are kept. */
const MAX_USER_AGENT_INPUT = 2_000

const ClientAddressInput = Schema.String.pipe(
  Schema.filter((s) => truncateClientAddress(s) !== null || "must be an IPv4 or IPv6 address", { identifier: "ClientAddress" })
).annotations({
  jsonSchema: {
    type: "string",
    maxLength: 100,
    description: "the reader's IPv4 or IPv6 address; kept cut to its /24 or /48"
  }
})

const UserAgentInput = Schema.String.pipe(
  Schema.filter((s) => {
    if (s.length > MAX_USER_AGENT_INPUT) return `must be at most ${MAX_USER_AGENT_INPUT} characters`
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  }, { identifier: "UserAgent" })
).annotations({
  jsonSchema: {
    type: "string",
    maxLength: MAX_USER_AGENT_INPUT,
    description: "the reader's browser, as its User-Agent header said; the first 512 characters are kept"
  }
})

export const ConsentInput = Schema.Struct({
  text: ConsentText.annotations({
    jsonSchema: { type: "string", minLength: 1, maxLength: MAX_CONSENT_TEXT_LENGTH, description: "what the reader agreed to" }
  }),
  client_address: Schema.optionalWith(ClientAddressInput, { exact: true }),
  user_agent: Schema.optionalWith(UserAgentInput, { exact: true })
}).annotations({
  identifier: "ConsentInput",
  description: "what the reader agreed to, kept with the subscriber as a consent naming the API key " +
    "(on confirmation, with `double_opt_in`)",
  ...strictInput
})

export const DoubleOptInInput = Schema.Boolean.annotations({
  description: "true: the address is sent a confirmation email and becomes a subscriber only when it confirms " +
    "(answered 202, whether or not the address is known); false (default): the subscriber is created at once"
})

export const ConfirmationLocaleInput = oneOf(
  Locale,
  "with `double_opt_in: true`, the language of the confirmation email and of the page its link opens " +
    "(`en` unless given); refused without it"
)

/** The fields of a subscriber create that ask for a consent to be kept and for double opt-in. */
export const consentFields = {
  double_opt_in: Schema.optionalWith(DoubleOptInInput, { exact: true }),
  consent: Schema.optionalWith(ConsentInput, { exact: true }),
  locale: Schema.optionalWith(ConfirmationLocaleInput, { exact: true })
}

export const givenConsent = (consent: typeof ConsentInput.Type | undefined): GivenConsent | undefined =>
  consent === undefined
    ? undefined
    : { text: consent.text, clientAddress: consent.client_address, userAgent: consent.user_agent }

export const ConfirmationSent = Schema.Struct({
  status: Schema.Literal("confirmation_sent").annotations({ description: "always `confirmation_sent`" }),
  email: Schema.String,
  message: Schema.String
}).annotations({
  identifier: "ConfirmationSent",
  description: "a double opt-in was asked for: the same answer for every address, known or not"
})

export const toConfirmationSent = ({ email }: ConfirmationRequested): typeof ConfirmationSent.Type => ({
  status: "confirmation_sent",
  email,
  message: `A confirmation email is on its way to ${email}; the address becomes a subscriber when the link in it ` +
    "is followed, within seven days."
})
