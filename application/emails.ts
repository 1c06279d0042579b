import {
  InvalidInput,
  Message,
  creationEvent,
  type MessageEvent,
  MessageId,
  type MessageKind,
  messageKindOr,
  type MessageStatus,
  PlanLimitExceeded,
  reason,
  ResourceNotFound,
  type Organization,
  type Subscriber,
  type SubscriberId,
  type TagSubscription,
  type TemplateId,
  usageMonth,
  withheld
} from "@roster/domain"
import { Effect, Either, Exit, Option } from "effect"
import { EmailSettingsRepository } from "./ports/email-settings-repository.js"
import { EmailUsage } from "./ports/email-usage.js"
import { Ids } from "./ports/ids.js"
import { MessageRepository } from "./ports/message-repository.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { OutgoingMail } from "./ports/outgoing-mail.js"
import { OutgoingMailConfig } from "./ports/outgoing-mail-config.js"
import { SubscriberRepository } from "./ports/subscriber-repository.js"
import { TagAssignments } from "./ports/tag-assignments.js"
import { type EmailTemplateSource, type RenderedTemplate, TemplateEngine } from "./ports/template-engine.js"
import { TemplateRepository } from "./ports/template-repository.js"
import { TokenSigner } from "./ports/token-signer.js"
import { WorkSignal } from "./ports/work-signal.js"
import { now } from "./support/clock.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { requireOwned } from "./support/ownership.js"
import { numberedPage, type PageNumberRequest, pageWindow } from "./support/page-numbers.js"
import { signPreferenceTokens } from "./support/preference-tokens.js"
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

/** One email the worker or {@link Emails.send} queues for a subscriber. */
export interface EmailToQueue {
  readonly recipient: Subscriber
  /** What to render: emails of the same source object are rendered together. */
  readonly source: EmailTemplateSource
  readonly templateId: TemplateId | null
  readonly data: Readonly<Record<string, unknown>>
  readonly kind: MessageKind
  readonly sandboxed: boolean
  /**
   * The message's id, for a caller that may make the same email again (a worker's firing after a
   * crash) or needs to know it beforehand: the email is queued once, and its monthly count taken
   * once.
   */
  readonly messageId?: MessageId | undefined
}

/**
 * What a caller of {@link Emails.queueMany} already read in the same transaction, not read again:
 * the organization, and the tags of every recipient (one without an entry holds none).
 */
