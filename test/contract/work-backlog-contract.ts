import { expect, layer } from "@effect/vitest"
import {
  CampaignRepository,
  ImportJobRepository,
  Outbox,
  OutgoingMail,
  SequenceRepository,
  type WorkBacklogSnapshot,
  WorkBacklog
} from "@roster/application"
import { Campaign, CampaignId, DomainEvent, EventId, Message, MessageId, type OrganizationId, type Subscriber } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import {
  anEraOfItsOwn,
  aTimeOrderedId,
  deletingAfterwards,
  givenDelivery,
  givenEndpoint,
  givenImportJob,
  givenOrganization,
  givenSubscriber,
  type PersistenceLayer
} from "./fixtures.js"
import { aSequence, enrollOne } from "./sequence-repository-contract.js"

const aQueuedEmail = (subscriber: Subscriber, createdAt: Date) =>
  new Message({
    id: MessageId.make(aTimeOrderedId(createdAt)),
    campaignId: null,
    organizationId: subscriber.organizationId,
    subscriberId: subscriber.id,
    templateId: null,
    kind: "transactional",
    to: subscriber.email,
    from: "\"Acme\" <noreply@example.com>",
    subject: "Your receipt",
    html: "<p>Thanks</p>",
    text: "Thanks",
    headers: {},
    status: "queued",
    providerId: null,
    error: null,
    attemptCount: 0,
    createdAt,
    updatedAt: createdAt
  })

const aCampaign = (organizationId: OrganizationId, fields: Pick<Campaign, "status" | "scheduledAt" | "createdAt">) =>
  new Campaign({
    id: CampaignId.make(randomUUID()),
    organizationId,
    name: "November issue",
    kind: "marketing",
    templateId: null,
    subject: "Hello",
    html: "<p>Hi</p>",
    text: null,
    audience: { tagIds: [], excludeTagIds: [], segmentId: null },
    data: {},
    startedAt: fields.status === "sending" ? fields.createdAt : null,
    finishedAt: null,
    failureReason: null,
    sandboxed: false,
    updatedAt: fields.createdAt,
    ...fields
  })

/** How the figures of each kind moved between two snapshots; the oldest due times as they are after. */
const moved = (before: WorkBacklogSnapshot, after: WorkBacklogSnapshot) => {
  const kinds = [
    "events",
    "webhookDeliveries",
    "emails",
    "campaignEmails",
    "scheduledCampaigns",
    "triggerFirings",
    "sequenceSteps",
    "imports"
  ] as const
  return {
    ...Object.fromEntries(kinds.map((kind) => [kind, {
      waiting: after[kind].waiting - before[kind].waiting,
      due: after[kind].due - before[kind].due,
      oldestDueAt: after[kind].oldestDueAt
    }])),
    sendingCampaigns: after.sendingCampaigns - before.sendingCampaigns
  }
}

