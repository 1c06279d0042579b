import type { FormView, NewForm } from "@roster/application"
import {
  AllowedOrigins,
  ConsentText,
  type Form as FormRecord,
  Locale,
  FormName,
  MAX_ALLOWED_ORIGINS,
  MAX_CONSENT_TEXT_LENGTH,
  MAX_FORM_NAME_LENGTH,
  MAX_FORM_URL_LENGTH,
  RedirectUrl,
  TemplateId
} from "@roster/domain"
import { Schema } from "effect"
import { signUpSnippet } from "./sign-up-pages.js"
import { IdInput, oneOf, strictInput, Timestamp, Uuid } from "./wire-fields.js"

/** Sign-up forms as every wire form shows and takes them; only how tags are named differs. */

export const FormTag = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  slug: Schema.String
}).annotations({ identifier: "FormTag", description: "a tag a subscriber who joins through the form gets" })

export const Form = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  tags: Schema.Array(FormTag).annotations({ description: "the tags given on joining; a deleted tag is left out" }),
  double_opt_in: Schema.Boolean.annotations({
    description: "whether a sign-up waits for the reader to confirm it from an email"
  }),
  consent_text: Schema.NullOr(Schema.String).annotations({ description: "what the reader agrees to by signing up" }),
  success_url: Schema.NullOr(Schema.String).annotations({
    description: "where the reader goes after signing up; the service's own page when null"
  }),
  confirmed_url: Schema.NullOr(Schema.String).annotations({
    description: "where the reader goes after confirming; the service's own page when null"
  }),
  allowed_origins: Schema.Array(Schema.String).annotations({
    description: "the origins whose pages may post to the form from a script"
  }),
  confirmation_template_id: Schema.NullOr(Uuid).annotations({
    description: "the template of the confirmation email; the service's own (English or German) when null"
  }),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Form" })

const NameInput = FormName.annotations({
  jsonSchema: { type: "string", minLength: 1, maxLength: MAX_FORM_NAME_LENGTH, description: "for people; trimmed" }
})
const ConsentInput = Schema.NullOr(ConsentText.annotations({
  jsonSchema: { type: "string", minLength: 1, maxLength: MAX_CONSENT_TEXT_LENGTH, description: "what the reader agrees to" }
}))
const UrlInput = (description: string) =>
  Schema.NullOr(RedirectUrl.annotations({
    jsonSchema: { type: "string", format: "uri", maxLength: MAX_FORM_URL_LENGTH, description }
  }))
const OriginsInput = AllowedOrigins.annotations({
  jsonSchema: {
    type: "array",
    maxItems: MAX_ALLOWED_ORIGINS,
    items: { type: "string", format: "uri" },
    description: "origins such as `https://example.com` (scheme, host and port) whose pages may post to the form"
  }
})
const TemplateInput = Schema.NullOr(IdInput(TemplateId, "a template of the organization for the confirmation email"))

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

const formFields = {
  double_opt_in: optional(Schema.Boolean.annotations({ description: "on unless told otherwise" })),
  consent_text: optional(ConsentInput),
  success_url: optional(UrlInput("where the reader goes after signing up")),
  confirmed_url: optional(UrlInput("where the reader goes after confirming")),
  allowed_origins: optional(OriginsInput),
  confirmation_template_id: optional(TemplateInput)
}

/** The create and update bodies of a wire form whose tags are given as `tags`. */
export const formRequests = <A, I>(tags: Schema.Schema<A, I>) => {
  const Create = Schema.Struct({ name: NameInput, tags: optional(tags), ...formFields })
    .annotations({ identifier: "CreateFormRequest", ...strictInput })
  const Update = Schema.Struct({ name: optional(NameInput), tags: optional(tags), ...formFields })
    .annotations({ identifier: "UpdateFormRequest", description: "fields left out stay as they are", ...strictInput })
  return { Create, Update }
}

type FormPayload = Omit<NewForm, "name" | "tagIds" | "tagNames">

/** The fields of a body other than name and tags, as the use case takes them. */
export const formFieldsOf = (payload: {
  readonly double_opt_in?: boolean
  readonly consent_text?: string | null
  readonly success_url?: string | null
  readonly confirmed_url?: string | null
  readonly allowed_origins?: ReadonlyArray<string>
  readonly confirmation_template_id?: TemplateId | null
}): FormPayload => ({
  doubleOptIn: payload.double_opt_in,
  consentText: payload.consent_text,
  successUrl: payload.success_url,
  confirmedUrl: payload.confirmed_url,
  allowedOrigins: payload.allowed_origins,
  confirmationTemplateId: payload.confirmation_template_id
})

export const toForm = ({ form, tags }: FormView): typeof Form.Type => ({
  id: form.id,
  name: form.name,
  tags: tags.map((tag) => ({ id: tag.id, name: tag.name, slug: tag.slug })),
  double_opt_in: form.doubleOptIn,
  consent_text: form.consentText,
  success_url: form.successUrl,
  confirmed_url: form.confirmedUrl,
  allowed_origins: form.allowedOrigins,
  confirmation_template_id: form.confirmationTemplateId,
  created_at: form.createdAt.toISOString(),
  updated_at: form.updatedAt.toISOString()
})

/** What a form is, told once for both wire forms. */
export const formRules = `A sign-up form lets readers join the organization's list without an API key. With
\`double_opt_in\` (on unless turned off) a sign-up waits, for at most seven days, until the reader confirms it from an
email; only then is the subscriber created (or an unsubscribed one made active again) with the form's \`tags\`. The
answer to a sign-up never tells whether the address was already known. \`allowed_origins\` names the sites whose pages
may post to the form from a script.`

export const EmbedParams = Schema.Struct({
  locale: Schema.optionalWith(oneOf(Locale, "the language of the form's labels and of the pages that answer it; `en` unless told"), {
    exact: true
  })
}).annotations(strictInput)

/** The HTML form a site embeds, and the form's hosted page. */
export const FormEmbed = Schema.Struct({
  html: Schema.String.annotations({
    description: "a `<form>` that posts to `/f/{form_id}` at the service, every value escaped; paste it into a page of one " +
      "of the form's allowed origins"
  }),
  page_url: Schema.String.annotations({
    jsonSchema: { type: "string", format: "uri", description: "the form's hosted page, for a link instead of a form" }
  })
}).annotations({ identifier: "FormEmbed" })

/** A form's embed as both wire forms answer it: posting to its address under the service's public base URL. */
export const toFormEmbed = (form: FormRecord, locale: Locale, publicBaseUrl: string): typeof FormEmbed.Type => {
  const page = `${publicBaseUrl}/f/${form.id}`
  return {
    html: signUpSnippet(locale, { id: form.id, consent: form.consentText, action: `${page}?locale=${locale}` }),
    page_url: page
  }
}
