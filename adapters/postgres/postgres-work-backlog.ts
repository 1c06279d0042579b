import * as SqlClient from "@effect/sql/SqlClient"
import { type Backlog, WorkBacklog } from "@roster/application"
import { Effect, Layer, Schema } from "effect"
import { decodeRow, type Row } from "./rows.js"

const Figures = Schema.Struct({
  waiting: Schema.Number,
  due: Schema.Number,
  oldestDueAt: Schema.NullOr(Schema.DateFromSelf)
})

type Kind =
  | "events"
  | "webhook_deliveries"
  | "emails"
  | "campaign_emails"
  | "scheduled_campaigns"
  | "trigger_firings"
  | "sequence_steps"
  | "imports"

/** The figures of one kind of work, from its `<kind>_waiting`, `<kind>_due` and `<kind>_oldest_due_at` columns. */
const backlogOf = (row: Row, kind: Kind): Effect.Effect<Backlog> => decodeRow(Figures, `${kind}_`)(row)

/**
 * The backlog in one statement, read-only and without locks. Each count walks the partial index
 * the workers' claims use (pending deliveries, queued messages, scheduled campaigns, pending
 * firings, undispatched events, unfinished imports), so it reads what waits and nothing of the history.
 */
export const PostgresWorkBacklogLive = Layer.effect(
  WorkBacklog,
  Effect.map(SqlClient.SqlClient, (sql) =>
    WorkBacklog.of({
      snapshot: (at) =>
        sql<Row>`
          WITH events AS (
            SELECT count(*)::integer AS waiting,
                   (count(*) FILTER (WHERE occurred_at <= ${at}))::integer AS due,
                   min(occurred_at) FILTER (WHERE occurred_at <= ${at}) AS oldest_due_at
            FROM outbox_dispatch_mark m JOIN outbox_events e ON (e.xid, e.position) > (m.xid, m.position)
          ), webhook_deliveries AS (
            SELECT count(*)::integer AS waiting,
                   (count(*) FILTER (WHERE next_attempt_at <= ${at}))::integer AS due,
                   min(next_attempt_at) FILTER (WHERE next_attempt_at <= ${at}) AS oldest_due_at
            FROM webhook_deliveries WHERE status = 'pending'
          ), emails AS (
            SELECT count(*)::integer AS waiting,
                   (count(*) FILTER (WHERE next_attempt_at <= ${at}))::integer AS due,
                   min(next_attempt_at) FILTER (WHERE next_attempt_at <= ${at}) AS oldest_due_at
            FROM messages WHERE status = 'queued' AND campaign_id IS NULL
          ), campaign_emails AS (
            SELECT count(*)::integer AS waiting,
                   (count(*) FILTER (WHERE due_at <= ${at}))::integer AS due,
                   min(due_at) FILTER (WHERE due_at <= ${at}) AS oldest_due_at
            FROM (
              -- An email in no batch yet is due from its making.
              SELECT CASE WHEN lease_token IS NULL THEN COALESCE(next_attempt_at, created_at) ELSE next_attempt_at END AS due_at
              FROM messages WHERE status = 'queued' AND campaign_id IS NOT NULL
            ) queued
          ), scheduled_campaigns AS (
            SELECT count(*)::integer AS waiting,
                   (count(*) FILTER (WHERE scheduled_at <= ${at}))::integer AS due,
                   min(scheduled_at) FILTER (WHERE scheduled_at <= ${at}) AS oldest_due_at
            FROM campaigns WHERE status = 'scheduled'
          ), trigger_firings AS (
            SELECT count(*)::integer AS waiting,
                   (count(*) FILTER (WHERE due_at <= ${at}))::integer AS due,
                   min(due_at) FILTER (WHERE due_at <= ${at}) AS oldest_due_at
            FROM trigger_firings WHERE status = 'pending'
          ), sequence_steps AS (
            SELECT count(*)::integer AS waiting,
                   (count(*) FILTER (WHERE e.next_run_at <= ${at}))::integer AS due,
                   min(e.next_run_at) FILTER (WHERE e.next_run_at <= ${at}) AS oldest_due_at
            FROM sequence_enrollments e JOIN sequences s ON s.id = e.sequence_id AND s.status = 'active'
            WHERE e.state = 'active'
          ), imports AS (
            SELECT count(*)::integer AS waiting,
                   (count(*) FILTER (WHERE due_at <= ${at}))::integer AS due,
                   min(due_at) FILTER (WHERE due_at <= ${at}) AS oldest_due_at
            FROM (
              -- A queued import is due from its last change (queued, or its last batch), a running one when its lease runs out.
              SELECT CASE WHEN status = 'queued' THEN updated_at ELSE lease_until END AS due_at
              FROM import_jobs WHERE status IN ('queued', 'running')
            ) unfinished
          )
          SELECT
            events.waiting AS events_waiting, events.due AS events_due, events.oldest_due_at AS events_oldest_due_at,
            webhook_deliveries.waiting AS webhook_deliveries_waiting, webhook_deliveries.due AS webhook_deliveries_due,
            webhook_deliveries.oldest_due_at AS webhook_deliveries_oldest_due_at,
            emails.waiting AS emails_waiting, emails.due AS emails_due, emails.oldest_due_at AS emails_oldest_due_at,
            campaign_emails.waiting AS campaign_emails_waiting, campaign_emails.due AS campaign_emails_due,
            campaign_emails.oldest_due_at AS campaign_emails_oldest_due_at,
            scheduled_campaigns.waiting AS scheduled_campaigns_waiting, scheduled_campaigns.due AS scheduled_campaigns_due,
            scheduled_campaigns.oldest_due_at AS scheduled_campaigns_oldest_due_at,
            trigger_firings.waiting AS trigger_firings_waiting, trigger_firings.due AS trigger_firings_due,
            trigger_firings.oldest_due_at AS trigger_firings_oldest_due_at,
            sequence_steps.waiting AS sequence_steps_waiting, sequence_steps.due AS sequence_steps_due,
            sequence_steps.oldest_due_at AS sequence_steps_oldest_due_at,
            imports.waiting AS imports_waiting, imports.due AS imports_due, imports.oldest_due_at AS imports_oldest_due_at,
            (SELECT count(*)::integer FROM campaigns WHERE status = 'sending') AS sending_campaigns
          FROM events, webhook_deliveries, emails, campaign_emails, scheduled_campaigns, trigger_firings, sequence_steps, imports
        `.pipe(
          Effect.orDie,
          Effect.flatMap(([row]) =>
            Effect.all({
              events: backlogOf(row!, "events"),
              webhookDeliveries: backlogOf(row!, "webhook_deliveries"),
              emails: backlogOf(row!, "emails"),
              campaignEmails: backlogOf(row!, "campaign_emails"),
              scheduledCampaigns: backlogOf(row!, "scheduled_campaigns"),
              triggerFirings: backlogOf(row!, "trigger_firings"),
              sequenceSteps: backlogOf(row!, "sequence_steps"),
              imports: backlogOf(row!, "imports"),
              sendingCampaigns: Effect.succeed(Number(row!.sending_campaigns))
            })
          )
        )
    }))
)
