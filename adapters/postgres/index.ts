import { Layer } from "effect"
import { PostgresApiKeyRepositoryLive } from "./postgres-api-key-repository.js"
import { PostgresCampaignRepositoryLive } from "./postgres-campaign-repository.js"
import { PostgresTriggerRepositoryLive } from "./postgres-trigger-repository.js"
import { PostgresSequenceRepositoryLive } from "./postgres-sequence-repository.js"
import { PostgresWorkBacklogLive } from "./postgres-work-backlog.js"
import { PostgresDatabaseHealthLive } from "./postgres-database-health.js"
import { PostgresEmailSettingsRepositoryLive } from "./postgres-email-settings-repository.js"
import { PostgresEmailUsageLive } from "./postgres-email-usage.js"
import { PostgresMagicLinkRepositoryLive } from "./postgres-magic-link-repository.js"
import { PostgresMembershipRepositoryLive } from "./postgres-membership-repository.js"
import { PostgresMessageRepositoryLive } from "./postgres-message-repository.js"
import { PostgresNoteRepositoryLive } from "./postgres-note-repository.js"
import { PostgresOrganizationRepositoryLive } from "./postgres-organization-repository.js"
import { PostgresOutboxLive } from "./postgres-outbox.js"
import { PostgresOutgoingMailLive } from "./postgres-outgoing-mail.js"
import { PostgresSessionRepositoryLive } from "./postgres-session-repository.js"
import { PostgresSubscriberIntakeLive } from "./postgres-subscriber-intake.js"
import { PostgresSubscriberRepositoryLive } from "./postgres-subscriber-repository.js"
import { PostgresTagAssignmentsLive } from "./postgres-tag-assignments.js"
import { PostgresTagRepositoryLive } from "./postgres-tag-repository.js"
import { PostgresTemplateRepositoryLive } from "./postgres-template-repository.js"
import { PostgresFormRepositoryLive } from "./postgres-form-repository.js"
import { PostgresConsentRepositoryLive, PostgresSignUpRepositoryLive } from "./postgres-sign-up-repository.js"
import { PostgresSegmentAudienceLive } from "./postgres-segment-audience.js"
import { PostgresSegmentRepositoryLive } from "./postgres-segment-repository.js"
import { PostgresUnitOfWorkLive } from "./postgres-unit-of-work.js"
import { PostgresUserRepositoryLive } from "./postgres-user-repository.js"
import { PostgresWebhookDeliveryRepositoryLive } from "./postgres-webhook-delivery-repository.js"
import { PostgresWebhookEndpointRepositoryLive } from "./postgres-webhook-endpoint-repository.js"
import { PostgresSendingDomainRepositoryLive } from "./postgres-sending-domain-repository.js"
import { PostgresBillingAccountRepositoryLive } from "./postgres-billing-account-repository.js"
import { PostgresSubscriberImportStoreLive } from "./postgres-subscriber-import-store.js"
import { PostgresImportJobRepositoryLive } from "./postgres-import-job-repository.js"

export { EmbeddedDatabaseInUse } from "./embedded-database-lock.js"
export { runMigrations } from "./migrations/index.js"
export { makePgClient } from "./pg-client.js"
export { defaultPgliteTemplate, makePgliteClient, type PgliteOptions } from "./pglite-client.js"
export { PostgresWorkSignalLive } from "./postgres-work-signal.js"

/**
 * Every persistence port over one SqlClient: a PostgreSQL server (`makePgClient`) or the embedded
 * database (`makePgliteClient`), migrated with `runMigrations`.
 */
export const PostgresPersistenceLive = Layer.mergeAll(
  PostgresSubscriberRepositoryLive,
  PostgresTagRepositoryLive,
  PostgresTagAssignmentsLive,
  PostgresOrganizationRepositoryLive,
  PostgresApiKeyRepositoryLive,
  PostgresUserRepositoryLive,
  PostgresMembershipRepositoryLive,
  PostgresMagicLinkRepositoryLive,
  PostgresSessionRepositoryLive,
  PostgresOutboxLive,
  PostgresWebhookEndpointRepositoryLive,
  PostgresWebhookDeliveryRepositoryLive,
  PostgresMessageRepositoryLive,
  PostgresOutgoingMailLive,
  PostgresEmailUsageLive,
  PostgresEmailSettingsRepositoryLive,
  PostgresTemplateRepositoryLive,
  PostgresFormRepositoryLive,
  PostgresSignUpRepositoryLive,
  PostgresConsentRepositoryLive,
  PostgresSegmentRepositoryLive,
  PostgresSegmentAudienceLive,
  PostgresNoteRepositoryLive,
  PostgresCampaignRepositoryLive,
  PostgresTriggerRepositoryLive,
  PostgresSequenceRepositoryLive,
  PostgresWorkBacklogLive,
  PostgresUnitOfWorkLive,
  PostgresDatabaseHealthLive,
  PostgresSendingDomainRepositoryLive,
  PostgresBillingAccountRepositoryLive,
  PostgresImportJobRepositoryLive
).pipe((ports) => Layer.provideMerge(Layer.merge(PostgresSubscriberIntakeLive, PostgresSubscriberImportStoreLive), ports))
