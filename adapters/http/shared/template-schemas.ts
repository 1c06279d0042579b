import type { TemplatePreview as DomainPreview } from "@roster/application"
import {
  type EmailTemplate,
  MAX_SUBJECT_LENGTH,
  MAX_TEMPLATE_LENGTH,
  MAX_TEMPLATE_NAME_LENGTH,
  SubscriberId,
  TemplateBody,
  TemplateName,
  TemplateSubject
} from "@roster/domain"
import { Schema } from "effect"
import { EmailData } from "./email-schemas.js"
import { IdInput, strictInput, Timestamp, Uuid } from "./wire-fields.js"

/** Email templates as every form shows and takes them. */

export const Template = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  subject: Schema.String.annotations({ description: "the subject line, in Liquid" }),
  html: Schema.NullOr(Schema.String).annotations({ description: "the HTML body, in Liquid; values are HTML-escaped" }),
  text: Schema.NullOr(Schema.String).annotations({ description: "the text body, in Liquid" }),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Template" })

const NameInput = TemplateName.annotations({
  jsonSchema: { type: "string", minLength: 1, maxLength: MAX_TEMPLATE_NAME_LENGTH, description: "for people; trimmed" }
})
const SubjectInput = TemplateSubject.annotations({
  jsonSchema: { type: "string", minLength: 1, maxLength: MAX_SUBJECT_LENGTH, description: "one line, in Liquid" }
})
const BodyInput = (part: string) =>
  Schema.NullOr(TemplateBody.annotations({
    jsonSchema: { type: "string", maxLength: MAX_TEMPLATE_LENGTH, description: `the ${part} body, in Liquid` }
  }))

export const CreateTemplateRequest = Schema.Struct({
  name: NameInput,
  subject: SubjectInput,
  html: Schema.optionalWith(BodyInput("HTML"), { exact: true }),
  text: Schema.optionalWith(BodyInput("text"), { exact: true })
}).annotations({ identifier: "CreateTemplateRequest", ...strictInput })

export const UpdateTemplateRequest = Schema.Struct({
  name: Schema.optionalWith(NameInput, { exact: true }),
  subject: Schema.optionalWith(SubjectInput, { exact: true }),
  html: Schema.optionalWith(BodyInput("HTML"), { exact: true }),
  text: Schema.optionalWith(BodyInput("text"), { exact: true })
}).annotations({ identifier: "UpdateTemplateRequest", description: "fields left out stay as they are", ...strictInput })

export const PreviewTemplateRequest = Schema.Struct({
  subscriber_id: Schema.optionalWith(IdInput(SubscriberId, "render for this subscriber; a sample one when left out"), {
    exact: true
  }),
  data: Schema.optionalWith(EmailData, { exact: true })
}).annotations({ identifier: "PreviewTemplateRequest", ...strictInput })

export const TemplatePreview = Schema.Struct({
  subject: Schema.String,
  html: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String),
  empty_variables: Schema.Array(Schema.String).annotations({
    description: "the variables the template reads that had no value or an empty one (`subscriber.first_name`)"
  })
}).annotations({ identifier: "TemplatePreview" })

export const toTemplate = (template: EmailTemplate): typeof Template.Type => ({
  id: template.id,
  name: template.name,
  subject: template.subject,
  html: template.html,
  text: template.text,
  created_at: template.createdAt.toISOString(),
  updated_at: template.updatedAt.toISOString()
})

export const toTemplatePreview = (preview: DomainPreview): typeof TemplatePreview.Type => ({
  subject: preview.subject,
  html: preview.html,
  text: preview.text,
  empty_variables: preview.emptyVariables
})

export const toPreviewRequest = (payload: typeof PreviewTemplateRequest.Type) => ({
  subscriberId: payload.subscriber_id,
  data: payload.data
})

/** The Liquid rules, told once for both forms. */
export const templateRules = `A template has a name, a subject and an HTML body, a text body or both, each in Liquid
(https://liquidjs.com). Variables: \`subscriber\` (\`email\`, \`first_name\`, \`last_name\`, \`status\`, \`metadata\`, \`tags\`:
the names of the subscriber's tags), \`organization.name\`, \`unsubscribe_url\`, \`preferences_url\` and \`data\` (what the
send passes). Values are HTML-escaped in the HTML body. A template may not read files or other templates (\`include\`,
\`render\` and \`layout\` are refused when it is saved), and a syntax error or an unknown filter is a 400 naming the part,
the line and the column. A render that runs longer than half a second or grows past a million characters is stopped
with a 400. Variables without a value render empty; a preview lists them.`
