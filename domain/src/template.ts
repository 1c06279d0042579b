import { Schema } from "effect"
import { OrganizationId, TemplateId } from "./ids.js"

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

/** The most characters a template's subject or body may hold. */
export const MAX_TEMPLATE_LENGTH = 200_000
