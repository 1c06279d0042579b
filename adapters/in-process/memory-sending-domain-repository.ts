import { SendingDomainRepository } from "@roster/application"
import { type OrganizationId, SendingDomain, SendingDomainExists, SendingDomainTaken } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore } from "./memory-store.js"
import { claimDue } from "./memory-work-queue.js"
import { compareText } from "./ordering.js"

export const MemorySendingDomainRepositoryLive = Layer.effect(
  SendingDomainRepository,
  Effect.map(MemoryStore, (store) =>
    SendingDomainRepository.of({
      find: (organizationId) => store.read((t) => Option.fromNullable(t.sendingDomains.get(organizationId))),
      ownerOf: (name) =>
        store.read((t) => {
          for (const domain of t.sendingDomains.values()) if (domain.name === name) return Option.some(domain.organizationId)
          return Option.none<OrganizationId>()
        }),
      insert: (domain) =>
        Effect.flatten(store.write((t): Effect.Effect<void, SendingDomainTaken | SendingDomainExists> => {
          for (const other of t.sendingDomains.values()) {
            if (other.name === domain.name) return Effect.fail(new SendingDomainTaken({ domain: domain.name }))
          }
          const existing = t.sendingDomains.get(domain.organizationId)
          if (existing !== undefined) return Effect.fail(new SendingDomainExists({ domain: existing.name }))
          if (t.organizations.has(domain.organizationId)) t.sendingDomains.set(domain.organizationId, domain)
          return Effect.void
        })),
      update: (domain) =>
        store.write((t) => {
          const stored = t.sendingDomains.get(domain.organizationId)
          if (stored === undefined || stored.providerId !== domain.providerId) return false
          t.sendingDomains.set(domain.organizationId, domain)
          return true
        }),
      delete: (organizationId) =>
        store.write((t) => {
          const stored = t.sendingDomains.get(organizationId)
          t.sendingDomains.delete(organizationId)
          return Option.fromNullable(stored)
        }),
      claimDueChecks: (limit, at, leaseUntil) =>
        store.write((t) =>
          claimDue(t.sendingDomains, (d) => d.organizationId, {
            claimable: (d) => d.status === "pending" && d.nextCheckAt !== null && d.nextCheckAt.getTime() <= at.getTime(),
            order: (a, b) => a.nextCheckAt!.getTime() - b.nextCheckAt!.getTime() || compareText(a.organizationId, b.organizationId),
            limit
          }, (domain) => {
            const leased = new SendingDomain({ ...domain, nextCheckAt: leaseUntil })
            return [leased, leased]
          })
        )
    })))
