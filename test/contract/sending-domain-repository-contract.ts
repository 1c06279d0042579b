import { assert, expect, layer } from "@effect/vitest"
import { OrganizationRepository, SendingDomainRepository, UnitOfWork } from "@roster/application"
import { DnsRecord, type OrganizationId, SendingDomain } from "@roster/domain"
import { Effect, Exit, Option } from "effect"
import { randomUUID } from "node:crypto"
import { anEraOfItsOwn, deletingAfterwards, givenOrganization, instant, type PersistenceLayer } from "./fixtures.js"

const aDomain = (organizationId: OrganizationId, fields: Partial<SendingDomain> = {}) =>
  new SendingDomain({
    organizationId,
    name: `news-${randomUUID().slice(0, 12)}.example.com`,
    providerId: randomUUID(),
    status: "pending",
    records: [
      new DnsRecord({ record: "SPF", name: "send", type: "MX", value: "feedback-smtp.us-east-1.amazonses.com", ttl: "Auto", priority: 10, status: "not_started" }),
      new DnsRecord({ record: "DKIM", name: "resend._domainkey", type: "TXT", value: "p=MIGf", ttl: "Auto", priority: null, status: "not_started" })
    ],
    createdAt: instant(0),
    updatedAt: instant(0),
    checkedAt: null,
    verifiedAt: null,
    nextCheckAt: instant(60),
    ...fields
  })

export const sendingDomainRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("SendingDomainRepository", (it) => {
    it.effect("keeps one domain per organization, found by organization and by name, with its records", () =>
      Effect.gen(function*() {
        const domains = yield* SendingDomainRepository
        const organization = yield* givenOrganization({ tier: "enterprise" })
        yield* Effect.gen(function*() {
          assert.isTrue(Option.isNone(yield* domains.find(organization.id)))
          const domain = aDomain(organization.id)
          yield* domains.insert(domain)
          expect(yield* domains.find(organization.id)).toStrictEqual(Option.some(domain))
          expect(yield* domains.ownerOf(domain.name)).toStrictEqual(Option.some(organization.id))
          assert.isTrue(Option.isNone(yield* domains.ownerOf(`other-${domain.name}`)))

          const checked = new SendingDomain({
            ...domain,
            status: "verified",
            records: domain.records.map((r) => new DnsRecord({ ...r, status: "verified" })),
            updatedAt: instant(90),
            checkedAt: instant(90),
            verifiedAt: instant(90),
            nextCheckAt: null
          })
          assert.isTrue(yield* domains.update(checked))
          expect(yield* domains.find(organization.id)).toStrictEqual(Option.some(checked))
          // A check of a domain that was replaced (another provider id) changes nothing.
          assert.isFalse(yield* domains.update(new SendingDomain({ ...checked, providerId: randomUUID(), status: "failed" })))
          expect((yield* domains.find(organization.id)).pipe(Option.map((d) => d.status))).toStrictEqual(Option.some("verified"))

          expect(yield* domains.delete(organization.id)).toStrictEqual(Option.some(checked))
          assert.isTrue(Option.isNone(yield* domains.find(organization.id)))
          assert.isTrue(Option.isNone(yield* domains.delete(organization.id)))
          assert.isFalse(yield* domains.update(checked))
          // The name is free again.
          yield* domains.insert(aDomain(organization.id, { name: domain.name }))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a name belongs to one organization, and an organization has one domain at a time", () =>
      Effect.gen(function*() {
        const domains = yield* SendingDomainRepository
        const first = yield* givenOrganization({ tier: "enterprise" })
        const second = yield* givenOrganization({ tier: "enterprise" })
        yield* Effect.gen(function*() {
          const domain = aDomain(first.id)
          yield* domains.insert(domain)
          const taken = yield* Effect.exit(domains.insert(aDomain(second.id, { name: domain.name })))
          expect(taken).toStrictEqual(Exit.fail(expect.objectContaining({ _tag: "SendingDomainTaken", domain: domain.name })))
          const another = yield* Effect.exit(domains.insert(aDomain(first.id)))
          expect(another).toStrictEqual(Exit.fail(expect.objectContaining({ _tag: "SendingDomainExists", domain: domain.name })))
          assert.isTrue(Option.isNone(yield* domains.find(second.id)))
          // Inside a transaction the clash leaves the transaction usable.
          const unitOfWork = yield* UnitOfWork
          yield* unitOfWork.transaction(Effect.gen(function*() {
            const clash = yield* Effect.exit(domains.insert(aDomain(second.id, { name: domain.name })))
            assert.isTrue(Exit.isFailure(clash))
            yield* domains.insert(aDomain(second.id))
          }))
          assert.isTrue(Option.isSome(yield* domains.find(second.id)))
        }).pipe(deletingAfterwards([first.id, second.id]))
      }))

    it.effect("a domain needs its organization, and goes with it", () =>
      Effect.gen(function*() {
        const domains = yield* SendingDomainRepository
        const organization = yield* givenOrganization({ tier: "enterprise" })
        const domain = aDomain(organization.id)
        yield* domains.insert(domain)
        yield* (yield* OrganizationRepository).delete(organization.id)
        assert.isTrue(Option.isNone(yield* domains.find(organization.id)))
        assert.isTrue(Option.isNone(yield* domains.ownerOf(domain.name)))
        const orphan = aDomain(organization.id)
        yield* domains.insert(orphan)
        assert.isTrue(Option.isNone(yield* domains.ownerOf(orphan.name)))
      }))

    it.effect("claims pending domains whose check is due, oldest due first, each once until its lease runs out", () =>
      Effect.gen(function*() {
        const domains = yield* SendingDomainRepository
        // Times of this test alone: no other test's domains are due in them.
        const era = anEraOfItsOwn()
        const organizations = yield* Effect.forEach([1, 2, 3, 4, 5], () => givenOrganization({ tier: "enterprise" }))
        yield* Effect.gen(function*() {
          const [soon, sooner, later, verified, failed] = organizations.map((o) => o.id) as [
            OrganizationId,
            OrganizationId,
            OrganizationId,
            OrganizationId,
            OrganizationId
          ]
          const dueSoon = aDomain(soon, { nextCheckAt: era(20) })
          const dueSooner = aDomain(sooner, { nextCheckAt: era(10) })
          yield* domains.insert(dueSoon)
          yield* domains.insert(dueSooner)
          yield* domains.insert(aDomain(later, { nextCheckAt: era(100) }))
          yield* domains.insert(aDomain(verified, { status: "verified", nextCheckAt: era(1) }))
          yield* domains.insert(aDomain(failed, { status: "failed", nextCheckAt: null }))

          const first = yield* domains.claimDueChecks(1, era(30), era(330))
          expect(first.map((d) => d.organizationId)).toEqual([sooner])
          expect(first[0]!.nextCheckAt).toStrictEqual(era(330))
          const rest = yield* domains.claimDueChecks(10, era(30), era(330))
          expect(rest.map((d) => d.organizationId)).toEqual([soon])
          expect(yield* domains.claimDueChecks(10, era(40), era(340))).toEqual([])
          // Once the lease is over they are due again, with the one whose time came meanwhile.
          const again = yield* domains.claimDueChecks(10, era(400), era(700))
          expect(again.map((d) => d.organizationId).sort()).toEqual([soon, sooner, later].sort())
          expect((yield* domains.find(soon)).pipe(Option.map((d) => d.nextCheckAt))).toStrictEqual(Option.some(era(700)))
        }).pipe(deletingAfterwards(organizations.map((o) => o.id)))
      }))
  })
