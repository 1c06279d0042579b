import type { Form, FormId, OrganizationId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"
import type { KeysetPosition } from "./subscriber-repository.js"

/** One page of an organization's forms in creation order: `limit` rows after `after`, or past `offset` rows. */
export interface FormPageQuery {
  readonly organizationId: OrganizationId
  readonly limit: number
  readonly after?: KeysetPosition | undefined
  readonly offset?: number | undefined
}

/**
 * Sign-up forms. A form's tags are kept as references: a tag deleted later leaves the forms that
 * named it, which read without it from then on.
 */
export class FormRepository extends Context.Tag("roster/FormRepository")<FormRepository, {
  readonly insert: (form: Form) => Effect.Effect<void>
  /** Stores every field as given, its tags replaced by the form's. */
  readonly update: (form: Form) => Effect.Effect<void>
  readonly findById: (organizationId: OrganizationId, id: FormId) => Effect.Effect<Option.Option<Form>>
  /** The form, whichever organization it is: for its public page, which carries no credential. */
  readonly findPublic: (id: FormId) => Effect.Effect<Option.Option<Form>>
  /** The organization a form id belongs to, whichever it is. */
  readonly organizationOf: (id: FormId) => Effect.Effect<Option.Option<OrganizationId>>
  /** Oldest first; up to `limit` rows after the position. */
  readonly list: (query: FormPageQuery) => Effect.Effect<ReadonlyArray<Form>>
  readonly count: (organizationId: OrganizationId) => Effect.Effect<number>
  /** Deletes the form; subscribers who joined through it stay. Whether it existed. */
  readonly delete: (organizationId: OrganizationId, id: FormId) => Effect.Effect<boolean>
}>() {}
