import type { Layer } from "effect"
import { apiKeyRepositoryContract } from "./api-key-repository-contract.js"
import { campaignRepositoryContract } from "./campaign-repository-contract.js"
import { deletionContract, type DirectDeletion } from "./deletion-contract.js"
import { emailUsageContract } from "./email-usage-contract.js"
import type { Persistence } from "./fixtures.js"
import { magicLinkRepositoryContract } from "./magic-link-repository-contract.js"
import { membershipRepositoryContract } from "./membership-repository-contract.js"
import { messageRepositoryContract } from "./message-repository-contract.js"
import { noteRepositoryContract } from "./note-repository-contract.js"
import { organizationRepositoryContract } from "./organization-repository-contract.js"
import { outboxContract } from "./outbox-contract.js"
import { outgoingMailContract } from "./outgoing-mail-contract.js"
import { sessionRepositoryContract } from "./session-repository-contract.js"
import { subscriberFiguresContract } from "./subscriber-figures-contract.js"
import { subscriberImportsContract } from "./subscriber-imports-contract.js"
import { subscriberIntakeContract } from "./subscriber-intake-contract.js"
import { subscriberRepositoryContract } from "./subscriber-repository-contract.js"
import { subscriberUseCasesContract } from "./subscriber-use-cases-contract.js"
import { tagAssignmentsContract } from "./tag-assignments-contract.js"
import { tagRepositoryContract } from "./tag-repository-contract.js"
import { templateRepositoryContract } from "./template-repository-contract.js"
import { formRepositoryContract } from "./form-repository-contract.js"
import { signUpRepositoryContract } from "./sign-up-repository-contract.js"
import { triggerRepositoryContract } from "./trigger-repository-contract.js"
import { sequenceRepositoryContract } from "./sequence-repository-contract.js"
import { unitOfWorkContract } from "./unit-of-work-contract.js"
import { userRepositoryContract } from "./user-repository-contract.js"
import { webhookDeliveryRepositoryContract } from "./webhook-delivery-repository-contract.js"
import { webhookEndpointRepositoryContract } from "./webhook-endpoint-repository-contract.js"
import { sendingDomainRepositoryContract } from "./sending-domain-repository-contract.js"
import { billingAccountRepositoryContract } from "./billing-account-repository-contract.js"
import { workBacklogContract } from "./work-backlog-contract.js"
import { importJobRepositoryContract } from "./import-job-repository-contract.js"
import { segmentContract } from "./segment-contract.js"

export type { DirectDeletion } from "./deletion-contract.js"
export type { Persistence, PersistenceLayer } from "./fixtures.js"

/**
 * Every persistence contract, each against its own build of `persistence`. A database that can
 * delete users directly (`direct`) also shows what goes with them.
 */
export const persistenceContracts = <R = never>(
  persistence: Layer.Layer<Persistence | R, unknown>,
  direct?: DirectDeletion<R>
): void => {
  subscriberRepositoryContract(persistence)
  subscriberFiguresContract(persistence)
  subscriberIntakeContract(persistence)
  tagRepositoryContract(persistence)
  tagAssignmentsContract(persistence)
  organizationRepositoryContract(persistence)
  apiKeyRepositoryContract(persistence)
  userRepositoryContract(persistence)
  membershipRepositoryContract(persistence)
  magicLinkRepositoryContract(persistence)
  sessionRepositoryContract(persistence)
  outboxContract(persistence)
  webhookEndpointRepositoryContract(persistence)
  webhookDeliveryRepositoryContract(persistence)
  messageRepositoryContract(persistence)
  outgoingMailContract(persistence)
  emailUsageContract(persistence)
  templateRepositoryContract(persistence)
  formRepositoryContract(persistence)
  signUpRepositoryContract(persistence)
  noteRepositoryContract(persistence)
  campaignRepositoryContract(persistence)
  triggerRepositoryContract(persistence)
  sequenceRepositoryContract(persistence)
  unitOfWorkContract(persistence)
  workBacklogContract(persistence)
  subscriberUseCasesContract(persistence)
  deletionContract(persistence, direct)
  sendingDomainRepositoryContract(persistence)
  billingAccountRepositoryContract(persistence)
  subscriberImportsContract(persistence)
  importJobRepositoryContract(persistence)
  segmentContract(persistence)
}
