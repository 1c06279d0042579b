import { apiKeyRepositoryContract } from "./api-key-repository-contract.js"
import type { PersistenceLayer } from "./fixtures.js"
import { organizationRepositoryContract } from "./organization-repository-contract.js"
import { outboxContract } from "./outbox-contract.js"
import { subscriberRepositoryContract } from "./subscriber-repository-contract.js"
import { subscriberUseCasesContract } from "./subscriber-use-cases-contract.js"
import { tagAssignmentsContract } from "./tag-assignments-contract.js"
import { tagRepositoryContract } from "./tag-repository-contract.js"
import { unitOfWorkContract } from "./unit-of-work-contract.js"

export type { Persistence, PersistenceLayer } from "./fixtures.js"

/** Every persistence contract, each against its own build of `persistence`. */
export const persistenceContracts = (persistence: PersistenceLayer): void => {
  subscriberRepositoryContract(persistence)
  tagRepositoryContract(persistence)
  tagAssignmentsContract(persistence)
  organizationRepositoryContract(persistence)
  apiKeyRepositoryContract(persistence)
  outboxContract(persistence)
  unitOfWorkContract(persistence)
  subscriberUseCasesContract(persistence)
}
