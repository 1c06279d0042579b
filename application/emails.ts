import {
  InvalidInput,
  Message,
  MessageEvent,
  MessageId,
  type MessageKind,
  messageKindOr,
  type MessageStatus,
  PlanLimitExceeded,
  reason,
  ResourceNotFound,
  type Subscriber,
  type SubscriberId,
  type TemplateId,
  usageMonth,
  withheld
} from "@roster/domain"
import { Effect, Exit, Option } from "effect"
import { EmailSettingsRepository } from "./ports/email-settings-repository.js"
import { EmailUsage } from "./ports/email-usage.js"
import { Ids } from "./ports/ids.js"
import { MessageRepository } from "./ports/message-repository.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { OutgoingMail } from "./ports/outgoing-mail.js"
import { OutgoingMailConfig } from "./ports/outgoing-mail-config.js"
import { SubscriberRepository } from "./ports/subscriber-repository.js"
import { TagAssignments } from "./ports/tag-assignments.js"
import { type EmailTemplateSource, TemplateEngine } from "./ports/template-engine.js"
import { TemplateRepository } from "./ports/template-repository.js"
import { TokenSigner } from "./ports/token-signer.js"
import { WorkSignal } from "./ports/work-signal.js"
import { now } from "./support/clock.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { requireOwned } from "./support/ownership.js"
import { numberedPage, type PageNumberRequest, pageWindow } from "./support/page-numbers.js"
import { signPreferenceToken } from "./support/preference-tokens.js"
import { authorize, type Principal } from "./support/principal.js"
import { makeSenderOf } from "./support/sender.js"
import { preferencesUrl, templateScope, templateSubscriber, unsubscribeUrl } from "./support/template-scope.js"
import { Limits } from "./support/limits.js"
import { operations } from "./support/operation.js"

/** One email to send: to whom, what (a template or the content itself) and of which kind. */
export interface EmailToSend {
  /** The recipient: a subscriber's address, or `subscriberId`. */
  readonly to?: string | undefined
  readonly subscriberId?: SubscriberId | undefined
  /** A template of the organization, or `subject` with `html` and/or `text` given here (Liquid too). */
  readonly templateId?: TemplateId | undefined
  readonly subject?: string | undefined
  readonly html?: string | null | undefined
  readonly text?: string | null | undefined
  /** Values the template reads as `data`. */
  readonly data?: Readonly<Record<string, unknown>> | undefined
  /** Marketing when left out. */
  readonly kind?: MessageKind | undefined
}

/** A message with its history, oldest event first. */
export interface MessageRecord {
  readonly message: Message
  readonly history: ReadonlyArray<MessageEvent>
}

export interface MessageListQuery {
  readonly subscriberId?: SubscriberId | undefined
  readonly status?: MessageStatus | undefined
  readonly limit: number
  readonly cursor?: string | undefined
}

const LIST_SORT = "created_at"

/** The headers of marketing email: one-click unsubscribe (RFC 8058), and a mailbox when there is one. */
export const unsubscribeHeaders = (oneClickUrl: string, mailto: string | null): Record<string, string> => ({
  "List-Unsubscribe": mailto === null
    ? `<${oneClickUrl}>`
    : `<${oneClickUrl}>, <mailto:${mailto}?subject=unsubscribe>`,
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"
})

/** A `svc_test_` key's mail is recorded, never delivered, never counted. */
const sandboxed = (principal: Principal): boolean =>
  principal.credential.kind === "api_key" && principal.credential.environment === "test"

