import { CacheHealth, DatabaseHealth, UnitOfWork } from "@roster/application"
import { MemorySubscriberIntakeLive } from "./memory-subscriber-intake.js"
import { Effect, Layer } from "effect"
import { MemoryApiKeyRepositoryLive } from "./memory-api-key-repository.js"
import { MemoryCampaignRepositoryLive } from "./memory-campaign-repository.js"
import { MemoryTriggerRepositoryLive } from "./memory-trigger-repository.js"
import { MemorySequenceRepositoryLive } from "./memory-sequence-repository.js"
import { MemoryEmailSettingsRepositoryLive } from "./memory-email-settings-repository.js"
import { MemoryEmailUsageLive } from "./memory-email-usage.js"
import { MemoryMagicLinkRepositoryLive } from "./memory-magic-link-repository.js"
import { MemoryMembershipRepositoryLive } from "./memory-membership-repository.js"
import { MemoryMessageRepositoryLive } from "./memory-message-repository.js"
import { MemoryNoteRepositoryLive } from "./memory-note-repository.js"
import { MemoryOrganizationRepositoryLive } from "./memory-organization-repository.js"
import { MemoryOutboxLive } from "./memory-outbox.js"
import { MemoryOutgoingMailLive } from "./memory-outgoing-mail.js"
import { MemorySessionRepositoryLive } from "./memory-session-repository.js"
import { MemoryStore, MemoryStoreLive } from "./memory-store.js"
import { MemorySubscriberRepositoryLive } from "./memory-subscriber-repository.js"
import { MemoryTagAssignmentsLive } from "./memory-tag-assignments.js"
import { MemoryTagRepositoryLive } from "./memory-tag-repository.js"
import { MemorySegmentAudienceLive } from "./memory-segment-audience.js"
import { MemorySegmentRepositoryLive } from "./memory-segment-repository.js"
import { MemoryTemplateRepositoryLive } from "./memory-template-repository.js"
import { MemoryFormRepositoryLive } from "./memory-form-repository.js"
import { MemoryConsentRepositoryLive, MemorySignUpRepositoryLive } from "./memory-sign-up-repository.js"
import { MemoryUserRepositoryLive } from "./memory-user-repository.js"
import { MemoryWebhookDeliveryRepositoryLive } from "./memory-webhook-delivery-repository.js"
import { MemoryWebhookEndpointRepositoryLive } from "./memory-webhook-endpoint-repository.js"
import { MemorySendingDomainRepositoryLive } from "./memory-sending-domain-repository.js"
import { MemoryBillingAccountRepositoryLive } from "./memory-billing-account-repository.js"
import { MemoryWorkBacklogLive } from "./memory-work-backlog.js"
import { MemorySubscriberImportStoreLive } from "./memory-subscriber-import-store.js"
import { MemoryImportJobRepositoryLive } from "./memory-import-job-repository.js"

const MemoryUnitOfWorkLive = Layer.effect(
  UnitOfWork,
  Effect.map(MemoryStore, (store) => UnitOfWork.of({ transaction: store.transaction }))
)

const MemoryDatabaseHealthLive = Layer.succeed(DatabaseHealth, { name: "memory", check: Effect.void })

/** Every persistence port over one in-memory store. Each build is a fresh, empty database. */
export const MemoryPersistenceLive = Layer.mergeAll(
  MemorySubscriberRepositoryLive,
  MemoryTagRepositoryLive,
  MemoryTagAssignmentsLive,
  MemoryOrganizationRepositoryLive,
  MemoryApiKeyRepositoryLive,
  MemoryUserRepositoryLive,
  MemoryMembershipRepositoryLive,
  MemoryMagicLinkRepositoryLive,
  MemorySessionRepositoryLive,
  MemoryOutboxLive,
  MemoryWebhookEndpointRepositoryLive,
  MemoryWebhookDeliveryRepositoryLive,
  MemoryMessageRepositoryLive,
  MemoryOutgoingMailLive,
  MemoryEmailUsageLive,
  MemoryEmailSettingsRepositoryLive,
  MemoryTemplateRepositoryLive,
  MemoryFormRepositoryLive,
  MemorySignUpRepositoryLive,
  MemoryConsentRepositoryLive,
  MemorySegmentRepositoryLive,
  MemorySegmentAudienceLive,
  MemoryNoteRepositoryLive,
  MemoryCampaignRepositoryLive,
  MemoryTriggerRepositoryLive,
  MemorySequenceRepositoryLive,
  MemoryWorkBacklogLive,
  MemoryUnitOfWorkLive,
  MemoryDatabaseHealthLive,
  MemorySendingDomainRepositoryLive,
  MemoryBillingAccountRepositoryLive,
  MemorySubscriberImportStoreLive,
  MemoryImportJobRepositoryLive
).pipe(
  (ports) => Layer.provideMerge(MemorySubscriberIntakeLive, ports),
  Layer.provideMerge(MemoryStoreLive)
)

/** The in-process cache store is always there. */
export const InProcessCacheHealthLive = Layer.succeed(CacheHealth, { name: "in-process", check: Effect.void })
