import { OrganizationRepository } from "@roster/application"
import { DEFAULT_TIME_ZONE, Organization, OrganizationSlugTaken, withinLimit } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { deleteSequenceRecords, deleteSubscriberRecords, MemoryStore, type Tables } from "./memory-store.js"
import { deleteSubscriberMail } from "./memory-outgoing-mail.js"
import { deleteWebhookEndpoint } from "./memory-webhook-endpoint-repository.js"
import { oldestFirstPage } from "./ordering.js"

/**
 * Removes every row of the organization from every table, as the database's cascades do (webhook
 * endpoints take their deliveries and attempts), its events too.
 */
const deleteOwnedBy = (t: Tables, id: string) => {
  for (const subscriber of t.subscribers.values()) {
    if (subscriber.organizationId !== id) continue
    t.subscribers.delete(subscriber.id)
    t.preferenceTokenVersions.delete(subscriber.id)
    t.erasureRequests.delete(subscriber.id)
    t.assignments.delete(subscriber.id)
    deleteSubscriberRecords(t, subscriber.id)
    deleteSubscriberMail(t, subscriber.id)
  }
  for (const [key] of t.emailUsage) if (key.startsWith(`${id}/`)) t.emailUsage.delete(key)
  for (const [key] of t.providerReports) if (key.startsWith(`${id}/`)) t.providerReports.delete(key)
  t.emailSettings.delete(id)
  t.sendingDomains.delete(id)
  t.billingAccounts.delete(id)
  for (const template of t.templates.values()) if (template.organizationId === id) t.templates.delete(template.id)
  for (const form of t.forms.values()) if (form.organizationId === id) t.forms.delete(form.id)
  for (const signUp of t.signUps.values()) if (signUp.organizationId === id) t.signUps.delete(signUp.id)
  for (const consent of t.consents.values()) if (consent.organizationId === id) t.consents.delete(consent.id)
  for (const segment of t.segments.values()) if (segment.organizationId === id) t.segments.delete(segment.id)
  for (const trigger of t.triggers.values()) if (trigger.organizationId === id) t.triggers.delete(trigger.id)
  for (const firing of t.triggerFirings.values()) if (firing.organizationId === id) t.triggerFirings.delete(firing.id)
  for (const sequence of t.sequences.values()) if (sequence.organizationId === id) deleteSequenceRecords(t, sequence.id)
  for (const { campaign } of t.campaigns.values()) {
    if (campaign.organizationId !== id) continue
    t.campaigns.delete(campaign.id)
    t.campaignAudiences.delete(campaign.id)
  }
  for (const tag of t.tags.values()) {
    if (tag.organizationId !== id) continue
    t.tags.delete(tag.id)
    for (const tags of t.assignments.values()) tags.delete(tag.id)
  }
  for (const apiKey of t.apiKeys.values()) {
    if (apiKey.organizationId === id) t.apiKeys.delete(apiKey.id)
  }
  for (const [key, membership] of t.memberships) {
    if (membership.organizationId === id) t.memberships.delete(key)
  }
  for (const endpoint of t.webhookEndpoints.values()) {
    if (endpoint.organizationId === id) deleteWebhookEndpoint(t, endpoint.id)
  }
  for (const { job } of t.importJobs.values()) if (job.organizationId === id) t.importJobs.delete(job.id)
  let kept = 0
  for (const event of t.events) {
    if (event.organizationId !== id) t.events[kept++] = event
    else t.dispatchedEvents.delete(event.id)
  }
  t.events.length = kept
}

export const MemoryOrganizationRepositoryLive = Layer.effect(
  OrganizationRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const adjust = (by: number) => (o: Organization) =>
      new Organization({ ...o, subscriberCount: o.subscriberCount + by })

    return OrganizationRepository.of({
      insert: (organization) =>
        Effect.flatten(store.write((t) => {
          for (const other of t.organizations.values()) {
            if (other.slug === organization.slug) return Effect.fail(new OrganizationSlugTaken({ slug: organization.slug }))
          }
          t.organizations.set(organization.id, organization)
          return Effect.void
        })),
      findById: (id) => store.read((t) => Option.fromNullable(t.organizations.get(id))),
      findBySlug: (slug) => store.read((t) => Option.fromNullable([...t.organizations.values()].find((o) => o.slug === slug))),
      // The subscriber count belongs to the reservations below: an update never writes it back.
      update: (organization) =>
        store.write((t) => {
          const current = t.organizations.get(organization.id)
          if (current === undefined) return
          t.organizations.set(
            organization.id,
            new Organization({
              ...current,
              name: organization.name,
              tier: organization.tier,
              isPlatformAdmin: organization.isPlatformAdmin,
              suspendedAt: organization.suspendedAt,
              customRateLimit: organization.customRateLimit,
              updatedAt: organization.updatedAt
            })
          )
        }),
      delete: (id) =>
        store.write((t) => {
          if (!t.organizations.delete(id)) return false
          t.organizationTimeZones.delete(id)
          deleteOwnedBy(t, id)
          return true
        }),
      list: (query) => store.read((t) => oldestFirstPage(t.organizations.values(), query)),
      count: store.read((t) => t.organizations.size),
      timeZoneOf: (id) =>
        store.read((t) => t.organizations.has(id) ? Option.some(t.organizationTimeZones.get(id) ?? DEFAULT_TIME_ZONE) : Option.none()),
      setTimeZone: (id, zone) =>
        store.write((t) => {
          if (!t.organizations.has(id)) return false
          t.organizationTimeZones.set(id, zone)
          return true
        }),
      reserveSubscriberSlots: (id, count, max) =>
        store.write((t) => {
          const organization = t.organizations.get(id)
          if (organization === undefined) return false
          if (!withinLimit(max, organization.subscriberCount, count)) return false
          t.organizations.set(id, adjust(count)(organization))
          return true
        }),
      releaseSubscriberSlots: (id, count) =>
        store.write((t) => {
          const organization = t.organizations.get(id)
          if (organization !== undefined) {
            t.organizations.set(id, adjust(-Math.min(count, organization.subscriberCount))(organization))
          }
        })
    })
  })
)