export interface ReadForQueueing {
  readonly organization?: Organization | undefined
  readonly tags?: ReadonlyMap<SubscriberId, ReadonlyArray<TagSubscription>> | undefined
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
     * Renders emails of the organization for its subscribers and records them, in one go: the
     * organization's settings, the recipients' tags and token versions read once, each template
     * rendered for all its recipients at once, the month's count taken together and the messages
     * stored in one write. What {@link send} does once it knows what to send, and what the worker's
     * triggers and sequences queue. Each email succeeds or fails alone, in the order asked.
     */
    const queueMany = operation("Emails.queueMany")((
      organization: Pick<Principal["organization"], "id" | "tier">,
      requests: ReadonlyArray<EmailToQueue>,
      read: ReadForQueueing = {}
    ): Effect.Effect<ReadonlyArray<Either.Either<MessageRecord, InvalidInput | PlanLimitExceeded>>> =>
      Effect.gen(function*() {
        if (requests.length === 0) return []
        const organizationId = organization.id
        const recipientIds = requests.map((request) => request.recipient.id)
        const [found, org, tagMap, accesses] = yield* Effect.all([
          settings.find(organizationId),
          read.organization === undefined ? organizations.findById(organizationId) : Effect.succeed(Option.some(read.organization)),
          read.tags === undefined ? assignments.tagsOf(organizationId, recipientIds) : Effect.succeed(read.tags),
          subscribers.preferenceAccesses(organizationId, recipientIds)
        ], { concurrency: "unbounded" })
        const organizationName = Option.match(org, { onNone: () => "", onSome: (o) => o.name })
        const from = yield* sender.senderOf(organization, found, organizationName)
        const at = yield* now
        const messageIds: Array<MessageId> = []
        for (const request of requests) messageIds.push(request.messageId ?? MessageId.make(yield* ids.next))
        const tokens = yield* signPreferenceTokens(signer, requests.map((request, i) => ({
          tokenId: messageIds[i]!,
          organizationId,
          subscriberId: request.recipient.id,
          version: accesses.get(request.recipient.id)?.tokenVersion ?? 0,
          issuedAt: at
        })))

        // Each template rendered once for all who get it.
        const rendered: Array<Either.Either<RenderedTemplate, InvalidInput>> = new Array(requests.length)
        const bySource = new Map<EmailTemplateSource, Array<number>>()
        requests.forEach((request, i) => {
          const group = bySource.get(request.source)
          if (group === undefined) bySource.set(request.source, [i])
          else group.push(i)
        })
        for (const [source, indexes] of bySource) {
          const scopes = indexes.map((i) => {
            const { data, recipient } = requests[i]!
            return templateScope({
              subscriber: templateSubscriber(recipient, (tagMap.get(recipient.id) ?? []).map((s) => s.tag.name)),
              organizationName,
              unsubscribeUrl: unsubscribeUrl(mail.publicBaseUrl, tokens[i]!),
              preferencesUrl: preferencesUrl(mail.publicBaseUrl, tokens[i]!),
              data
            })
          })
          const each = yield* Effect.either(engine.renderEach(source, scopes))
          indexes.forEach((i, n) => {
            rendered[i] = Either.isLeft(each) ? Either.left(each.left) : each.right[n]!
          })
        }

        const outcomes: Array<Either.Either<MessageRecord, InvalidInput | PlanLimitExceeded>> = new Array(requests.length)
        const held: Array<number> = []
        const counted: Array<number> = []
        const entries = new Map<number, Message>()
        requests.forEach((request, i) => {
          const result = rendered[i]!
          if (Either.isLeft(result)) return void (outcomes[i] = Either.left(result.left))
          const subject = result.right.subject.replace(/[\r\n]+/g, " ").trim()
          if (subject === "") {
            return void (outcomes[i] = Either.left(new InvalidInput({ field: "subject", reason: reason("renderedEmpty") })))
          }
          const { recipient } = request
          const oneClick = unsubscribeUrl(mail.publicBaseUrl, tokens[i]!)
          const access = accesses.get(recipient.id)
          const erasing = access !== undefined && access.erasureRequestedAt !== null
          const hold = withheld(recipient.status, request.kind, request.sandboxed, erasing)
          const message = new Message({
            id: messageIds[i]!,
            organizationId,
            subscriberId: recipient.id,
            templateId: request.templateId,
            campaignId: null,
            kind: request.kind,
            to: recipient.email,
            from,
            subject,
            html: result.right.html,
            text: result.right.text,
            headers: request.kind === "marketing" ? unsubscribeHeaders(oneClick, mail.unsubscribeMailto) : {},
            status: hold?.status ?? "queued",
            providerId: null,
            error: hold?.reason ?? null,
            attemptCount: 0,
            createdAt: at,
            updatedAt: at
          }, true)
          entries.set(i, message)
          ;(hold === null ? counted : held).push(i)
        })

        // The month's count: all at once when the plan has room for them, else one by one up to its limit.
        const month = usageMonth(at)
        const max = limits.emailsPerMonth(organization.tier)
        let reserved = counted.length
        if (reserved > 0 && !(yield* usage.reserve(organizationId, month, reserved, max))) {
          reserved = 0
          while (reserved < counted.length && (yield* usage.reserve(organizationId, month, 1, max))) reserved++
        }
        for (const i of counted.slice(reserved)) {
          entries.delete(i)
          outcomes[i] = Either.left(new PlanLimitExceeded({ limit: "emails_per_month", tier: organization.tier, max: max ?? 0 }))
        }
        const inserted = yield* outgoing.enqueue([...entries.values()]).pipe(
          Effect.onExit((exit) => Exit.isSuccess(exit) || reserved === 0 ? Effect.void : usage.release(organizationId, month, reserved))
        )
        // Made before (a worker making the same emails again): counted then.
        const sending = counted.slice(0, reserved)
        const again = sending.filter((i) => !inserted.has(messageIds[i]!)).length
        if (again > 0) yield* usage.release(organizationId, month, again)
        if (again < sending.length) yield* signal.emailQueued
        for (const [i, message] of entries) outcomes[i] = Either.right({ message, history: [creationEvent(message)] })
        return outcomes
      }))

    /** As {@link queueMany}, for one email. */
    const queue = (
      organization: Pick<Principal["organization"], "id" | "tier">,
      recipient: Subscriber,
      email: Omit<EmailToQueue, "recipient">
    ): Effect.Effect<MessageRecord, InvalidInput | PlanLimitExceeded> =>
      Effect.flatMap(queueMany(organization, [{ ...email, recipient }]), (outcomes) => outcomes[0]!)

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

    return { send, queue, queueMany, get, list, listPage, sentThisMonth } as const
  })
}) {}
