import { type AudienceSelection, type CampaignFilter, CampaignRepository } from "@roster/application"
import {
  audienceStatuses,
  Campaign,
  type CampaignId,
  campaignEnded,
  type MessageKind,
  nextCampaignStatus,
  type OrganizationId,
  type SubscriberId
} from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { segmentMembership } from "./memory-segment-audience.js"
import { MemoryStore, type Tables } from "./memory-store.js"
import { pickDue } from "./memory-work-queue.js"
import { compareBy, compareText } from "./ordering.js"

const newestFirst = compareBy((c: Campaign) => c.createdAt.toISOString(), "desc")

const matching = (t: Tables, { organizationId, status }: CampaignFilter) =>
  [...t.campaigns.values()].map((s) => s.campaign).filter((c) =>
    c.organizationId === organizationId && (status === undefined || c.status === status)
  )

/** The audience's subscribers, in id order: the condition the PostgreSQL adapter counts and takes them with. */
const audienceOf = (t: Tables, organizationId: OrganizationId, audience: AudienceSelection, kind: MessageKind) => {
  const statuses = audienceStatuses(kind)
  const inSegment = audience.filter === null ? () => true : segmentMembership(t, organizationId, audience.filter, audience.at)
  return [...t.subscribers.values()].filter((s) => {
    if (s.organizationId !== organizationId || !statuses.includes(s.status) || t.erasureRequests.has(s.id)) return false
    if (!inSegment(s)) return false
    const tags = t.assignments.get(s.id)
    if (audience.tagIds.length > 0 && !audience.tagIds.some((id) => tags?.has(id))) return false
    return !audience.excludeTagIds.some((id) => tags?.has(id))
  }).sort((a, b) => compareText(a.id, b.id))
}

const campaignMessages = (t: Tables, id: CampaignId) => [...t.messages.values()].filter((s) => s.message.campaignId === id)

const isSending = (t: Tables, id: string | null) => id !== null && t.campaigns.get(id)?.campaign.status === "sending"

/** Campaigns in memory, moved as the transition table says and as PostgreSQL moves them. */
export const MemoryCampaignRepositoryLive = Layer.effect(
  CampaignRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore

    const isDone = (t: Tables, id: CampaignId) =>
      t.campaigns.get(id)?.campaign.status === "sending" &&
      t.campaignAudiences.get(id)?.complete === true &&
      !campaignMessages(t, id).some((s) => s.message.status === "queued")

    return CampaignRepository.of({
      insert: (campaign) =>
        store.write((t) => {
          t.campaigns.set(campaign.id, { campaign, sendout: null })
        }),

      findById: (organizationId, id) =>
        store.read((t) => {
          const stored = t.campaigns.get(id)
          return stored?.campaign.organizationId === organizationId ? Option.some(stored.campaign) : Option.none()
        }),

      list: ({ after, limit, offset = 0, ...filter }) =>
        store.read((t) =>
          matching(t, filter)
            .filter((c) =>
              after === undefined || newestFirst(c, { id: after.id, createdAt: new Date(after.value) } as Campaign) > 0
            )
            .sort(newestFirst)
            .slice(offset, offset + limit)
        ),

      count: (filter) => store.read((t) => matching(t, filter).length),

      save: (campaign, from) =>
        store.write((t) => {
          const stored = t.campaigns.get(campaign.id)
          if (stored === undefined || stored.campaign.organizationId !== campaign.organizationId) return false
          if (stored.campaign.status !== from) return false
          t.campaigns.set(campaign.id, { ...stored, campaign })
          return true
        }),

      transition: (id, action, changes) =>
        store.write((t) => {
          const stored = t.campaigns.get(id)
          if (stored === undefined) return Option.none()
          const to = nextCampaignStatus(stored.campaign.status, action)
          if (Option.isNone(to)) return Option.none()
          const { at, sendout, whenDone } = changes
          if (whenDone !== undefined) {
            const failed = campaignMessages(t, id).filter((s) => s.message.status === "failed").length
            if (!isDone(t, id) || failed !== whenDone.failed) return Option.none()
          }
          const campaign = new Campaign({
            ...stored.campaign,
            status: to.value,
            updatedAt: at,
            finishedAt: campaignEnded(to.value) ? at : null,
            failureReason: changes.failureReason ?? null,
            ...(changes.scheduledAt === undefined ? {} : { scheduledAt: changes.scheduledAt }),
            ...(changes.sandboxed === undefined ? {} : { sandboxed: changes.sandboxed }),
            ...(sendout === undefined ? {} : { startedAt: stored.campaign.startedAt ?? at })
          })
          t.campaigns.set(id, { campaign, sendout: sendout ?? stored.sendout })
          const progress = t.campaignAudiences.get(id)
          if (changes.sendout !== undefined && progress === undefined) {
            const { kind, organizationId } = campaign
            const members = audienceOf(t, organizationId, changes.audience, kind).map((s) => s.id as string)
            t.campaignAudiences.set(id, { fixedAt: at, members, cursor: null, complete: false })
          }
          // A cancelled campaign's audience is taken no further: what was left of it goes.
          if (action === "cancel" && progress !== undefined) t.campaignAudiences.set(id, { ...progress, members: [] })
          return Option.some(campaign)
        }),

      countAudience: (organizationId, audience, kind) =>
        store.read((t) => audienceOf(t, organizationId, audience, kind).length),

      usingSegment: (organizationId, segmentId) =>
        store.read((t) =>
          [...t.campaigns.values()].map((s) => s.campaign)
            .filter((c) =>
              c.organizationId === organizationId && c.audience.segmentId === segmentId &&
              (c.status === "draft" || c.status === "scheduled" || (c.status === "failed" && c.startedAt === null))
            )
            .sort(compareBy((c: Campaign) => c.createdAt.toISOString(), "asc"))
            .map((c) => c.id)
        ),

      dueScheduled: (now, limit) =>
        store.read((t) =>
          [...t.campaigns.values()].map((s) => s.campaign)
            .filter((c) => c.status === "scheduled" && c.scheduledAt !== null && c.scheduledAt <= now)
            .sort((a, b) => a.scheduledAt!.getTime() - b.scheduledAt!.getTime())
            .slice(0, limit)
        ),

      takeAudience: (limit) =>
        store.write((t) => {
          const [open] = pickDue(t.campaignAudiences, {
            claimable: ([id, progress]) => !progress.complete && isSending(t, id),
            order: ([, a], [, b]) => a.fixedAt.getTime() - b.fixedAt.getTime(),
            limit: 1
          })
          if (open === undefined) return Option.none()
          const [id, progress] = open
          const { campaign, sendout } = t.campaigns.get(id)!
          const taken = progress.members
            .filter((id) => progress.cursor === null || compareText(id, progress.cursor) > 0)
            .slice(0, limit)
          const complete = taken.length < limit
          t.campaignAudiences.set(id, {
            ...progress,
            members: complete ? [] : progress.members,
            cursor: taken.at(-1) ?? progress.cursor,
            complete
          })
          return Option.some({ campaign, from: sendout!.from, subscriberIds: taken as Array<SubscriberId>, complete })
        }),

      doneSending: (limit, only) =>
        store.read((t) =>
          [...t.campaigns.keys()]
            .filter((id) => (only === undefined || id === only) && isDone(t, id as CampaignId))
            .slice(0, limit) as Array<CampaignId>
        )
    })
  })
)
