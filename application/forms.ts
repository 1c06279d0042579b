import {
  DEFAULT_DOUBLE_OPT_IN,
  Form,
  FormId,
  InvalidInput,
  MAX_FORM_TAGS,
  type OrganizationId,
  reason,
  type Tag,
  type TagId,
  type TemplateId
} from "@roster/domain"
import { Array, Effect } from "effect"
import { FormRepository } from "./ports/form-repository.js"
import { Ids } from "./ports/ids.js"
import { SignUpRepository } from "./ports/sign-up-repository.js"
import { TagRepository } from "./ports/tag-repository.js"
import { TemplateRepository } from "./ports/template-repository.js"
import { now } from "./support/clock.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { operations } from "./support/operation.js"
import { requireOwned } from "./support/ownership.js"
import { numberedPage, type PageNumberRequest, pageWindow } from "./support/page-numbers.js"
import { authorize, type Principal } from "./support/principal.js"
import { makeTagNameResolver } from "./support/tag-names.js"

/** The fields every form shares between create and update; tags by id (reference form) or by name. */
interface FormFields {
  readonly name: string
  readonly tagIds?: ReadonlyArray<TagId> | undefined
  readonly tagNames?: ReadonlyArray<string> | undefined
  readonly doubleOptIn?: boolean | undefined
  readonly consentText?: string | null | undefined
  readonly successUrl?: string | null | undefined
  readonly confirmedUrl?: string | null | undefined
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
  readonly confirmationTemplateId?: TemplateId | null | undefined
}

export type NewForm = FormFields

/** Fields left out stay as they are; `null` removes an optional one. */
export type FormChanges = Partial<FormFields>

/** A form with the tags it gives, as read now (a tag deleted since is left out). */
export interface FormView {
  readonly form: Form
  readonly tags: ReadonlyArray<Tag>
}

const LIST_SORT = "created_at"

/**
 * Sign-up forms: the API side of them (create, read, change, delete); readers use them through
 * the public page and the sign-ups.
 */
