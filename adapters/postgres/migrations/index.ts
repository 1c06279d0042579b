import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import initialSchema from "./0001_initial_schema.js"
import dashboardAccess from "./0002_dashboard_access.js"
import administration from "./0003_administration.js"
import tagPresentation from "./0004_tag_presentation.js"
import outgoingWebhooks from "./0005_outgoing_webhooks.js"
import preferenceTokens from "./0006_preference_tokens.js"
import subscriberErasure from "./0007_subscriber_erasure.js"
import email from "./0008_email.js"
import campaigns from "./0009_campaigns.js"
import emailTriggers from "./0010_email_triggers.js"
import campaignLeaseOrder from "./0011_campaign_lease_order.js"
import customRateLimits from "./0012_custom_rate_limits.js"
import subscriberSlots from "./0013_subscriber_slots.js"
import sendingDomains from "./0014_sending_domains.js"
import billing from "./0015_billing.js"
import audienceOrder from "./0016_audience_order.js"
import audienceSnapshot from "./0017_audience_snapshot.js"
import importJobs from "./0018_import_jobs.js"
import importLeaseToken from "./0019_import_lease_token.js"
import importProblemRetention from "./0020_import_problem_retention.js"
import unlimitedSubscriberSlots from "./0021_unlimited_subscriber_slots.js"
import providerReportsByAddress from "./0022_provider_reports_by_address.js"
import tagVisibility from "./0023_tag_visibility.js"
import tagAssignmentsWithTheirTime from "./0024_tag_assignments_with_their_time.js"
import outboxDispatchMark from "./0025_outbox_dispatch_mark.js"
import importDrafts from "./0026_import_drafts.js"
import eventsBySubscriber from "./0027_events_by_subscriber.js"
import forms from "./0028_forms.js"
import signUps from "./0029_sign_ups.js"
import segments from "./0030_segments.js"
import signUpsThroughTheApi from "./0031_sign_ups_through_the_api.js"
import segmentAudiences from "./0032_segment_audiences.js"
import consentsByForm from "./0033_consents_by_form.js"
import sequences from "./0034_sequences.js"
import webhookResponseExcerpts from "./0035_webhook_response_excerpts.js"
import organizationTimeZone from "./0036_organization_time_zone.js"
import campaignFirstEvents from "./0037_campaign_first_events.js"
import webhookTestDeliveries from "./0038_webhook_test_deliveries.js"
import campaignQueueIndex from "./0039_campaign_queue_index.js"
import messageCreation from "./0040_message_creation.js"

const migrations = Migrator.fromRecord({
  "0001_initial_schema": initialSchema,
  "0002_dashboard_access": dashboardAccess,
  "0003_administration": administration,
  "0004_tag_presentation": tagPresentation,
  "0005_outgoing_webhooks": outgoingWebhooks,
  "0006_preference_tokens": preferenceTokens,
  "0007_subscriber_erasure": subscriberErasure,
  "0008_email": email,
  "0009_campaigns": campaigns,
  "0010_email_triggers": emailTriggers,
  "0011_campaign_lease_order": campaignLeaseOrder,
  "0012_custom_rate_limits": customRateLimits,
  "0013_subscriber_slots": subscriberSlots,
  "0014_sending_domains": sendingDomains,
  "0015_billing": billing,
  "0016_audience_order": audienceOrder,
  "0017_audience_snapshot": audienceSnapshot,
  "0018_import_jobs": importJobs,
  "0019_import_lease_token": importLeaseToken,
  "0020_import_problem_retention": importProblemRetention,
  "0021_unlimited_subscriber_slots": unlimitedSubscriberSlots,
  "0022_provider_reports_by_address": providerReportsByAddress,
  "0023_tag_visibility": tagVisibility,
  "0024_tag_assignments_with_their_time": tagAssignmentsWithTheirTime,
  "0025_outbox_dispatch_mark": outboxDispatchMark,
  "0026_import_drafts": importDrafts,
  "0027_events_by_subscriber": eventsBySubscriber,
  "0028_forms": forms,
  "0029_sign_ups": signUps,
  "0030_segments": segments,
  "0031_sign_ups_through_the_api": signUpsThroughTheApi,
  "0032_segment_audiences": segmentAudiences,
  "0033_consents_by_form": consentsByForm,
  "0034_sequences": sequences,
  "0035_webhook_response_excerpts": webhookResponseExcerpts,
  "0036_organization_time_zone": organizationTimeZone,
  "0037_campaign_first_events": campaignFirstEvents,
  "0038_webhook_test_deliveries": webhookTestDeliveries,
  "0039_campaign_queue_index": campaignQueueIndex,
  "0040_message_creation": messageCreation
})

const MIGRATIONS_TABLE = "effect_sql_migrations"

/**
 * The migrator's own table, created under an advisory lock: processes that start together against
 * one server (api and worker) would otherwise race to create it. Its definition is the migrator's.
 */
const ensureMigrationsTable = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.withTransaction(
    Effect.zipRight(
      sql`SELECT pg_advisory_xact_lock(hashtext('roster.migrations'))`,
      sql`CREATE TABLE IF NOT EXISTS ${sql(MIGRATIONS_TABLE)} (
        migration_id integer PRIMARY KEY,
        created_at timestamp with time zone NOT NULL DEFAULT now(),
        name text NOT NULL
      )`
    )
  ))

const migrate = Migrator.make({})({ loader: migrations, table: MIGRATIONS_TABLE })

const failed = (cause: SqlError) =>
  new Migrator.MigrationError({ reason: "failed", message: "Could not migrate the database", cause })

/**
 * Applies the migrations not yet applied, each once, in order; answers those it applied. Safe to
 * run from several processes at once: one applies, the others wait and apply nothing.
 */
export const runMigrations: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError,
  SqlClient.SqlClient
> = ensureMigrationsTable.pipe(
  Effect.zipRight(migrate),
  Effect.catchIf((error): error is SqlError => error instanceof SqlError, (error) => Effect.fail(failed(error)))
)
