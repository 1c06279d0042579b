import { EmailTemplate, InvalidInput, reason, type SubscriberId, TemplateId } from "@roster/domain"
import { Effect, Option } from "effect"
import { Ids } from "./ports/ids.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { OutgoingMailConfig } from "./ports/outgoing-mail-config.js"
import { SubscriberRepository } from "./ports/subscriber-repository.js"
import { TagAssignments } from "./ports/tag-assignments.js"
import { type EmailTemplateSource, TemplateEngine } from "./ports/template-engine.js"
import { TemplateRepository } from "./ports/template-repository.js"
import { now } from "./support/clock.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { requireOwned } from "./support/ownership.js"
import { numberedPage, type PageNumberRequest, pageWindow } from "./support/page-numbers.js"
import { authorize, type Principal } from "./support/principal.js"
import {
  preferencesUrl,
  sampleSubscriber,
  templateScope,
  templateSubscriber,
  unsubscribeUrl
} from "./support/template-scope.js"
import { operations } from "./support/operation.js"

export interface NewTemplate {
  readonly name: string
  readonly subject: string
  readonly html?: string | null | undefined
  readonly text?: string | null | undefined
}

/** Fields left out stay as they are; `null` removes a body, as long as one remains. */
export interface TemplateChanges {
  readonly name?: string | undefined
  readonly subject?: string | undefined
  readonly html?: string | null | undefined
  readonly text?: string | null | undefined
}

export interface TemplatePreviewRequest {
  /** Renders for this subscriber of the organization; a sample subscriber when left out. */
  readonly subscriberId?: SubscriberId | undefined
  readonly data?: Readonly<Record<string, unknown>> | undefined
}

export interface TemplatePreview {
  readonly subject: string
  readonly html: string | null
  readonly text: string | null
  /** The variables the template reads that had no value or an empty one. */
  readonly emptyVariables: ReadonlyArray<string>
}

const LIST_SORT = "created_at"
/** A preview's links lead nowhere: no real token is made for it. */
const PREVIEW_TOKEN = "preview"

const requireBody = (html: string | null, text: string | null) =>
  html === null && text === null
    ? Effect.fail(new InvalidInput({ field: "html", reason: reason("templateBody") }))
    : Effect.void

/**
 * Email templates: a subject and an HTML and/or text body in Liquid. A template is checked when
 * saved (syntax with line and column, known filters, no tag that reads files), so that a send
 * never meets a template that cannot be read.
 */
