import { assert, expect, layer } from "@effect/vitest"
import { EmailSettingsRepository, TemplateRepository } from "@roster/application"
import { EmailSettings, EmailTemplate, OrganizationId, TemplateId } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { deletingAfterwards, givenOrganization, instant, type PersistenceLayer } from "./fixtures.js"

const aTemplate = (organizationId: OrganizationId, at: Date, name = "Welcome") =>
  new EmailTemplate({
    id: TemplateId.make(randomUUID()),
    organizationId,
    name,
    subject: "Hi {{ subscriber.first_name }}",
    html: "<p>Hi</p>",
    text: null,
    createdAt: at,
    updatedAt: at
  })

export const templateRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("TemplateRepository and EmailSettingsRepository", (it) => {
    it.effect("stores templates, finds them within their organization, lists them oldest first and deletes them", () =>
      Effect.gen(function*() {
        const templates = yield* TemplateRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const late = aTemplate(organization.id, instant(9), "Late")
          const early = aTemplate(organization.id, instant(1), "Early")
          yield* templates.insert(late)
          yield* templates.insert(early)
          expect(yield* templates.findById(organization.id, early.id)).toStrictEqual(Option.some(early))
          expect(yield* templates.organizationOf(early.id)).toStrictEqual(Option.some(organization.id))
          assert.isTrue(Option.isNone(yield* templates.findById(OrganizationId.make(randomUUID()), early.id)))
          expect(yield* templates.list({ organizationId: organization.id, limit: 10 })).toStrictEqual([early, late])
          expect(yield* templates.list({ organizationId: organization.id, limit: 10, offset: 1 })).toStrictEqual([late])
          expect(yield* templates.list({
            organizationId: organization.id,
            limit: 10,
            after: { value: early.createdAt.toISOString(), id: early.id }
          })).toStrictEqual([late])
          expect(yield* templates.count(organization.id)).toBe(2)

          const changed = new EmailTemplate({ ...early, name: "Renamed", html: null, text: "t", updatedAt: instant(20) })
          yield* templates.update(changed)
          expect(yield* templates.findById(organization.id, early.id)).toStrictEqual(Option.some(changed))
          // Another organization's update changes nothing.
          yield* templates.update(new EmailTemplate({ ...late, organizationId: OrganizationId.make(randomUUID()), name: "x" }))
          expect(Option.getOrThrow(yield* templates.findById(organization.id, late.id)).name).toBe("Late")

          assert.isFalse(yield* templates.delete(OrganizationId.make(randomUUID()), late.id))
          assert.isTrue(yield* templates.delete(organization.id, late.id))
          assert.isFalse(yield* templates.delete(organization.id, late.id))
          expect(yield* templates.count(organization.id)).toBe(1)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("keeps one set of sender settings per organization, replaced on save, gone with the organization", () =>
      Effect.gen(function*() {
        const settings = yield* EmailSettingsRepository
        const organization = yield* givenOrganization()
        assert.isTrue(Option.isNone(yield* settings.find(organization.id)))
        const first = new EmailSettings({ organizationId: organization.id, fromName: "Acme", fromAddress: null, updatedAt: instant(1) })
        yield* settings.save(first)
        expect(yield* settings.find(organization.id)).toStrictEqual(Option.some(first))
        const second = new EmailSettings({ ...first, fromName: null, updatedAt: instant(2) })
        yield* settings.save(second)
        expect(yield* settings.find(organization.id)).toStrictEqual(Option.some(second))
        yield* Effect.void.pipe(deletingAfterwards([organization.id]))
        assert.isTrue(Option.isNone(yield* settings.find(organization.id)))
        // Settings of no organization are not kept.
        const stray = OrganizationId.make(randomUUID())
        yield* settings.save(new EmailSettings({ ...first, organizationId: stray }))
        assert.isTrue(Option.isNone(yield* settings.find(stray)))
      }))
  })
