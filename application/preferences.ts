import {
  applySubscriberChanges,
  DomainEvent,
  EventId,
  type EventType,
  InvalidInput,
  InvalidToken,
  isUuid,
  MAX_TAGS_PER_ORGANIZATION,
  type Message,
  type Note,
  type Organization,
  OrganizationId,
  reason,
  ResourceNotFound,
  type Subscriber,
  SubscriberId,
  type Tag,
  type TagId,
  tagNameKey,
  type TagSubscription
} from "@roster/domain"
import { Array, Effect, Option } from "effect"
import { Ids } from "./ports/ids.js"
import { MessageRepository } from "./ports/message-repository.js"
import { NoteRepository } from "./ports/note-repository.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { Outbox } from "./ports/outbox.js"
import { SubscriberRepository } from "./ports/subscriber-repository.js"
import { type OfferedTag, TagAssignments } from "./ports/tag-assignments.js"
import { TagRepository } from "./ports/tag-repository.js"
import { TokenSigner } from "./ports/token-signer.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { now } from "./support/clock.js"
import { subscriberSnapshot, tagSubscriptionData } from "./support/event-payloads.js"
import { type ConsentView, makeConsentReader } from "./support/consents.js"
import { signPreferenceToken } from "./support/preference-tokens.js"
import { authorize, type Principal } from "./support/principal.js"
import { attachWithinLimit, beyondSubscriberLimit, tooManyTagsFor } from "./support/tag-limits.js"
import { operations } from "./support/operation.js"

export type { PreferenceLink } from "./support/preference-tokens.js"

/** One public tag of the organization as its subscriber sees it: `subscribedAt` when they carry it. */
export type PreferenceTag = OfferedTag

/** What a subscriber sees of themselves: their organization, their address and the public tags. */
export interface PreferenceView {
  readonly organization: Organization
  readonly subscriber: Subscriber
  /** The organization's public tags, by name. */
  readonly tags: ReadonlyArray<PreferenceTag>
}

/** What a subscriber changes at once: tags by name, and whether they get mail at all. */
export interface PreferenceChanges {
  readonly add?: ReadonlyArray<string> | undefined
  readonly remove?: ReadonlyArray<string> | undefined
  /** `unsubscribed` stops all mail; `active` starts it again, whatever the status was. */
  readonly status?: "active" | "unsubscribed" | undefined
}

/** Everything stored about a subscriber, for them to take away. */
export interface PreferenceExport {
  readonly exportedAt: Date
  readonly organization: Organization
  readonly subscriber: Subscriber
  readonly tags: ReadonlyArray<TagSubscription>
  /** The events recorded about them that are still kept, oldest first. */
  readonly events: ReadonlyArray<DomainEvent>
  /** The notes the organization keeps on them, newest first. */
  readonly notes: ReadonlyArray<Note>
  /** The emails sent (or withheld) to them, newest first. */
  readonly emails: ReadonlyArray<Message>
  /** What they agreed to, newest first. */
  readonly consents: ReadonlyArray<ConsentView>
}

/** The most notes and emails an export holds, newest first. */
const EXPORT_LIMIT = 10_000

const revoked = () => new InvalidToken({ reason: "this link is no longer valid; ask for a new one" })

/**
 * The preference center: a subscriber, holding a token issued for them, sees and changes their
 * own subscriptions without an account. A token names one subscriber of one organization and the
 * version of that subscriber's tokens it was issued under; revoking moves the version on, so
 * every earlier token is refused at once. Changes record the same events as the API's.
 */
