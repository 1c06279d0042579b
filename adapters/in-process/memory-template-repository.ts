import { TemplateRepository } from "@roster/application"
import { Campaign, type EmailTemplate, EmailTrigger, Form } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore } from "./memory-store.js"
import { forgetMailTemplate } from "./memory-outgoing-mail.js"
import { compareBy } from "./ordering.js"

const oldestFirst = compareBy((template: EmailTemplate) => template.createdAt.toISOString(), "asc")

export const MemoryTemplateRepositoryLive = Layer.effect(
  TemplateRepository,
  Effect.map(MemoryStore, (store) => {
    const ofOrganization = (templates: Iterable<EmailTemplate>, organizationId: string) =>
      [...templates].filter((template) => template.organizationId === organizationId)
    return TemplateRepository.of({
      insert: (template) => store.write((t) => void t.templates.set(template.id, template)),
      update: (template) =>
        store.write((t) => {
          if (t.templates.get(template.id)?.organizationId === template.organizationId) t.templates.set(template.id, template)
        }),
      findById: (organizationId, id) =>
        store.read((t) => Option.filter(Option.fromNullable(t.templates.get(id)), (x) => x.organizationId === organizationId)),
      organizationOf: (id) => store.read((t) => Option.fromNullable(t.templates.get(id)?.organizationId)),
      list: ({ after, limit, offset = 0, organizationId }) =>
        store.read((t) =>
          ofOrganization(t.templates.values(), organizationId)
            .filter((x) => after === undefined || oldestFirst(x, { id: after.id, createdAt: new Date(after.value) } as EmailTemplate) > 0)
            .sort(oldestFirst)
            .slice(offset, offset + limit)
        ),
      count: (organizationId) => store.read((t) => ofOrganization(t.templates.values(), organizationId).length),
      delete: (organizationId, id) =>
        store.write((t) => {
          if (t.templates.get(id)?.organizationId !== organizationId) return false
          t.templates.delete(id)
          forgetMailTemplate(t, id)
          for (const [key, trigger] of t.triggers) {
            if (trigger.templateId === id) t.triggers.set(key, new EmailTrigger({ ...trigger, templateId: null }))
          }
          for (const [key, form] of t.forms) {
            if (form.confirmationTemplateId === id) t.forms.set(key, new Form({ ...form, confirmationTemplateId: null }))
          }
          for (const [key, stored] of t.campaigns) {
            if (stored.campaign.templateId === id) {
              t.campaigns.set(key, { ...stored, campaign: new Campaign({ ...stored.campaign, templateId: null }) })
            }
          }
          return true
        })
    })
  })
)