export const workBacklogContract = (persistence: PersistenceLayer) =>
  layer(persistence)("WorkBacklog", (it) => {
    it.effect("counts the work that waits, what of it is due, and when the longest-waiting due item came due", () =>
      Effect.gen(function*() {
        const backlog = yield* WorkBacklog
        // Nothing other tests leave behind is due this early, so the oldest due items are this test's.
        const era = anEraOfItsOwn()
        const at = era(3_600)
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const before = yield* backlog.snapshot(at)

          const event = (seconds: number) =>
            new DomainEvent({ id: EventId.make(randomUUID()), organizationId: organization.id, type: "subscriber.created", occurredAt: era(seconds), data: {} })
          yield* (yield* Outbox).record([event(20), event(10), event(7_200)])

          const endpoint = yield* givenEndpoint(organization.id)
          yield* givenDelivery(endpoint, { createdAt: era(15) })
          yield* givenDelivery(endpoint, { createdAt: era(5), nextAttemptAt: era(600) })
          yield* givenDelivery(endpoint, { createdAt: era(1), nextAttemptAt: era(7_200) })
          yield* givenDelivery(endpoint, { createdAt: era(0), status: "succeeded" })

          const subscriber = yield* givenSubscriber(organization.id)
          const outgoing = yield* OutgoingMail
          for (const seconds of [30, 40, 9_000]) {
            const email = aQueuedEmail(subscriber, era(seconds))
            yield* outgoing.enqueue([email])
          }

          const campaigns = yield* CampaignRepository
          yield* campaigns.insert(aCampaign(organization.id, { status: "scheduled", scheduledAt: era(50), createdAt: era(0) }))
          yield* campaigns.insert(aCampaign(organization.id, { status: "scheduled", scheduledAt: era(8_000), createdAt: era(0) }))
          yield* campaigns.insert(aCampaign(organization.id, { status: "sending", scheduledAt: null, createdAt: era(0) }))
          yield* campaigns.insert(aCampaign(organization.id, { status: "draft", scheduledAt: null, createdAt: era(0) }))

          // Queued imports are due from when they were queued; a running one once its worker's lease runs out.
          const imports = yield* ImportJobRepository
          const running = yield* givenImportJob(organization.id, { createdAt: era(0), updatedAt: era(0) })
          const claimed = yield* imports.claim(era(1), era(9_500), randomUUID())
          expect(Option.map(claimed, (job) => job.id)).toStrictEqual(Option.some(running.id))
          yield* givenImportJob(organization.id, { createdAt: era(60), updatedAt: era(70) })
          yield* givenImportJob(organization.id, { createdAt: era(80), updatedAt: era(8_500) })
          yield* givenImportJob(organization.id, { createdAt: era(0), updatedAt: era(0), status: "receiving" })
          yield* givenImportJob(organization.id, { createdAt: era(0), updatedAt: era(0), status: "completed" })

          // Enrollments of an active sequence wait for their next step; a paused sequence's wait without a time.
          const sequences = yield* SequenceRepository
          const series = aSequence(organization.id)
          const paused = aSequence(organization.id)
          yield* sequences.insert(series)
          yield* sequences.insert(paused)
          yield* enrollOne(series, (yield* givenSubscriber(organization.id)).id, era(90))
          yield* enrollOne(series, (yield* givenSubscriber(organization.id)).id, era(9_200))
          yield* enrollOne(paused, (yield* givenSubscriber(organization.id)).id, era(85))
          yield* sequences.update({ ...paused, status: "paused" })

          const after = yield* backlog.snapshot(at)
          expect(moved(before, after)).toStrictEqual({
            // Three recorded here and one with each delivery, those at their times (today, so not yet due at `at`).
            events: { waiting: 7, due: 2, oldestDueAt: era(10) },
            webhookDeliveries: { waiting: 3, due: 2, oldestDueAt: era(15) },
            emails: { waiting: 3, due: 2, oldestDueAt: era(30) },
            campaignEmails: { waiting: 0, due: 0, oldestDueAt: before.campaignEmails.oldestDueAt },
            scheduledCampaigns: { waiting: 2, due: 1, oldestDueAt: era(50) },
            triggerFirings: { waiting: 0, due: 0, oldestDueAt: before.triggerFirings.oldestDueAt },
            sequenceSteps: { waiting: 2, due: 1, oldestDueAt: era(90) },
            imports: { waiting: 3, due: 1, oldestDueAt: era(70) },
            sendingCampaigns: 1
          })
          // Later, the rest of it is due too.
          const later = yield* backlog.snapshot(era(10_000))
          expect(moved(after, later)).toMatchObject({
            events: { waiting: 0, due: 1, oldestDueAt: era(10) },
            webhookDeliveries: { waiting: 0, due: 1, oldestDueAt: era(15) },
            emails: { waiting: 0, due: 1, oldestDueAt: era(30) },
            scheduledCampaigns: { waiting: 0, due: 1, oldestDueAt: era(50) },
            sequenceSteps: { waiting: 0, due: 1, oldestDueAt: era(90) },
            imports: { waiting: 0, due: 2, oldestDueAt: era(70) }
          })
        }).pipe(deletingAfterwards([organization.id]))
        // Deleted with its organization, its work no longer waits.
        const gone = yield* backlog.snapshot(at)
        expect(gone.webhookDeliveries.oldestDueAt?.getTime() ?? 0).not.toBe(era(15).getTime())
        expect(gone.emails.oldestDueAt?.getTime() ?? 0).not.toBe(era(30).getTime())
        expect(gone.imports.oldestDueAt?.getTime() ?? 0).not.toBe(era(70).getTime())
        expect(gone.sequenceSteps.oldestDueAt?.getTime() ?? 0).not.toBe(era(90).getTime())
      }))
  })
