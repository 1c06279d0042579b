import { assert, expect, layer } from "@effect/vitest"
import { FormRepository, TemplateRepository } from "@roster/application"
import { EmailTemplate, Form, FormId, OrganizationId, TemplateId } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { deletingAfterwards, givenOrganization, givenTag, instant, type PersistenceLayer } from "./fixtures.js"

const aForm = (organizationId: OrganizationId, at: Date, fields: Partial<Form> = {}) =>
  new Form({
    id: FormId.make(randomUUID()),
    organizationId,
    name: "Newsletter",
    tagIds: [],
    doubleOptIn: true,
    consentText: "I agree to receive the newsletter.",
    successUrl: null,
    confirmedUrl: "https://example.com/welcome",
    allowedOrigins: ["https://example.com"],
    confirmationTemplateId: null,
    createdAt: at,
    updatedAt: at,
    ...fields
  })

export const formRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("FormRepository", (it) => {
    it.effect("stores forms with their tags and origins, finds them within their organization, lists them oldest first and deletes them", () =>
      Effect.gen(function*() {
        const forms = yield* FormRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const first = yield* givenTag(organization.id)
          const second = yield* givenTag(organization.id)
          const late = aForm(organization.id, instant(9), { name: "Late", tagIds: [second.id, first.id] })
          const early = aForm(organization.id, instant(1), { name: "Early", doubleOptIn: false, consentText: null })
          yield* forms.insert(late)
          yield* forms.insert(early)
          expect(yield* forms.findById(organization.id, late.id)).toStrictEqual(Option.some(late))
          expect(yield* forms.findPublic(late.id)).toStrictEqual(Option.some(late))
          expect(yield* forms.organizationOf(early.id)).toStrictEqual(Option.some(organization.id))
          assert.isTrue(Option.isNone(yield* forms.findById(OrganizationId.make(randomUUID()), early.id)))
          assert.isTrue(Option.isNone(yield* forms.findPublic(FormId.make(randomUUID()))))
          expect(yield* forms.list({ organizationId: organization.id, limit: 10 })).toStrictEqual([early, late])
          expect(yield* forms.list({ organizationId: organization.id, limit: 10, offset: 1 })).toStrictEqual([late])
          expect(yield* forms.list({
            organizationId: organization.id,
            limit: 10,
            after: { value: early.createdAt.toISOString(), id: early.id }
          })).toStrictEqual([late])
          expect(yield* forms.count(organization.id)).toBe(2)

          const changed = new Form({
            ...early,
            name: "Renamed",
            tagIds: [first.id],
            allowedOrigins: [],
            successUrl: "https://example.com/thanks",
            updatedAt: instant(20)
          })
          yield* forms.update(changed)
          expect(yield* forms.findById(organization.id, early.id)).toStrictEqual(Option.some(changed))
          // Another organization's update changes nothing.
          yield* forms.update(new Form({ ...late, organizationId: OrganizationId.make(randomUUID()), name: "x" }))
          expect(Option.getOrThrow(yield* forms.findById(organization.id, late.id)).name).toBe("Late")

          assert.isFalse(yield* forms.delete(OrganizationId.make(randomUUID()), late.id))
          assert.isTrue(yield* forms.delete(organization.id, late.id))
          assert.isFalse(yield* forms.delete(organization.id, late.id))
          expect(yield* forms.count(organization.id)).toBe(1)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a form whose confirmation template is deleted goes back to the default one", () =>
      Effect.gen(function*() {
        const forms = yield* FormRepository
        const templates = yield* TemplateRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const template = new EmailTemplate({
            id: TemplateId.make(randomUUID()),
            organizationId: organization.id,
            name: "Confirm",
            subject: "Please confirm",
            html: null,
            text: "{{ data.confirm_url }}",
            createdAt: instant(1),
            updatedAt: instant(1)
          })
          yield* templates.insert(template)
          const form = aForm(organization.id, instant(2), { confirmationTemplateId: template.id })
          yield* forms.insert(form)
          assert.isTrue(yield* templates.delete(organization.id, template.id))
          expect(Option.getOrThrow(yield* forms.findById(organization.id, form.id)).confirmationTemplateId).toBeNull()
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("forms go with their organization", () =>
      Effect.gen(function*() {
        const forms = yield* FormRepository
        const organization = yield* givenOrganization()
        const form = aForm(organization.id, instant(3))
        yield* forms.insert(form).pipe(deletingAfterwards([organization.id]))
        assert.isTrue(Option.isNone(yield* forms.findPublic(form.id)))
      }))
  })
