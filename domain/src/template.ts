import { Schema } from "effect"
import { OrganizationId, TemplateId } from "./ids.js"
import { isStorableText, UNSTORABLE_TEXT, longerThan } from "./text.js"

/**
 * An email template: a subject and an HTML body, a text body or both, each in Liquid. What a
 * template may contain (no file tags, a readable syntax) is the template engine's to check.
 */
export class EmailTemplate extends Schema.Class<EmailTemplate>("EmailTemplate")({
  id: TemplateId,
  organizationId: OrganizationId,
  name: Schema.String,
  subject: Schema.String,
  html: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
}) {}

/** The most characters a template's body may hold; the template engine refuses longer ones too. */
export const MAX_TEMPLATE_LENGTH = 200_000
export const MAX_TEMPLATE_NAME_LENGTH = 200
export const MAX_SUBJECT_LENGTH = 1_000

/** A template's name, for people: one line, trimmed. */
export const TemplateName = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty"
    if (longerThan(s, MAX_TEMPLATE_NAME_LENGTH)) return `must be at most ${MAX_TEMPLATE_NAME_LENGTH} characters`
    if (/\p{Cc}/u.test(s)) return "must be one line without control characters"
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  }, { identifier: "TemplateName" })
)

/** A subject line in Liquid: one line, not empty. */
export const TemplateSubject = Schema.String.pipe(
  Schema.filter((s) => {
    if (s.trim().length === 0) return "must not be empty"
    if (s.length > MAX_SUBJECT_LENGTH) return `must be at most ${MAX_SUBJECT_LENGTH} characters`
    if (/[\r\n]/.test(s)) return "must be one line"
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  }, { identifier: "TemplateSubject" })
)

/** An HTML or text body in Liquid. */
export const TemplateBody = Schema.String.pipe(
  Schema.filter((s) => {
    if (s.length > MAX_TEMPLATE_LENGTH) return `must be at most ${MAX_TEMPLATE_LENGTH} characters`
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  }, { identifier: "TemplateBody" })
)