export class Emails extends Effect.Service<Emails>()("roster/Emails", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const messages = yield* MessageRepository
    const outgoing = yield* OutgoingMail
    const subscribers = yield* SubscriberRepository
    const assignments = yield* TagAssignments
    const templates = yield* TemplateRepository
    const organizations = yield* OrganizationRepository
    const settings = yield* EmailSettingsRepository
    const usage = yield* EmailUsage
    const limits = yield* Limits
    const engine = yield* TemplateEngine
    const signer = yield* TokenSigner
    const signal = yield* WorkSignal
    const mail = yield* OutgoingMailConfig
    const ids = yield* Ids
    const sender = yield* makeSenderOf

    /** The subscriber the email goes to. An address no subscriber of the organization has is a 400. */
    const recipientOf = (principal: Principal, input: EmailToSend) =>
      Effect.gen(function*() {
        const organizationId = principal.organization.id
        if ((input.to === undefined) === (input.subscriberId === undefined)) {
          return yield* new InvalidInput({ field: "to", reason: reason("toOrSubscriber") })
        }
        if (input.subscriberId !== undefined) {
          const id = input.subscriberId
          return yield* requireOwned("subscriber", id, subscribers.findById(organizationId, id), () => subscribers.organizationOf(id))
        }
        const found = yield* subscribers.findByEmail(organizationId, input.to!)
        if (Option.isNone(found)) {
          return yield* new InvalidInput({
            field: "to",
            reason: reason("notASubscriber")
          })
        }
        return found.value
      })

    /** What the email says: the template's parts, or those given inline, checked as templates are. */
    const contentOf = (organizationId: Principal["organization"]["id"], input: EmailToSend) =>
      Effect.gen(function*() {
        const inline = input.subject !== undefined || input.html != null || input.text != null
        if (input.templateId !== undefined) {
          if (inline) {
            return yield* new InvalidInput({
              field: "template_id",
              reason: reason("templateOrContent")
            })
          }
          const template = yield* templates.findById(organizationId, input.templateId)
          if (Option.isNone(template)) return yield* new ResourceNotFound({ resource: "template", id: input.templateId })
          return { templateId: template.value.id, source: template.value as EmailTemplateSource }
        }
        if (input.subject === undefined) {
          return yield* new InvalidInput({ field: "subject", reason: reason("subjectRequired") })
        }
        if (input.html == null && input.text == null) {
          return yield* new InvalidInput({ field: "html", reason: reason("bodyRequired") })
        }
        const source: EmailTemplateSource = { subject: input.subject, html: input.html ?? null, text: input.text ?? null }
        yield* engine.check(source)
        return { templateId: null, source }
      })

    /**
     * Renders the email for the subscriber and records it: `queued` for the worker (which is told at
     * once), or `suppressed` / `sandboxed` when it must not go out. Queued mail counts against the
     * plan's monthly limit when it is accepted; at the limit it is a `PlanLimitExceeded`.
     */
    const send = operation("Emails.send")(function*(principal: Principal, input: EmailToSend) {
      yield* authorize(principal, "emails:send")
      const recipient: Subscriber = yield* recipientOf(principal, input)
      const { source, templateId } = yield* contentOf(principal.organization.id, input)
      return yield* queue(principal.organization, recipient, {
        source,
        templateId,
        data: input.data ?? {},
        kind: messageKindOr(input.kind),
        sandboxed: sandboxed(principal)
      })
    })

    /**
     * Renders an email of the organization for one of its subscribers and records it, as {@link send}
     * does once it knows what to send: for the worker's triggers too.
     */
    const queue = operation("Emails.queue")((
      organization: Pick<Principal["organization"], "id" | "tier">,
      recipient: Subscriber,
      email: {
        readonly source: EmailTemplateSource
        readonly templateId: TemplateId | null
        readonly data: Readonly<Record<string, unknown>>
        readonly kind: MessageKind
        readonly sandboxed: boolean
        /**
         * The message's id, for a caller that may make the same email again (a worker's firing
         * after a crash): the email is queued once, and its monthly count taken once.
         */
        readonly messageId?: MessageId
      }
    ) =>
      Effect.gen(function*() {
        const organizationId = organization.id
        const { source, templateId } = email
        const [found, org, tagMap, access] = yield* Effect.all([
          settings.find(organizationId),
          organizations.findById(organizationId),
          assignments.tagsOf(organizationId, [recipient.id]),
          subscribers.preferenceAccess(organizationId, recipient.id)
        ], { concurrency: "unbounded" })
        const organizationName = Option.match(org, { onNone: () => "", onSome: (o) => o.name })
        const from = yield* sender.senderOf(organization, found, organizationName)
        const at = yield* now
        const id = email.messageId ?? MessageId.make(yield* ids.next)
        const link = yield* signPreferenceToken(signer, {
          tokenId: id,
          organizationId,
          subscriberId: recipient.id,
          version: Option.match(access, { onNone: () => 0, onSome: (a) => a.tokenVersion }),
          issuedAt: at
        })
        const oneClick = unsubscribeUrl(mail.publicBaseUrl, link.token)
        const rendered = yield* engine.render(source, templateScope({
          subscriber: templateSubscriber(recipient, (tagMap.get(recipient.id) ?? []).map((s) => s.tag.name)),
          organizationName,
          unsubscribeUrl: oneClick,
          preferencesUrl: preferencesUrl(mail.publicBaseUrl, link.token),
          data: email.data
        }))
        const subject = rendered.subject.replace(/[\r\n]+/g, " ").trim()
        if (subject === "") return yield* new InvalidInput({ field: "subject", reason: reason("renderedEmpty") })

        const erasing = Option.isSome(access) && access.value.erasureRequestedAt !== null
        const hold = withheld(recipient.status, email.kind, email.sandboxed, erasing)
        const message = new Message({
          id,
          organizationId,
          subscriberId: recipient.id,
          templateId,
          campaignId: null,
          kind: email.kind,
          to: recipient.email,
          from,
          subject,
          html: rendered.html,
          text: rendered.text,
          headers: email.kind === "marketing" ? unsubscribeHeaders(oneClick, mail.unsubscribeMailto) : {},
          status: hold?.status ?? "queued",
          providerId: null,
          error: hold?.reason ?? null,
          attemptCount: 0,
          createdAt: at,
          updatedAt: at
        })
        const first = new MessageEvent({ type: message.status, occurredAt: at, detail: hold?.reason ?? null })
        if (hold !== null) {
          yield* outgoing.enqueue(message, first)
          return { message, history: [first] } satisfies MessageRecord
        }
        const month = usageMonth(at)
        const max = limits.emailsPerMonth(organization.tier)
        if (!(yield* usage.reserve(organizationId, month, 1, max))) {
          return yield* new PlanLimitExceeded({
            limit: "emails_per_month",
            tier: organization.tier,
            max: max ?? 0
          })
        }
        const inserted = yield* outgoing.enqueue(message, first).pipe(
          Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : usage.release(organizationId, month, 1))
        )
        // Made before: counted then.
        if (!inserted) yield* usage.release(organizationId, month, 1)
        else yield* signal.emailQueued
        return { message, history: [first] } satisfies MessageRecord
      }))

    const owned = (principal: Principal, id: MessageId) =>
      requireOwned("message", id, messages.findById(principal.organization.id, id), () => messages.organizationOf(id))

    const get = operation("Emails.get")(function*(principal: Principal, id: MessageId) {
      yield* authorize(principal, "emails:read")
      const message = yield* owned(principal, id)
      const record: MessageRecord = { message, history: yield* messages.history(id) }
      return record
    })

    /** One page of the organization's messages, newest first, optionally of one subscriber or status. */
    const list = operation("Emails.list")(function*(principal: Principal, query: MessageListQuery) {
      yield* authorize(principal, "emails:read")
      const after = yield* positionFromCursor(query.cursor, LIST_SORT, "desc")
      const rows = yield* messages.list({
        organizationId: principal.organization.id,
        subscriberId: query.subscriberId,
        status: query.status,
        limit: query.limit + 1,
        after
      })
      const page = cutPage(rows, query.limit, LIST_SORT, "desc", (m) => m.createdAt.toISOString())
      return { items: yield* withHistories(page.items), nextCursor: page.nextCursor }
    })

    const withHistories = (items: ReadonlyArray<Message>) =>
      Effect.map(messages.histories(items.map((m) => m.id)), (histories) =>
        items.map((message): MessageRecord => ({ message, history: histories.get(message.id) ?? [] })))

    /** One numbered page of the organization's messages, newest first, optionally of one subscriber or status. */
    const listPage = operation("Emails.listPage")(function*(
      principal: Principal,
      query: PageNumberRequest & { readonly subscriberId?: SubscriberId | undefined; readonly status?: MessageStatus | undefined }
    ) {
      yield* authorize(principal, "emails:read")
      const window = yield* pageWindow(query, [], [])
      const filter = { organizationId: principal.organization.id, subscriberId: query.subscriberId, status: query.status }
      const [items, total] = yield* Effect.all([
        messages.list({ ...filter, limit: window.limit, offset: window.offset }),
        messages.count(filter)
      ], { concurrency: 2 })
      return numberedPage(yield* withHistories(items), total, query)
    })

    /** How many emails the organization handed over this month, for billing figures. */
    const sentThisMonth = operation("Emails.sentThisMonth")((principal: Principal) =>
      Effect.flatMap(now, (at) => usage.sentIn(principal.organization.id, usageMonth(at))))

    return { send, queue, get, list, listPage, sentThisMonth } as const
  })
}) {}
