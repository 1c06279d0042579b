import {
  type AudienceSelection,
  CampaignRepository,
  type CampaignSendout,
  OutgoingMail,
  SegmentRepository,
  TagAssignments,
  UnitOfWork
} from "@roster/application"
import {
  Campaign,
  CampaignId,
  Message,
  MessageId,
  type MessageKind,
  type MessageStatus,
  type OrganizationId,
  type Subscriber,
  type TagId
} from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { aTimeOrderedId, deletingAfterwards, givenOrganization, givenSubscriber, instant } from "./fixtures.js"

/** What the suites of campaigns, messages and the outgoing mail queue make alike. */

export interface MessageFields {
  readonly status?: MessageStatus
  readonly kind?: MessageKind
  readonly createdAt?: Date
  readonly to?: string
}

export const aMessage = (subscriber: Subscriber, fields: MessageFields = {}) => {
  const createdAt = fields.createdAt ?? instant(0)
  return new Message({
    id: MessageId.make(aTimeOrderedId(createdAt)),
    campaignId: null,
    organizationId: subscriber.organizationId,
    subscriberId: subscriber.id,
    templateId: null,
    kind: fields.kind ?? "transactional",
    to: fields.to ?? subscriber.email,
    from: "\"Acme\" <noreply@example.com>",
    subject: "Your receipt",
    html: "<p>Thanks</p>",
    text: "Thanks",
    headers: { "List-Unsubscribe": "<https://example.com/unsubscribe?token=t>" },
    status: fields.status ?? "queued",
    providerId: null,
    error: null,
    attemptCount: 0,
    createdAt,
    updatedAt: createdAt
  })
}

/** A single send queued (or recorded in `status`) with its first event. */
export const givenMessage = (subscriber: Subscriber, fields: MessageFields = {}) =>
  Effect.gen(function*() {
    const message = aMessage(subscriber, fields)
    yield* (yield* OutgoingMail).enqueue([message])
    return message
  })

/** An organization with one subscriber, deleted after the test with everything it holds. */
export const withSubscriber = <A, E, R>(
  test: (subscriber: Subscriber, organizationId: OrganizationId) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const organization = yield* givenOrganization()
    return yield* Effect.flatMap(givenSubscriber(organization.id), (subscriber) => test(subscriber, organization.id)).pipe(
      deletingAfterwards([organization.id])
    )
  })

export const aCampaign = (organizationId: OrganizationId, at: Date, fields: Partial<Campaign> = {}) =>
  new Campaign({
    id: CampaignId.make(randomUUID()),
    organizationId,
    name: "November issue",
    kind: "marketing",
    templateId: null,
    subject: "Hello {{ subscriber.first_name }}",
    html: "<p>Hi</p>",
    text: null,
    audience: { tagIds: [], excludeTagIds: [], segmentId: null },
    data: { issue: 11 },
    status: "draft",
    scheduledAt: null,
    startedAt: null,
    finishedAt: null,
    failureReason: null,
    sandboxed: false,
    createdAt: at,
    updatedAt: at,
    ...fields
  })

export const sendout: CampaignSendout = {
  content: { subject: "Hello", html: "<p>Hi</p>", text: null },
  from: "\"Acme\" <news@acme.example>",
  organizationName: "Acme"
}

/** A subscriber created at the start of the story, with `tagIds`. */
export const tagged = (
  organizationId: OrganizationId,
  tagIds: ReadonlyArray<TagId>,
  fields: Parameters<typeof givenSubscriber>[1] = {}
) =>
  Effect.gen(function*() {
    const subscriber = yield* givenSubscriber(organizationId, { createdAt: instant(1), ...fields })
    if (tagIds.length > 0) yield* (yield* TagAssignments).attach(organizationId, subscriber.id, tagIds, instant(1), null)
    return subscriber
  })

/** The next chunk of an open audience taken and queued in one transaction, as the campaign job does. */
export const queueNextChunk = (chunk: number, at: Date) =>
  Effect.gen(function*() {
    const campaigns = yield* CampaignRepository
    const outgoing = yield* OutgoingMail
    return yield* (yield* UnitOfWork).transaction(Effect.gen(function*() {
      const taken = yield* campaigns.takeAudience(chunk)
      if (Option.isNone(taken)) return Option.none<{ readonly added: number; readonly complete: boolean }>()
      const added = yield* outgoing.enqueueAudience(taken.value, at)
      return Option.some({ added, complete: taken.value.complete })
    }))
  })

/** Every open audience taken and queued, chunk by chunk; how many chunks. */
export const queueAll = (chunk: number, at: Date) =>
  Effect.gen(function*() {
    let chunks = 0
    while (Option.isSome(yield* queueNextChunk(chunk, at))) chunks += 1
    return chunks
  })

/** An audience as the use cases select it at `at`: its tags, or its segment's filter as it is now. */
export const selectionOf = (campaign: Campaign, at: Date) =>
  Effect.gen(function*() {
    const { excludeTagIds, segmentId, tagIds } = campaign.audience
    const filter = segmentId === null
      ? null
      : Option.getOrThrow(yield* (yield* SegmentRepository).findById(campaign.organizationId, segmentId)).filter
    return { tagIds, excludeTagIds, filter, at } satisfies AudienceSelection
  })

/** A draft campaign of `organizationId`, stored and sent now: its audience fixed at `at`. */
export const givenSendingCampaign = (organizationId: OrganizationId, at: Date, fields: Partial<Campaign> = {}) =>
  Effect.gen(function*() {
    const campaigns = yield* CampaignRepository
    const campaign = aCampaign(organizationId, at, fields)
    yield* campaigns.insert(campaign)
    const audience = yield* selectionOf(campaign, at)
    return Option.getOrThrow(yield* campaigns.transition(campaign.id, "send", { at, sendout, audience }))
  })