export class Preferences extends Effect.Service<Preferences>()("roster/Preferences", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const subscribers = yield* SubscriberRepository
    const organizations = yield* OrganizationRepository
    const tags = yield* TagRepository
    const assignments = yield* TagAssignments
    const unitOfWork = yield* UnitOfWork
    const outbox = yield* Outbox
    const notes = yield* NoteRepository
    const messages = yield* MessageRepository
    const signer = yield* TokenSigner
    const readConsents = yield* makeConsentReader
    const ids = yield* Ids

    const event = (organizationId: OrganizationId, type: EventType, occurredAt: Date, data: Record<string, unknown>) =>
      Effect.map(ids.next, (id) => new DomainEvent({ id: EventId.make(id), organizationId, type, occurredAt, data }))

    /** A token for the organization's subscriber `id`, 30 days long. Scope `subscribers:write`. */
    const issueLink = operation("Preferences.issueLink")(function*(principal: Principal, id: SubscriberId) {
      yield* authorize(principal, "subscribers:write")
      const organizationId = principal.organization.id
      const access = yield* subscribers.preferenceAccess(organizationId, id)
      if (Option.isNone(access)) return yield* new ResourceNotFound({ resource: "subscriber", id })
      return yield* signPreferenceToken(signer, {
        tokenId: yield* ids.next,
        organizationId,
        subscriberId: id,
        version: access.value.tokenVersion,
        issuedAt: yield* now
      })
    })

    /** Every token issued for the subscriber so far stops working. Scope `subscribers:write`. */
    const revokeLinks = operation("Preferences.revokeLinks")(function*(principal: Principal, id: SubscriberId) {
      yield* authorize(principal, "subscribers:write")
      const revokedTo = yield* subscribers.revokePreferenceTokens(principal.organization.id, id)
      if (Option.isNone(revokedTo)) return yield* new ResourceNotFound({ resource: "subscriber", id })
    })

    /**
     * The subscriber and organization a token is good for. A token of another kind, tampered,
     * expired, revoked or of a subscriber no longer there is InvalidToken; so is the token of a
     * subscriber who asked to be erased, unless `erasing` (asking again).
     */
    const open = (token: string, erasing = false) =>
      Effect.gen(function*() {
        const claims = yield* signer.verify("preference", token, yield* now)
        if (claims.organizationId === undefined || claims.version === undefined) {
          return yield* new InvalidToken({ reason: "the token lacks a required claim" })
        }
        // The service names organizations and subscribers by UUIDs; a token naming anything else was not issued here.
        if (!isUuid(claims.organizationId) || !isUuid(claims.subject)) {
          return yield* new InvalidToken({ reason: "the token's claims are not valid" })
        }
        const organizationId = OrganizationId.make(claims.organizationId)
        const subscriberId = SubscriberId.make(claims.subject)
        // One round trip: the token's checks and what it opens are read side by side.
        const [access, subscriber, organization] = yield* Effect.all([
          subscribers.preferenceAccess(organizationId, subscriberId),
          subscribers.findById(organizationId, subscriberId),
          organizations.findById(organizationId)
        ], { concurrency: 3 })
        if (Option.isNone(access) || access.value.tokenVersion !== claims.version) return yield* revoked()
        if (access.value.erasureRequestedAt !== null && !erasing) {
          return yield* new InvalidToken({ reason: "this subscriber asked to be erased; their data is being deleted" })
        }
        if (Option.isNone(subscriber) || Option.isNone(organization)) return yield* revoked()
        return { subscriber: subscriber.value, organization: organization.value }
      })

    /**
     * What the subscriber sees: the organization's public tags by name, each saying whether they
     * carry it, in one read. Bounded by the tags an organization may hold, so that the page of an
     * organization that held more before the limit still answers, with the first of them.
     */
    const viewOf = (organization: Organization, subscriber: Subscriber) =>
      Effect.map(
        assignments.offeredTo(organization.id, subscriber.id, MAX_TAGS_PER_ORGANIZATION),
        (offered): PreferenceView => ({ organization, subscriber, tags: offered })
      )

    const view = operation("Preferences.view")(function*(token: string) {
      const { organization, subscriber } = yield* open(token)
      return yield* viewOf(organization, subscriber)
    })

    /**
     * The organization's public tag `tagId`; a private one, or another organization's, is as unknown
     * as one that does not exist.
     */
    const tagOf = (organizationId: OrganizationId, tagId: TagId) =>
      Effect.flatMap(tags.findById(organizationId, tagId), (found) =>
        Option.isSome(found) && found.value.visibility === "public"
          ? Effect.succeed(found.value)
          : Effect.fail(new ResourceNotFound({ resource: "tag", id: tagId })))

    /**
     * Within a transaction: attaches `toAttach`, detaches `toDetach` and moves the status, recording
     * the events the API records for the same changes. Attaching makes the subscriber active
     * (their own action) unless `status` says otherwise. The view afterwards.
     */
    const applyChanges = (
      organization: Organization,
      opened: Subscriber,
      toAttach: ReadonlyArray<Tag>,
      toDetach: ReadonlyArray<Tag>,
      requested: PreferenceChanges["status"],
      field = "add"
    ) =>
      Effect.gen(function*() {
        const organizationId = organization.id
        const current = Option.getOrElse(yield* subscribers.findByIdForUpdate(organizationId, opened.id), () => opened)
        const at = yield* now
        const events: Array<DomainEvent> = []
        // Those dropped first make room for those taken.
        for (const tag of toDetach) {
          if (yield* assignments.detach(organizationId, current.id, tag.id)) {
            events.push(yield* event(organizationId, "tag.unsubscribed", at, tagSubscriptionData(current, tag)))
          }
        }
        const attached = new Set<string>(
          yield* attachWithinLimit(assignments, organizationId, current.id, toAttach.map((tag) => tag.id), at, field)
        )
        for (const tag of toAttach) {
          if (attached.has(tag.id)) events.push(yield* event(organizationId, "tag.subscribed", at, tagSubscriptionData(current, tag)))
        }
        const status = requested ?? (toAttach.length > 0 ? "active" : undefined)
        // The subscriber may make every move to active or unsubscribed.
        const { changed, subscriber } = yield* applySubscriberChanges(current, { status }, "subscriber", at).pipe(Effect.orDie)
        if (changed.length > 0) {
          yield* subscribers.update(subscriber)
          const carried = yield* Effect.map(assignments.tagsOf(organizationId, [subscriber.id]), (map) => map.get(subscriber.id) ?? [])
          events.push(yield* event(organizationId, "subscriber.updated", at, { subscriber: subscriberSnapshot(subscriber, carried), changed }))
        }
        yield* outbox.record(events)
        return yield* viewOf(organization, subscriber)
      })

    /**
     * Subscribes to a tag, and makes the subscriber active again whatever their status was: it is
     * their own action. Subscribing again changes nothing.
     */
    const subscribe = operation("Preferences.subscribe")(function*(token: string, tagId: TagId) {
      const { organization, subscriber } = yield* open(token)
      return yield* unitOfWork.transaction(
        Effect.flatMap(tagOf(organization.id, tagId), (tag) => applyChanges(organization, subscriber, [tag], [], undefined, "tag_id"))
      )
    })

    /** Unsubscribes from a tag; again, it changes nothing. */
    const unsubscribe = operation("Preferences.unsubscribe")(function*(token: string, tagId: TagId) {
      const { organization, subscriber } = yield* open(token)
      return yield* unitOfWork.transaction(
        Effect.flatMap(tagOf(organization.id, tagId), (tag) => applyChanges(organization, subscriber, [], [tag], undefined))
      ).pipe(
        // It attaches nothing, so no tag limit can be met.
        Effect.catchTag("TagLimitReached", Effect.die)
      )
    })

    /**
     * Subscribes to the tags named in `add`, unsubscribes from those in `remove` (a name no tag has
     * is passed over there) and moves the status, in one transaction, recording the same events as
     * the API. Adding a tag, like subscribing, makes the subscriber active unless `status` says
     * otherwise. A name in `add` that no tag has, or in both lists, is refused. Private tags are
     * not the subscriber's to change: their names count as names no tag has.
     */
    const change = operation("Preferences.change")(function*(token: string, changes: PreferenceChanges) {
      const { organization, subscriber: opened } = yield* open(token)
      const organizationId = organization.id
      const add = changes.add ?? []
      const remove = changes.remove ?? []
      const adding = new Set(add.map(tagNameKey))
      const both = remove.findIndex((name) => adding.has(tagNameKey(name)))
      if (both >= 0) {
        return yield* new InvalidInput({ field: `remove[${both}]`, reason: reason("tagInBothLists") })
      }
      if (beyondSubscriberLimit(adding.size)) return yield* tooManyTagsFor("add")
      return yield* unitOfWork.transaction(Effect.gen(function*() {
        const named = (yield* tags.findByNames(organizationId, [...add, ...remove])).filter((tag) => tag.visibility === "public")
        const byName = new Map(named.map((tag) => [tagNameKey(tag.name), tag] as const))
        const unknown = add.findIndex((name) => !byName.has(tagNameKey(name)))
        if (unknown >= 0) return yield* new InvalidInput({ field: `add[${unknown}]`, reason: reason("noTagNamedQuoted", { name: add[unknown]! }) })
        const toAttach = Array.dedupeWith(add.map((name) => byName.get(tagNameKey(name))!), (a, b) => a.id === b.id)
        const toDetach = remove.flatMap((name) => byName.get(tagNameKey(name)) ?? [])
        return yield* applyChanges(organization, opened, toAttach, toDetach, changes.status)
      }))
    })

    /** Everything stored about the organization's subscriber, as one document. */
    const exportOf = (organization: Organization, subscriber: Subscriber) =>
      Effect.gen(function*() {
        const about = { organizationId: organization.id, subscriberId: subscriber.id, limit: EXPORT_LIMIT }
        const [tagMap, events, noteList, emails, consents] = yield* Effect.all([
          assignments.tagsOf(organization.id, [subscriber.id]),
          outbox.recordedAbout(organization.id, subscriber.id),
          notes.list(about),
          messages.list(about),
          readConsents(organization.id, subscriber.id)
        ], { concurrency: 5 })
        const exported: PreferenceExport = {
          exportedAt: yield* now,
          organization,
          subscriber,
          tags: tagMap.get(subscriber.id) ?? [],
          events,
          notes: noteList,
          emails,
          consents
        }
        return exported
      })

    /** Everything stored about the token's subscriber, as one document. */
    const exportData = operation("Preferences.exportData")(function*(token: string) {
      const { organization, subscriber } = yield* open(token)
      return yield* exportOf(organization, subscriber)
    })

    /**
     * The same document for the organization's subscriber `id`, asked for by the organization (to
     * answer the subscriber who asks for their data some other way). Another organization's
     * subscriber is not found. Scope `subscribers:read`.
     */
    const exportFor = operation("Preferences.exportFor")(function*(principal: Principal, id: SubscriberId) {
      yield* authorize(principal, "subscribers:read")
      const organizationId = principal.organization.id
      const [subscriber, organization] = yield* Effect.all([
        subscribers.findById(organizationId, id),
        organizations.findById(organizationId)
      ], { concurrency: 2 })
      if (Option.isNone(subscriber) || Option.isNone(organization)) return yield* new ResourceNotFound({ resource: "subscriber", id })
      return yield* exportOf(organization.value, subscriber.value)
    })

    /**
     * Asks for the token's subscriber to be erased: their tokens stop working at once (for anything
     * but asking again, which changes nothing), and the worker erases them (see
     * `Subscribers.eraseRequested`) within a minute.
     */
    const requestErasure = operation("Preferences.requestErasure")(function*(token: string) {
      const { organization, subscriber } = yield* open(token, true)
      yield* subscribers.requestErasure(organization.id, subscriber.id, yield* now)
    })

    /** Stops all mail (`unsubscribed`) or starts it again (`active`), as the subscriber's own action. */
    const setStatus = operation("Preferences.setStatus")(function*(token: string, status: "active" | "unsubscribed") {
      const { organization, subscriber } = yield* open(token)
      return yield* unitOfWork.transaction(applyChanges(organization, subscriber, [], [], status)).pipe(
        // It attaches nothing, so no tag limit can be met.
        Effect.catchTag("TagLimitReached", Effect.die)
      )
    })

    return { issueLink, revokeLinks, view, subscribe, unsubscribe, change, setStatus, exportData, exportFor, requestErasure } as const
  })
}) {}
