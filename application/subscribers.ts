import {
  Consent,
  ConsentId,
  DomainEvent,
  type EmailAddress,
  type EventType,
  type Locale,
  InvalidInput,
  type Metadata,
  type NumberedPage,
  type OrganizationId,
  PlanLimitExceeded,
  ResourceNotFound,
  type SortOrder,
  Subscriber,
  type SubscriberChanges,
  applySubscriberChanges,
  emailKey,
  EventId,
  SubscriberId,
  type SubscriberStatus,
  type Tag,
  type TagId,
  type TagSubscription,
  tagNameKey,
  reason,
  isStorableText,
  isUuid,
  keptUserAgent,
  signUpCollision,
  truncateClientAddress
} from "@roster/domain"
import { Array, Effect, Option } from "effect"
import { now } from "./support/clock.js"
import { requireFound, requireOwned } from "./support/ownership.js"
import { subscriberSnapshot, tagSubscriptionData } from "./support/event-payloads.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { numberedPage, type PageNumberRequest, pageWindow } from "./support/page-numbers.js"
import { Ids } from "./ports/ids.js"
import { ImportJobRepository } from "./ports/import-job-repository.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { Outbox } from "./ports/outbox.js"
import {
  type SubscriberPageSort,
  type SubscriberSearch,
  subscriberPageSorts,
  SubscriberRepository,
  type SubscriberSort
} from "./ports/subscriber-repository.js"
import { ConsentRepository } from "./ports/sign-up-repository.js"
import { SubscriberIntake } from "./ports/subscriber-intake.js"
import { TagAssignments } from "./ports/tag-assignments.js"
import { TagRepository } from "./ports/tag-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { authorize, type Principal } from "./support/principal.js"
import { attachWithinLimit, beyondSubscriberLimit, tooManyTagsFor } from "./support/tag-limits.js"
import { makeTagNameResolver } from "./support/tag-names.js"
import { Limits } from "./support/limits.js"
import { operations } from "./support/operation.js"
import { makeConsentReader } from "./support/consents.js"
import { makeSignUpKeeping, type SignUpPerson } from "./support/sign-up-keeping.js"

export type { ConsentView } from "./support/consents.js"

/** A subscriber with the tags it carries. */
export interface SubscriberView {
  readonly subscriber: Subscriber
  readonly tags: ReadonlyArray<TagSubscription>
}

export interface NewSubscriber {
  readonly email: EmailAddress
  /** Tags to attach, by id; each must be the organization's. */
  readonly tagIds?: ReadonlyArray<TagId> | undefined
  /**
   * Tags to attach, by name (instead of `tagIds`, never with them). A name no tag has becomes a
   * new tag when the caller may write tags, and is refused otherwise.
   */
  readonly tagNames?: ReadonlyArray<string> | undefined
  readonly metadata?: Metadata | undefined
  readonly firstName?: string | null | undefined
  readonly lastName?: string | null | undefined
  /** What the subscriber agreed to, as the caller tells it; kept as a consent naming the caller's API key. */
  readonly consent?: GivenConsent | undefined
  /**
   * The language of the confirmation email and of the pages its link opens, for a double opt-in
   * (`requestConfirmation`) alone; English unless given. A create at once refuses it.
   */
  readonly locale?: Locale | undefined
}

/** A consent the API is told of: the text agreed to, and where from. */
export interface GivenConsent {
  readonly text: string
  /** The client's address (IPv4 or IPv6); kept cut to its /24 or /48. */
  readonly clientAddress?: string | undefined
  /** Kept to its first 512 characters. */
  readonly userAgent?: string | undefined
}

/**
 * What a request for a confirmation answers, whatever became of it: the address it went to. It
 * never tells whether the address was known.
 */
export interface ConfirmationRequested {
  readonly email: EmailAddress
}

/**
 * How a page's `total` is counted: `exact`, or `capped`: when rows must be counted (a status or
 * a search), counting stops past {@link COUNT_CAP} and the total says "at least".
 */
export type SubscriberCount = "exact" | "capped"

