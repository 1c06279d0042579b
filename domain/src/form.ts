import { Schema } from "effect"
import { FormId, OrganizationId, TagId, TemplateId } from "./ids.js"
import { isStorableText, longerThan, UNSTORABLE_TEXT } from "./text.js"

/**
 * A sign-up form: where readers join a list without an API key, on the service's hosted page or
 * from a site among its allowed origins. With double opt-in (the default), a sign-up becomes a
 * subscriber only once the address's owner confirms it from an email.
 */
export class Form extends Schema.Class<Form>("Form")({
  id: FormId,
  organizationId: OrganizationId,
  name: Schema.String,
  /** The tags a subscriber who joins through the form gets, in the order given. */
  tagIds: Schema.Array(TagId),
  doubleOptIn: Schema.Boolean,
  /** What the reader agrees to, shown beside the button and kept with their consent. */
  consentText: Schema.NullOr(Schema.String),
  /** Where the reader goes after signing up; the service's own page when `null`. */
  successUrl: Schema.NullOr(Schema.String),
  /** Where the reader goes after confirming; the service's own page when `null`. */
  confirmedUrl: Schema.NullOr(Schema.String),
  /** The origins (`https://example.com`) whose pages may post to the form from a script. */
  allowedOrigins: Schema.Array(Schema.String),
  /** The template of the confirmation email; the service's own, in English or German, when `null`. */
  confirmationTemplateId: Schema.NullOr(TemplateId),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
}) {}

export const MAX_FORM_NAME_LENGTH = 200
export const MAX_CONSENT_TEXT_LENGTH = 2_000
export const MAX_FORM_URL_LENGTH = 2_048
export const MAX_ALLOWED_ORIGINS = 20
export const MAX_FORM_TAGS = 20

/** Double opt-in is on unless a form says otherwise. */
export const DEFAULT_DOUBLE_OPT_IN = true

/** A form's name, for people: one line, trimmed. */
export const FormName = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty"
    if (longerThan(s, MAX_FORM_NAME_LENGTH)) return `must be at most ${MAX_FORM_NAME_LENGTH} characters`
    if (/\p{Cc}/u.test(s)) return "must be one line without control characters"
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  }, { identifier: "FormName" })
)

/** The text a reader agrees to: trimmed, not empty, lines allowed. */
export const ConsentText = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty; leave it out for none"
    if (longerThan(s, MAX_CONSENT_TEXT_LENGTH)) return `must be at most ${MAX_CONSENT_TEXT_LENGTH} characters`
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  }, { identifier: "ConsentText" })
)

/** Where a reader is sent: an absolute http or https URL without a fragment. */
export const RedirectUrl = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length > MAX_FORM_URL_LENGTH) return `must be at most ${MAX_FORM_URL_LENGTH} characters`
    let url: URL
    try {
      url = new URL(s)
    } catch {
      return "must be an absolute URL such as https://example.com/thanks"
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return "must use http or https"
    if (url.username !== "" || url.password !== "") return "must not carry a user name or password"
    return true
  }, { identifier: "RedirectUrl" })
)

/** The origin a URL names, in the form browsers send in `Origin`, or `undefined` when it is not one. */
export const originProblem = (s: string): string | undefined => {
  let url: URL
  try {
    url = new URL(s)
  } catch {
    return "must be an origin such as https://example.com"
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must use http or https"
  if (url.origin !== s.toLowerCase().replace(/\/$/, "")) return "must be an origin alone: scheme, host and port, no path"
  return undefined
}

/** An origin allowed to post to a form: `https://example.com`, lower case, without a trailing slash. */
export const AllowedOrigin = Schema.transform(
  Schema.Trim.pipe(Schema.filter((s) => originProblem(s) ?? true, { identifier: "AllowedOrigin" })),
  Schema.String,
  { strict: true, decode: (s) => new URL(s).origin, encode: (s) => s }
)

/** The allowed origins of a form: each once, at most {@link MAX_ALLOWED_ORIGINS}. */
export const AllowedOrigins = Schema.Array(AllowedOrigin).pipe(
  Schema.filter((origins) => {
    if (origins.length > MAX_ALLOWED_ORIGINS) return `must list at most ${MAX_ALLOWED_ORIGINS} origins`
    if (new Set(origins).size !== origins.length) return "must not list an origin twice"
    return true
  })
)

/** Whether a request from `origin` (its `Origin` header) may post to the form from a script. */
export const allowsOrigin = (form: Form, origin: string): boolean => form.allowedOrigins.includes(origin.toLowerCase())
