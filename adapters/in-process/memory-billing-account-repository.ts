import { BillingAccountRepository } from "@roster/application"
import { isDueToSettle, OrganizationId } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore } from "./memory-store.js"

/** Accounts in the in-memory store; a transaction of the store holds everything, so `hold` needs no lock of its own. */
export const MemoryBillingAccountRepositoryLive = Layer.effect(
  BillingAccountRepository,
  Effect.map(MemoryStore, (store) =>
    BillingAccountRepository.of({
      find: (organizationId) => store.read((t) => Option.fromNullable(t.billingAccounts.get(organizationId))),
      findByCustomer: (customerId) =>
        store.read((t) =>
          Option.fromNullable([...t.billingAccounts.values()].find((account) => account.customerId === customerId))
        ),
      hold: (empty) =>
        store.write((t) => {
          if (!t.organizations.has(empty.organizationId)) return Option.none()
          const found = t.billingAccounts.get(empty.organizationId)
          if (found !== undefined) return Option.some(found)
          t.billingAccounts.set(empty.organizationId, empty)
          return Option.some(empty)
        }),
      save: (account) =>
        store.write((t) => {
          if (t.organizations.has(account.organizationId)) t.billingAccounts.set(account.organizationId, account)
        }),
      recordEvent: (eventId, receivedAt) =>
        store.write((t) => {
          if (t.billingEvents.has(eventId)) return false
          t.billingEvents.set(eventId, receivedAt)
          return true
        }),
      listEnded: (now, limit) =>
        store.read((t) =>
          [...t.billingAccounts.values()]
            .filter((account) =>
              isDueToSettle(account, now) && t.organizations.get(account.organizationId)?.tier !== "free"
            )
            .sort((a, b) =>
              (a.currentPeriodEnd?.getTime() ?? -Infinity) - (b.currentPeriodEnd?.getTime() ?? -Infinity) ||
              a.organizationId.localeCompare(b.organizationId)
            )
            .slice(0, limit)
            .map((account) => OrganizationId.make(account.organizationId))
        )
    })))