export class Forms extends Effect.Service<Forms>()("roster/Forms", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const forms = yield* FormRepository
    const tags = yield* TagRepository
    const templates = yield* TemplateRepository
    const signUps = yield* SignUpRepository
    const ids = yield* Ids
    const resolveTagNames = makeTagNameResolver(tags, ids)

    const owned = (organizationId: OrganizationId, id: FormId) =>
      requireOwned("form", id, forms.findById(organizationId, id), () => forms.organizationOf(id))

    const view = (form: Form) =>
      Effect.map(tags.findByIds(form.organizationId, form.tagIds), (found): FormView => {
        const byId = new Map(found.map((tag) => [tag.id, tag] as const))
        return { form, tags: form.tagIds.flatMap((id) => byId.get(id) ?? []) }
      })

    const views = (list: ReadonlyArray<Form>) => Effect.forEach(list, view, { concurrency: 4 })

    /** The tags named, each once in the order given, every one this organization's. */
    const wantedTags = (principal: Principal, fields: Partial<FormFields>) =>
      Effect.gen(function*() {
        if (fields.tagIds !== undefined && fields.tagNames !== undefined) {
          return yield* new InvalidInput({ field: "tags", reason: reason("tagsByIdOrName") })
        }
        const given = fields.tagIds ?? fields.tagNames
        if (given === undefined) return undefined
        if (given.length > MAX_FORM_TAGS) {
          return yield* new InvalidInput({ field: "tags", reason: reason("tooManyFormTags", { max: MAX_FORM_TAGS }) })
        }
        if (fields.tagNames !== undefined) {
          // Names that name no tag are refused here, so no tag is made and no tag limit is met.
          const found = yield* resolveTagNames(principal, fields.tagNames, "refuse", "tags").pipe(
            Effect.catchTags({ TagAlreadyExists: Effect.die, TagLimitReached: Effect.die })
          )
          return found.map((tag) => tag.id)
        }
        const unique = Array.dedupe(fields.tagIds ?? [])
        const found = new Set((yield* tags.findByIds(principal.organization.id, unique)).map((tag) => tag.id))
        const missing = (fields.tagIds ?? []).findIndex((id) => !found.has(id))
        if (missing >= 0) {
          return yield* new InvalidInput({
            field: `tags[${missing}]`,
            reason: reason("noTagWithId", { id: fields.tagIds![missing]! })
          })
        }
        return unique
      })

    /** A confirmation template must be one of the organization's own. */
    const requireTemplate = (organizationId: OrganizationId, id: TemplateId | null | undefined) =>
      id === undefined || id === null
        ? Effect.void
        : Effect.flatMap(templates.findById(organizationId, id), (found) =>
          found._tag === "Some"
            ? Effect.void
            : Effect.fail(new InvalidInput({
              field: "confirmation_template_id",
              reason: reason("noTemplateWithId", { id })
            })))

    const create = operation("Forms.create")(function*(principal: Principal, input: NewForm) {
      yield* authorize(principal, "forms:write")
      const organizationId = principal.organization.id
      const tagIds = (yield* wantedTags(principal, input)) ?? []
      yield* requireTemplate(organizationId, input.confirmationTemplateId)
      const at = yield* now
      const form = new Form({
        id: FormId.make(yield* ids.next),
        organizationId,
        name: input.name,
        tagIds,
        doubleOptIn: input.doubleOptIn ?? DEFAULT_DOUBLE_OPT_IN,
        consentText: input.consentText ?? null,
        successUrl: input.successUrl ?? null,
        confirmedUrl: input.confirmedUrl ?? null,
        allowedOrigins: input.allowedOrigins ?? [],
        confirmationTemplateId: input.confirmationTemplateId ?? null,
        createdAt: at,
        updatedAt: at
      })
      yield* forms.insert(form)
      return yield* view(form)
    })

    const get = operation("Forms.get")(function*(principal: Principal, id: FormId) {
      yield* authorize(principal, "forms:read")
      return yield* view(yield* owned(principal.organization.id, id))
    })

    /** One page of the organization's forms, oldest first. */
    const list = operation("Forms.list")(function*(
      principal: Principal,
      query: { readonly limit: number; readonly cursor?: string | undefined }
    ) {
      yield* authorize(principal, "forms:read")
      const after = yield* positionFromCursor(query.cursor, LIST_SORT, "asc")
      const organizationId = principal.organization.id
      const [rows, total] = yield* Effect.all([
        forms.list({ organizationId, limit: query.limit + 1, after }),
        forms.count(organizationId)
      ], { concurrency: 2 })
      const page = cutPage(rows, query.limit, LIST_SORT, "asc", (f) => f.createdAt.toISOString())
      return { items: yield* views(page.items), nextCursor: page.nextCursor, total }
    })

    const listPage = operation("Forms.listPage")(function*(principal: Principal, request: PageNumberRequest) {
      yield* authorize(principal, "forms:read")
      const window = yield* pageWindow(request, [], [])
      const organizationId = principal.organization.id
      const [items, total] = yield* Effect.all([
        forms.list({ organizationId, limit: window.limit, offset: window.offset }),
        forms.count(organizationId)
      ], { concurrency: 2 })
      return numberedPage(yield* views(items), total, request)
    })

    const update = operation("Forms.update")(function*(principal: Principal, id: FormId, changes: FormChanges) {
      yield* authorize(principal, "forms:write")
      const organizationId = principal.organization.id
      const current = yield* owned(organizationId, id)
      const tagIds = yield* wantedTags(principal, changes)
      yield* requireTemplate(organizationId, changes.confirmationTemplateId)
      const keep = <A>(given: A | undefined, was: A): A => given === undefined ? was : given
      const updated = new Form({
        ...current,
        name: changes.name ?? current.name,
        tagIds: tagIds ?? current.tagIds,
        doubleOptIn: changes.doubleOptIn ?? current.doubleOptIn,
        consentText: keep(changes.consentText, current.consentText),
        successUrl: keep(changes.successUrl, current.successUrl),
        confirmedUrl: keep(changes.confirmedUrl, current.confirmedUrl),
        allowedOrigins: changes.allowedOrigins ?? current.allowedOrigins,
        confirmationTemplateId: keep(changes.confirmationTemplateId, current.confirmationTemplateId),
        updatedAt: yield* now
      })
      yield* forms.update(updated)
      return yield* view(updated)
    })

    /** Deletes the form; subscribers who joined through it stay, and its pending sign-ups can no longer be confirmed. */
    const remove = operation("Forms.remove")(function*(principal: Principal, id: FormId) {
      yield* authorize(principal, "forms:write")
      yield* owned(principal.organization.id, id)
      yield* forms.delete(principal.organization.id, id)
    })

    /**
     * For each of the organization's forms named, how many sign-ups wait for their confirmation now
     * and how many subscribers joined through it; another organization's form counts nothing.
     */
    const signUpCounts = operation("Forms.signUpCounts")(function*(principal: Principal, ids: ReadonlyArray<FormId>) {
      yield* authorize(principal, "forms:read")
      return yield* signUps.countsByForm(principal.organization.id, Array.dedupe(ids), yield* now)
    })

    return { create, get, list, listPage, update, remove, signUpCounts } as const
  })
}) {}