/** The most a `capped` count counts: a page says "10,000 or more" rather than read a million rows. */
export const COUNT_CAP = 10_000

/** The longest search text: an email address is at most 254 characters, and a little more is harmless. */
export const MAX_SEARCH_LENGTH = 320

export interface SubscriberListRequest {
  readonly status?: SubscriberStatus | undefined
  readonly tagId?: TagId | undefined
  /** Only subscribers whose email starts with this text, letter case ignored; empty is no search. */
  readonly search?: string | undefined
  /** `exact` unless asked otherwise. */
  readonly count?: SubscriberCount | undefined
  readonly sort: SubscriberSort
  readonly order: SortOrder
  readonly cursor?: string | undefined
  readonly limit: number
}

/** Tags to attach and to detach, by name. */
export interface TagNameChanges {
  /** Attached unless already; a name no tag has becomes a new tag when the caller may write tags. */
  readonly add?: ReadonlyArray<string> | undefined
  /** Detached if attached; a name no tag has is passed over. */
  readonly remove?: ReadonlyArray<string> | undefined
}

/** A numbered page of subscribers, optionally of one status and of the tag with one name. */
export interface SubscriberPageRequest extends PageNumberRequest {
  readonly status?: SubscriberStatus | undefined
  /** The tag's name, regardless of letter case; a name no tag has gives an empty page. */
  readonly tagName?: string | undefined
  /** Only subscribers whose email starts with this text, letter case ignored; empty is no search. */
  readonly search?: string | undefined
}

export type SubscriberNumberedPage = NumberedPage<SubscriberView>

/** The most events a page of a subscriber's history holds. */
export const MAX_HISTORY_PAGE = 100

/** The states only the email provider's reports move a subscriber to. */
const PROVIDER_STATUSES = ["bounced", "complained"] as const

/** A page of a subscriber's history, newest first. */
export interface SubscriberHistoryRequest {
  /** The last event of the page before (its id), for the events recorded before it; none for the newest. */
  readonly before?: string | undefined
  /** 1 to {@link MAX_HISTORY_PAGE}. */
  readonly limit: number
}

export interface SubscriberHistoryPage {
  /** The events recorded about the subscriber that are kept, newest first. */
  readonly items: ReadonlyArray<DomainEvent>
  /** What `before` asks for the older events, or null when there are none. */
  readonly before: EventId | null
}

/** Newest first, as a subscriber list is usually read. */
const defaultPageSort = [{ field: "created_at", order: "desc" }] as const

export interface SubscriberPage {
  readonly items: ReadonlyArray<SubscriberView>
  /** How many match over all pages; when `totalCapped`, at least this many. */
  readonly total: number
  /** Whether more match than `total` says: a `capped` count stopped at {@link COUNT_CAP}. */
  readonly totalCapped: boolean
  readonly nextCursor: string | null
}

/**
 * The email key prefix a search asks for (the key of its text, as emails are matched), undefined for
 * no search; too long a text, or one no database can compare, is a 400 on `search`.
 */
const searchPrefix = (search: string | undefined): Effect.Effect<string | undefined, InvalidInput> => {
  if (search === undefined) return Effect.succeed(undefined)
  if (search.length > MAX_SEARCH_LENGTH) {
    return Effect.fail(new InvalidInput({ field: "search", reason: reason("tooLong", { max: MAX_SEARCH_LENGTH }) }))
  }
  if (!isStorableText(search)) return Effect.fail(new InvalidInput({ field: "search", reason: reason("unstorable") }))
  const key = emailKey(search)
  return Effect.succeed(key === "" ? undefined : key)
}

const sortValue = (sort: SubscriberSort) => (s: Subscriber): string =>
  sort === "email" ? emailKey(s.email) : (sort === "created_at" ? s.createdAt : s.updatedAt).toISOString()

/** Whether the subscribers matching a filter must be counted row by row: no kept count holds them. */
const countsRows = (filter: SubscriberSearch): boolean => filter.status !== undefined || filter.emailPrefix !== undefined

