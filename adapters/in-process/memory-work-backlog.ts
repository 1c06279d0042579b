import { type Backlog, WorkBacklog } from "@roster/application"
import { Effect, Layer } from "effect"
import { MemoryStore } from "./memory-store.js"

/** Counts what waits, and the earliest due time among those whose time has come. */
const backlogOf = <A>(rows: Iterable<A>, dueAt: (row: A) => Date | null, at: Date): Backlog => {
  let waiting = 0
  let due = 0
  let oldestDueAt: Date | null = null
  for (const row of rows) {
    waiting++
    const when = dueAt(row)
    if (when === null || when.getTime() > at.getTime()) continue
    due++
    if (oldestDueAt === null || when.getTime() < oldestDueAt.getTime()) oldestDueAt = when
  }
  return { waiting, due, oldestDueAt }
}

export const MemoryWorkBacklogLive = Layer.effect(
  WorkBacklog,
  Effect.map(MemoryStore, (store) =>
    WorkBacklog.of({
      snapshot: (at) =>
        store.read((t) => {
          const queued = [...t.messages.values()].filter((m) => m.message.status === "queued")
          const campaigns = [...t.campaigns.values()].map((c) => c.campaign)
          return {
            events: backlogOf(t.events.filter((e) => !t.dispatchedEvents.has(e.id)), (e) => e.occurredAt, at),
            webhookDeliveries: backlogOf(
              [...t.webhookDeliveries.values()].filter((d) => d.delivery.status === "pending"),
              (d) => d.delivery.nextAttemptAt,
              at
            ),
            emails: backlogOf(queued.filter((m) => m.message.campaignId === null), (m) => m.nextAttemptAt, at),
            // A campaign's email in no batch yet is due from its making.
            campaignEmails: backlogOf(
              queued.filter((m) => m.message.campaignId !== null),
              (m) => m.leaseToken === null ? m.nextAttemptAt ?? m.message.createdAt : m.nextAttemptAt,
              at
            ),
            scheduledCampaigns: backlogOf(campaigns.filter((c) => c.status === "scheduled"), (c) => c.scheduledAt, at),
            sendingCampaigns: campaigns.filter((c) => c.status === "sending").length,
            triggerFirings: backlogOf([...t.triggerFirings.values()].filter((f) => f.status === "pending"), (f) => f.dueAt, at),
            sequenceSteps: backlogOf(
              [...t.enrollments.values()].filter((e) => e.state === "active" && t.sequences.get(e.sequenceId)?.status === "active"),
              (e) => e.nextRunAt,
              at
            ),
            // A running import is due again when its worker's lease runs out.
            imports: backlogOf(
              [...t.importJobs.values()].filter(({ job }) => job.status === "queued" || job.status === "running"),
              ({ job, leaseUntil }) => job.status === "queued" ? job.updatedAt : leaseUntil,
              at
            )
          }
        })
    }))
)