export class Templates extends Effect.Service<Templates>()("roster/Templates", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const templates = yield* TemplateRepository
    const engine = yield* TemplateEngine
    const subscribers = yield* SubscriberRepository
    const assignments = yield* TagAssignments
    const organizations = yield* OrganizationRepository
    const mail = yield* OutgoingMailConfig
    const ids = yield* Ids

    const owned = (principal: Principal, id: TemplateId) =>
      requireOwned("template", id, templates.findById(principal.organization.id, id), () => templates.organizationOf(id))

    const create = operation("Templates.create")(function*(principal: Principal, input: NewTemplate) {
      yield* authorize(principal, "templates:write")
      const html = input.html ?? null
      const text = input.text ?? null
      yield* requireBody(html, text)
      yield* engine.check({ subject: input.subject, html, text })
      const at = yield* now
      const template = new EmailTemplate({
        id: TemplateId.make(yield* ids.next),
        organizationId: principal.organization.id,
        name: input.name,
        subject: input.subject,
        html,
        text,
        createdAt: at,
        updatedAt: at
      })
      yield* templates.insert(template)
      return template
    })

    const get = operation("Templates.get")(function*(principal: Principal, id: TemplateId) {
      yield* authorize(principal, "templates:read")
      return yield* owned(principal, id)
    })

    /** One page of the organization's templates, oldest first. */
    const list = operation("Templates.list")(function*(
      principal: Principal,
      query: { readonly limit: number; readonly cursor?: string | undefined }
    ) {
      yield* authorize(principal, "templates:read")
      const after = yield* positionFromCursor(query.cursor, LIST_SORT, "asc")
      const organizationId = principal.organization.id
      const [rows, total] = yield* Effect.all([
        templates.list({ organizationId, limit: query.limit + 1, after }),
        templates.count(organizationId)
      ], { concurrency: 2 })
      return { ...cutPage(rows, query.limit, LIST_SORT, "asc", (t) => t.createdAt.toISOString()), total }
    })

    const listPage = operation("Templates.listPage")(function*(principal: Principal, request: PageNumberRequest) {
      yield* authorize(principal, "templates:read")
      const window = yield* pageWindow(request, [], [])
      const organizationId = principal.organization.id
      const [items, total] = yield* Effect.all([
        templates.list({ organizationId, limit: window.limit, offset: window.offset }),
        templates.count(organizationId)
      ], { concurrency: 2 })
      return numberedPage(items, total, request)
    })

    const update = operation("Templates.update")(function*(principal: Principal, id: TemplateId, changes: TemplateChanges) {
      yield* authorize(principal, "templates:write")
      const current = yield* owned(principal, id)
      const next = {
        name: changes.name ?? current.name,
        subject: changes.subject ?? current.subject,
        html: changes.html === undefined ? current.html : changes.html,
        text: changes.text === undefined ? current.text : changes.text
      }
      yield* requireBody(next.html, next.text)
      yield* engine.check(next)
      const updated = new EmailTemplate({ ...current, ...next, updatedAt: yield* now })
      yield* templates.update(updated)
      return updated
    })

    const remove = operation("Templates.remove")(function*(principal: Principal, id: TemplateId) {
      yield* authorize(principal, "templates:write")
      yield* owned(principal, id)
      yield* templates.delete(principal.organization.id, id)
    })

    /** The subscriber a preview renders for: one of the organization's, or the sample one. */
    const previewSubscriber = (principal: Principal, subscriberId: SubscriberId | undefined) =>
      Effect.gen(function*() {
        if (subscriberId === undefined) return sampleSubscriber
        const organizationId = principal.organization.id
        // As for a send: another organization's subscriber is refused, an unknown one not found.
        const found = yield* requireOwned(
          "subscriber",
          subscriberId,
          subscribers.findById(organizationId, subscriberId),
          () => subscribers.organizationOf(subscriberId)
        )
        const tags = (yield* assignments.tagsOf(organizationId, [subscriberId])).get(subscriberId) ?? []
        return templateSubscriber(found, tags.map((t) => t.tag.name))
      })

    /** Renders a template's parts as a send would, except that its links carry no real token. */
    const render = (principal: Principal, source: EmailTemplateSource, request: TemplatePreviewRequest) =>
      Effect.gen(function*() {
        const subscriber = yield* previewSubscriber(principal, request.subscriberId)
        const organization = yield* organizations.findById(principal.organization.id)
        const rendered = yield* engine.render(source, templateScope({
          subscriber,
          organizationName: Option.match(organization, { onNone: () => "", onSome: (o) => o.name }),
          unsubscribeUrl: unsubscribeUrl(mail.publicBaseUrl, PREVIEW_TOKEN),
          preferencesUrl: preferencesUrl(mail.publicBaseUrl, PREVIEW_TOKEN),
          data: request.data ?? {}
        }))
        const result: TemplatePreview = rendered
        return result
      })

    /**
     * Renders the template for a subscriber of the organization (a sample one when none is named)
     * with the caller's data, as a send would, except that its links carry no real token.
     */
    const preview = operation("Templates.preview")(function*(
      principal: Principal,
      id: TemplateId,
      request: TemplatePreviewRequest
    ) {
      yield* authorize(principal, "templates:read")
      const template = yield* owned(principal, id)
      return yield* render(principal, template, request)
    })

    /**
     * Renders a template not saved (an editor's draft) as {@link preview} renders a saved one,
     * after the checks a save makes of its parts.
     */
    const previewDraft = operation("Templates.previewDraft")(function*(
      principal: Principal,
      source: EmailTemplateSource,
      request: TemplatePreviewRequest
    ) {
      yield* authorize(principal, "templates:read")
      yield* requireBody(source.html, source.text)
      yield* engine.check(source)
      return yield* render(principal, source, request)
    })

    /**
     * What an editor shows of a draft as it is typed: each part that cannot be read, with its line
     * and column, and the variables the template reads. Saving checks the same way.
     */
    const inspect = operation("Templates.inspect")(function*(principal: Principal, source: EmailTemplateSource) {
      yield* authorize(principal, "templates:read")
      return yield* engine.inspect(source)
    })

    return { create, get, list, listPage, update, remove, preview, previewDraft, inspect } as const
  })
}) {}