export class Subscribers extends Effect.Service<Subscribers>()("roster/Subscribers", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const subscribers = yield* SubscriberRepository
    const tags = yield* TagRepository
    const assignments = yield* TagAssignments
    const organizations = yield* OrganizationRepository
    const unitOfWork = yield* UnitOfWork
    const outbox = yield* Outbox
    const intake = yield* SubscriberIntake
    const consents = yield* ConsentRepository
    const readConsents = yield* makeConsentReader
    const keeping = yield* makeSignUpKeeping
    const ids = yield* Ids
    const importJobs = yield* ImportJobRepository
    const limits = yield* Limits
    const resolveTagNames = makeTagNameResolver(tags, ids)

    const event = (organizationId: OrganizationId, type: EventType, occurredAt: Date, data: Record<string, unknown>) =>
      Effect.map(ids.next, (id) =>
        // Made of values this use case has just checked or built: not checked again.
        new DomainEvent({ id: EventId.make(id), organizationId, type, occurredAt, data }, true))

    /** The subscriber if it is this organization's; 404 if it is nobody's, 403 if another's. */
    const owned = (organizationId: OrganizationId, id: SubscriberId, forUpdate = false) =>
      requireOwned(
        "subscriber",
        id,
        (forUpdate ? subscribers.findByIdForUpdate : subscribers.findById)(organizationId, id),
        () => subscribers.organizationOf(id)
      )

    /**
     * The tags named by `tagIds` as the client sent them (an unknown one is reported at its index
     * there), all of which must be this organization's; each tag once, in the order given.
     */
    const requireTags = (organizationId: OrganizationId, tagIds: ReadonlyArray<TagId>, field: string) =>
      Effect.gen(function*() {
        if (tagIds.length === 0) return []
        const unique = Array.dedupe(tagIds)
        const found = yield* tags.findByIds(organizationId, unique)
        const byId = new Map(found.map((tag) => [tag.id, tag] as const))
        const missing = tagIds.findIndex((id) => !byId.has(id))
        if (missing >= 0) {
          return yield* new InvalidInput({
            field: `${field}[${missing}]`,
            reason: reason("noTagWithId", { id: tagIds[missing]! })
          })
        }
        return unique.map((id) => byId.get(id)!)
      })

    const tagsOf = (organizationId: OrganizationId, id: SubscriberId) =>
      Effect.map(assignments.tagsOf(organizationId, [id]), (map) => map.get(id) ?? [])

    const view = (subscriber: Subscriber) =>
      Effect.map(tagsOf(subscriber.organizationId, subscriber.id), (tags): SubscriberView => ({ subscriber, tags }))

    /** The API key of a principal, when it calls with one. */
    const apiKeyOf = (principal: Principal) => principal.credential.kind === "api_key" ? principal.credential.id : null

    /** The consent a caller tells of, as it is kept: agreed now, through the caller's API key. */
    const consentOf = (principal: Principal, subscriber: Subscriber, given: GivenConsent, at: Date) =>
      Effect.map(ids.next, (id) =>
        new Consent({
          id: ConsentId.make(id),
        organizationId: subscriber.organizationId,
        subscriberId: subscriber.id,
        formId: null,
        apiKeyId: apiKeyOf(principal),
        text: given.text,
        clientAddress: given.clientAddress === undefined ? null : truncateClientAddress(given.clientAddress),
        userAgent: keptUserAgent(given.userAgent),
        agreedAt: at,
        confirmedAt: null
      }))

    const create = operation("Subscribers.create")(function*(principal: Principal, input: NewSubscriber) {
      yield* authorize(principal, "subscribers:write")
      if (input.locale !== undefined) return yield* new InvalidInput({ field: "locale", reason: reason("localeWithoutDoubleOptIn") })
      const organizationId = principal.organization.id
      const at = yield* now
      // Not checked again: the email and metadata come checked by their types, the rest is made here.
      const subscriber = new Subscriber({
        id: SubscriberId.make(yield* ids.next),
        organizationId,
        email: input.email,
        status: "active",
        metadata: input.metadata ?? {},
        firstName: input.firstName ?? null,
        lastName: input.lastName ?? null,
        createdAt: at,
        updatedAt: at
      }, true)
      const maxSubscribers = limits.subscribers(principal.organization.tier)
      if (input.tagIds !== undefined && input.tagNames !== undefined) {
        return yield* new InvalidInput({ field: "tags", reason: reason("tagsByIdOrName") })
      }
      const limitExceeded = () =>
        new PlanLimitExceeded({
          limit: "subscribers",
          tier: principal.organization.tier,
          max: maxSubscribers ?? Number.POSITIVE_INFINITY
        })
      if ((input.tagIds ?? []).length === 0 && (input.tagNames ?? []).length === 0 && input.consent === undefined) {
        // Without tags or a consent, the subscriber comes in through the intake: one step on a server.
        const created = yield* event(organizationId, "subscriber.created", at, { subscriber: subscriberSnapshot(subscriber, []) })
        if (!(yield* intake.admit(subscriber, [created], maxSubscribers))) return yield* limitExceeded()
        return { subscriber, tags: [] } satisfies SubscriberView
      }
      // A new subscriber carries only what it is made with: too many is refused before anything is read.
      if (beyondSubscriberLimit(Array.dedupe(input.tagIds ?? input.tagNames?.map(tagNameKey) ?? []).length)) {
        return yield* tooManyTagsFor("tags")
      }
      return yield* unitOfWork.transaction(Effect.gen(function*() {
        const wanted = input.tagNames === undefined
          ? yield* requireTags(organizationId, input.tagIds ?? [], "tags")
          : yield* resolveTagNames(principal, input.tagNames, "create", "tags")
        yield* subscribers.insert(subscriber)
        yield* attachWithinLimit(assignments, organizationId, subscriber.id, wanted.map((tag) => tag.id), at, "tags")
        if (input.consent !== undefined) yield* consents.record(yield* consentOf(principal, subscriber, input.consent, at))
        const result: SubscriberView = { subscriber, tags: wanted.map((tag) => ({ tag, subscribedAt: at })) }
        yield* outbox.record([
          yield* event(organizationId, "subscriber.created", at, { subscriber: subscriberSnapshot(subscriber, result.tags) }),
          ...yield* Effect.forEach(wanted, (tag) =>
            event(organizationId, "tag.subscribed", at, tagSubscriptionData(subscriber, tag)))
        ])
        // Last, so that the organization is held for as short a time as possible.
        if (!(yield* organizations.reserveSubscriberSlots(organizationId, 1, maxSubscribers))) return yield* limitExceeded()
        return result
      }))
    })

    /**
     * Asks the address to confirm before it becomes a subscriber (double opt-in through the API): a
     * pending sign-up is kept as for a form, with the tags, metadata, names and consent given, and
     * the worker sends its confirmation email; confirming makes the subscriber, its consent naming
     * the caller's API key. The collision rule holds as for forms: an active subscriber gets no
     * second record but the email saying they are subscribed already, a bounced or complained
     * address nothing, and one email per address in ten minutes. The answer is the same for every
     * address. A test key's sign-up is kept but its email never leaves, as no email of a test key
     * does. Scope `subscribers:write`.
     */
    const requestConfirmation = operation("Subscribers.requestConfirmation")(function*(principal: Principal, input: NewSubscriber) {
      yield* authorize(principal, "subscribers:write")
      const organizationId = principal.organization.id
      if (input.tagIds !== undefined && input.tagNames !== undefined) {
        return yield* new InvalidInput({ field: "tags", reason: reason("tagsByIdOrName") })
      }
      if (beyondSubscriberLimit(Array.dedupe(input.tagIds ?? input.tagNames?.map(tagNameKey) ?? []).length)) {
        return yield* tooManyTagsFor("tags")
      }
      const wanted = input.tagNames === undefined
        ? yield* requireTags(organizationId, input.tagIds ?? [], "tags")
        : yield* unitOfWork.transaction(resolveTagNames(principal, input.tagNames, "create", "tags"))
      const answer: ConfirmationRequested = { email: input.email }
      const known = yield* subscribers.findByEmail(organizationId, input.email)
      const collision = signUpCollision(Option.getOrUndefined(known)?.status)
      if (collision === "undeliverable") return answer
      const person: SignUpPerson = {
        email: input.email,
        firstName: input.firstName ?? null,
        lastName: input.lastName ?? null,
        consentText: input.consent?.text ?? null,
        clientAddress: input.consent?.clientAddress === undefined ? null : truncateClientAddress(input.consent.clientAddress),
        userAgent: keptUserAgent(input.consent?.userAgent),
        tagIds: wanted.map((tag) => tag.id),
        metadata: input.metadata ?? {}
      }
      const sandboxed = principal.credential.kind === "api_key" && principal.credential.environment === "test"
      yield* keeping.keep(
        { organizationId, formId: null, apiKeyId: apiKeyOf(principal) },
        person,
        collision === "proceed" ? "confirmation" : "already_subscribed",
        input.locale ?? "en",
        yield* now,
        !sandboxed
      )
      return answer
    })

    /**
     * What the organization's subscriber `id` agreed to, newest first: when, through which form (or
     * API key), the text, the client's network and user agent, and when it was confirmed. Kept
     * while the subscriber is, also after they unsubscribe. Another organization's subscriber is
     * not found. Scope `subscribers:read`.
     */
    const consentsOf = operation("Subscribers.consents")(function*(principal: Principal, id: SubscriberId) {
      yield* authorize(principal, "subscribers:read")
      const organizationId = principal.organization.id
      yield* requireFound("subscriber", id, subscribers.findById(organizationId, id))
      return yield* readConsents(organizationId, id)
    })

    const get = operation("Subscribers.get")((principal: Principal, id: SubscriberId) =>
      Effect.zipRight(
        authorize(principal, "subscribers:read"),
        requireOwned("subscriber", id, subscribers.findWithTags(principal.organization.id, id), () => subscribers.organizationOf(id))
      )
    )

    /**
     * What was recorded about the organization's subscriber `id`, newest first, a page at a time.
     * Another organization's subscriber is not found. Scope `subscribers:read`.
     */
    const history = operation("Subscribers.history")(function*(principal: Principal, id: SubscriberId, request: SubscriberHistoryRequest) {
      yield* authorize(principal, "subscribers:read")
      const { before, limit } = request
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_PAGE) {
        return yield* new InvalidInput({ field: "limit", reason: reason("pageSize", { min: 1, max: MAX_HISTORY_PAGE }) })
      }
      if (before !== undefined && !isUuid(before)) {
        return yield* new InvalidInput({ field: "before", reason: reason("notAnEventId") })
      }
      const organizationId = principal.organization.id
      yield* requireFound("subscriber", id, subscribers.findById(organizationId, id))
      const rows = yield* outbox.recordedAboutNewestFirst(organizationId, id, {
        before: before === undefined ? undefined : EventId.make(before),
        limit: limit + 1
      })
      const items = rows.slice(0, limit)
      return {
        items,
        before: rows.length > limit ? items[items.length - 1]!.id : null
      } satisfies SubscriberHistoryPage
    })

    /**
     * The email provider's bounces and complaints that moved the organization's subscribers, newest
     * first, a page at a time: the `subscriber.updated` events that moved a status to `bounced` or
     * `complained`, which only the provider's reports do. Those of erased subscribers keep no
     * status and are left out. Scope `subscribers:read`.
     */
    const providerMoves = operation("Subscribers.providerMoves")(function*(principal: Principal, request: SubscriberHistoryRequest) {
      yield* authorize(principal, "subscribers:read")
      const { before, limit } = request
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_PAGE) {
        return yield* new InvalidInput({ field: "limit", reason: reason("pageSize", { min: 1, max: MAX_HISTORY_PAGE }) })
      }
      if (before !== undefined && !isUuid(before)) {
        return yield* new InvalidInput({ field: "before", reason: reason("notAnEventId") })
      }
      const rows = yield* outbox.statusMovesNewestFirst(principal.organization.id, PROVIDER_STATUSES, {
        before: before === undefined ? undefined : EventId.make(before),
        limit: limit + 1
      })
      const items = rows.slice(0, limit)
      return {
        items,
        before: rows.length > limit ? items[items.length - 1]!.id : null
      } satisfies SubscriberHistoryPage
    })

    const getByEmail = operation("Subscribers.getByEmail")(function*(principal: Principal, email: EmailAddress) {
      yield* authorize(principal, "subscribers:read")
      const found = yield* subscribers.findByEmail(principal.organization.id, email)
      if (Option.isNone(found)) return yield* new ResourceNotFound({ resource: "subscriber", id: email })
      return yield* view(found.value)
    })

    /**
     * How many subscribers match a filter, counted up to `upTo` when given. The organization's and
     * each tag's subscriber counts are kept in the transactions that change them, so only a status
     * filter or a search needs counting rows.
     */
    const countMatching = (organizationId: OrganizationId, filter: SubscriberSearch, tag: Option.Option<Tag>, upTo?: number) => {
      if (countsRows(filter)) return subscribers.count(organizationId, filter, upTo)
      if (Option.isSome(tag)) return Effect.succeed(tag.value.subscriberCount)
      return organizations.findById(organizationId).pipe(
        Effect.flatMap(Option.match({
          onSome: (organization) => Effect.succeed(organization.subscriberCount),
          onNone: () => subscribers.count(organizationId, filter)
        }))
      )
    }

    const list = operation("Subscribers.list")(function*(principal: Principal, request: SubscriberListRequest) {
      yield* authorize(principal, "subscribers:read")
      const organizationId = principal.organization.id
      const tag = request.tagId === undefined ? Option.none<Tag>() : yield* tags.findById(organizationId, request.tagId)
      if (request.tagId !== undefined && Option.isNone(tag)) {
        return yield* new InvalidInput({ field: "tag", reason: reason("noTagWithId", { id: request.tagId }) })
      }
      const after = yield* positionFromCursor(request.cursor, request.sort, request.order)
      const filter: SubscriberSearch = {
        status: request.status,
        tagId: request.tagId,
        emailPrefix: yield* searchPrefix(request.search)
      }
      const capped = request.count === "capped"
      const [rows, counted] = yield* Effect.all([
        subscribers.list(organizationId, { ...filter, sort: request.sort, order: request.order, after, limit: request.limit + 1 }),
        countMatching(organizationId, filter, tag, capped ? COUNT_CAP + 1 : undefined)
      ], { concurrency: 2 })
      const page = cutPage(rows, request.limit, request.sort, request.order, sortValue(request.sort))
      const tagMap = yield* assignments.tagsOf(organizationId, page.items.map((s) => s.id))
      // A kept count is exact however large; only a count that was stopped says "at least".
      const totalCapped = capped && counted > COUNT_CAP && countsRows(filter)
      return {
        items: page.items.map((subscriber): SubscriberView => ({ subscriber, tags: tagMap.get(subscriber.id) ?? [] })),
        total: totalCapped ? COUNT_CAP : counted,
        totalCapped,
        nextCursor: page.nextCursor
      } satisfies SubscriberPage
    })

    const update = operation("Subscribers.update")(
      function*(principal: Principal, id: SubscriberId, changes: SubscriberChanges) {
        yield* authorize(principal, "subscribers:write")
        const organizationId = principal.organization.id
        return yield* unitOfWork.transaction(Effect.gen(function*() {
          const current = yield* owned(organizationId, id, true)
          const at = yield* now
          const { changed, subscriber } = yield* applySubscriberChanges(current, changes, "api", at)
          const tagList = yield* tagsOf(organizationId, id)
          if (changed.length > 0) {
            yield* subscribers.update(subscriber)
            yield* outbox.record([
              yield* event(organizationId, "subscriber.updated", at, {
                subscriber: subscriberSnapshot(subscriber, tagList),
                changed
              })
            ])
          }
          return { subscriber, tags: tagList } satisfies SubscriberView
        }))
      }
    )

    /** Within a transaction: deletes the subscriber with their tag links and records `subscriber.deleted`. */
    const deleteWithin = (subscriber: Subscriber) =>
      Effect.gen(function*() {
        const { id, organizationId } = subscriber
        const tagList = yield* tagsOf(organizationId, id)
        yield* assignments.detachAllFromSubscriber(organizationId, id)
        yield* subscribers.delete(organizationId, id)
        yield* organizations.releaseSubscriberSlots(organizationId, 1)
        yield* outbox.record([
          yield* event(organizationId, "subscriber.deleted", yield* now, { subscriber: subscriberSnapshot(subscriber, tagList) })
        ])
      })

    const remove = operation("Subscribers.remove")(function*(principal: Principal, id: SubscriberId) {
      yield* authorize(principal, "subscribers:delete")
      const organizationId = principal.organization.id
      yield* unitOfWork.transaction(Effect.flatMap(owned(organizationId, id, true), deleteWithin))
    })

    /**
     * Carries out up to `limit` erasures subscribers asked for, in one transaction: each subscriber
     * is deleted with their tag links, the events kept about them lose everything but their id, the
     * problem rows of their organization's imports lose their address, and `subscriber.deleted` is
     * recorded, as for a deletion through the API. A worker stopped halfway leaves nothing
     * half-done: the transaction rolls back, and the next run takes them again. How many it erased.
     */
    const eraseRequested = operation("Subscribers.eraseRequested")((limit: number) =>
      unitOfWork.transaction(Effect.gen(function*() {
        const due = yield* subscribers.claimErasures(limit)
        const addresses = new Map<OrganizationId, Array<string>>()
        for (const { id, organizationId } of due) {
          const subscriber = yield* subscribers.findByIdForUpdate(organizationId, id)
          if (Option.isNone(subscriber)) continue
          yield* outbox.forgetSubscriber(organizationId, id)
          yield* deleteWithin(subscriber.value)
          addresses.set(organizationId, [...(addresses.get(organizationId) ?? []), subscriber.value.email])
        }
        // Imports last, once every subscriber is held: a running import's batch holds its subscribers before its import too.
        for (const [organizationId, emails] of addresses) yield* importJobs.forgetAddresses(organizationId, emails)
        return due.length
      })))

    const listTags = operation("Subscribers.listTags")(function*(principal: Principal, id: SubscriberId) {
      yield* authorize(principal, "subscribers:read")
      yield* owned(principal.organization.id, id)
      return yield* tagsOf(principal.organization.id, id)
    })

    const attachTags = operation("Subscribers.attachTags")(
      function*(principal: Principal, id: SubscriberId, tagIds: ReadonlyArray<TagId>) {
        yield* authorize(principal, "subscribers:write")
        const organizationId = principal.organization.id
        if (beyondSubscriberLimit(Array.dedupe(tagIds).length)) return yield* tooManyTagsFor("tag_ids")
        return yield* unitOfWork.transaction(Effect.gen(function*() {
          const subscriber = yield* owned(organizationId, id, true)
          const wanted = yield* requireTags(organizationId, tagIds, "tag_ids")
          const at = yield* now
          const added = new Set<string>(yield* attachWithinLimit(assignments, organizationId, id, wanted.map((tag) => tag.id), at, "tag_ids"))
          const addedTags: ReadonlyArray<Tag> = wanted.filter((tag) => added.has(tag.id))
          yield* outbox.record(
            yield* Effect.forEach(addedTags, (tag) => event(organizationId, "tag.subscribed", at, tagSubscriptionData(subscriber, tag)))
          )
          return yield* view(subscriber)
        }))
      }
    )

    const detachTag = operation("Subscribers.detachTag")(function*(principal: Principal, id: SubscriberId, tagId: TagId) {
      yield* authorize(principal, "subscribers:write")
      const organizationId = principal.organization.id
      yield* unitOfWork.transaction(Effect.gen(function*() {
        const subscriber = yield* owned(organizationId, id, true)
        const tag = yield* requireOwned("tag", tagId, tags.findById(organizationId, tagId), () => tags.organizationOf(tagId))
        if (yield* assignments.detach(organizationId, id, tagId)) {
          yield* outbox.record([yield* event(organizationId, "tag.unsubscribed", yield* now, tagSubscriptionData(subscriber, tag))])
        }
      }))
    })

    /**
     * Attaches the tags named in `add` (making those no tag has yet, when the caller may write
     * tags) and detaches those named in `remove`, in one transaction; `tag.subscribed` and
     * `tag.unsubscribed` are recorded for the tags that really came or went. A name in both lists
     * is refused. The subscriber with its tags afterwards.
     */
    const changeTags = operation("Subscribers.changeTags")(
      function*(principal: Principal, id: SubscriberId, changes: TagNameChanges) {
        yield* authorize(principal, "subscribers:write")
        const organizationId = principal.organization.id
        const add = changes.add ?? []
        const remove = changes.remove ?? []
        const adding = new Set(add.map(tagNameKey))
        const both = remove.findIndex((name) => adding.has(tagNameKey(name)))
        if (both >= 0) {
          return yield* new InvalidInput({ field: `remove[${both}]`, reason: reason("tagInBothLists") })
        }
        if (beyondSubscriberLimit(adding.size)) return yield* tooManyTagsFor("add")
        return yield* unitOfWork.transaction(Effect.gen(function*() {
          const subscriber = yield* owned(organizationId, id, true)
          const toDetach = yield* resolveTagNames(principal, remove, "ignore", "remove")
          const toAttach = yield* resolveTagNames(principal, add, "create", "add")
          const at = yield* now
          // Those detached first make room for those attached.
          const detached: Array<Tag> = []
          for (const tag of toDetach) {
            if (yield* assignments.detach(organizationId, id, tag.id)) detached.push(tag)
          }
          const attached = new Set<string>(yield* attachWithinLimit(assignments, organizationId, id, toAttach.map((tag) => tag.id), at, "add"))
          yield* outbox.record([
            ...yield* Effect.forEach(
              toAttach.filter((tag) => attached.has(tag.id)),
              (tag) => event(organizationId, "tag.subscribed", at, tagSubscriptionData(subscriber, tag))
            ),
            ...yield* Effect.forEach(
              detached,
              (tag) => event(organizationId, "tag.unsubscribed", at, tagSubscriptionData(subscriber, tag))
            )
          ])
          return yield* view(subscriber)
        }))
      }
    )

    /**
     * One numbered page of subscribers, newest first unless sorted otherwise (`created_at`,
     * `updated_at`, `email`, `status`); ties always end on the id, so pages never overlap.
     */
    const listPage = operation("Subscribers.listPage")(function*(principal: Principal, request: SubscriberPageRequest) {
      yield* authorize(principal, "subscribers:read")
      const organizationId = principal.organization.id
      const window = yield* pageWindow<SubscriberPageSort>(request, subscriberPageSorts, defaultPageSort)
      const tag = request.tagName === undefined
        ? Option.none<Tag>()
        : yield* tags.findByName(organizationId, request.tagName)
      const emailPrefix = yield* searchPrefix(request.search)
      if (request.tagName !== undefined && Option.isNone(tag)) return numberedPage<SubscriberView>([], 0, request)
      const filter: SubscriberSearch = { status: request.status, tagId: Option.getOrUndefined(tag)?.id, emailPrefix }
      const [rows, total] = yield* Effect.all([
        subscribers.listPage(organizationId, { filter, ...window }),
        countMatching(organizationId, filter, tag)
      ], { concurrency: 2 })
      const tagMap = yield* assignments.tagsOf(organizationId, rows.map((s) => s.id))
      const items = rows.map((subscriber): SubscriberView => ({ subscriber, tags: tagMap.get(subscriber.id) ?? [] }))
      return numberedPage(items, total, request) satisfies SubscriberNumberedPage
    })

    return {
      create,
      requestConfirmation,
      consents: consentsOf,
      get,
      history,
      providerMoves,
      getByEmail,
      list,
      listPage,
      update,
      remove,
      eraseRequested,
      listTags,
      attachTags,
      detachTag,
      changeTags
    } as const
  })
}) {}

