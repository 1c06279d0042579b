import type { EmailTemplate, OrganizationId, TemplateId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"
import type { KeysetPosition } from "./subscriber-repository.js"

/** One page of an organization's templates in creation order: `limit` rows after `after`, or past `offset` rows. */
export interface TemplatePageQuery {
  readonly organizationId: OrganizationId
  readonly limit: number
  readonly after?: KeysetPosition | undefined
  readonly offset?: number | undefined
}

export class TemplateRepository extends Context.Tag("roster/TemplateRepository")<TemplateRepository, {
  readonly insert: (template: EmailTemplate) => Effect.Effect<void>
  /** Stores every field as given. */
  readonly update: (template: EmailTemplate) => Effect.Effect<void>
  readonly findById: (organizationId: OrganizationId, id: TemplateId) => Effect.Effect<Option.Option<EmailTemplate>>
  /** The organization a template id belongs to, whichever it is. */
  readonly organizationOf: (id: TemplateId) => Effect.Effect<Option.Option<OrganizationId>>
  /** Oldest first; up to `limit` rows after the position. */
  readonly list: (query: TemplatePageQuery) => Effect.Effect<ReadonlyArray<EmailTemplate>>
  readonly count: (organizationId: OrganizationId) => Effect.Effect<number>
  /** Deletes the template; emails sent with it keep what they were. Whether it existed. */
  readonly delete: (organizationId: OrganizationId, id: TemplateId) => Effect.Effect<boolean>
}>() {}
