import { FormRepository } from "@roster/application"
import { Consent, type Form } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore } from "./memory-store.js"
import { compareBy } from "./ordering.js"

const oldestFirst = compareBy((form: Form) => form.createdAt.toISOString(), "asc")

/** Sign-up forms in the in-memory store. */
export const MemoryFormRepositoryLive = Layer.effect(
  FormRepository,
  Effect.map(MemoryStore, (store) => {
    const ofOrganization = (forms: Iterable<Form>, organizationId: string) =>
      [...forms].filter((form) => form.organizationId === organizationId)
    return FormRepository.of({
      insert: (form) => store.write((t) => void t.forms.set(form.id, form)),
      update: (form) =>
        store.write((t) => {
          if (t.forms.get(form.id)?.organizationId === form.organizationId) t.forms.set(form.id, form)
        }),
      findById: (organizationId, id) =>
        store.read((t) => Option.filter(Option.fromNullable(t.forms.get(id)), (x) => x.organizationId === organizationId)),
      findPublic: (id) => store.read((t) => Option.fromNullable(t.forms.get(id))),
      organizationOf: (id) => store.read((t) => Option.fromNullable(t.forms.get(id)?.organizationId)),
      list: ({ after, limit, offset = 0, organizationId }) =>
        store.read((t) =>
          ofOrganization(t.forms.values(), organizationId)
            .filter((x) => after === undefined || oldestFirst(x, { id: after.id, createdAt: new Date(after.value) } as Form) > 0)
            .sort(oldestFirst)
            .slice(offset, offset + limit)
        ),
      count: (organizationId) => store.read((t) => ofOrganization(t.forms.values(), organizationId).length),
      delete: (organizationId, id) =>
        store.write((t) => {
          if (t.forms.get(id)?.organizationId !== organizationId) return false
          t.forms.delete(id)
          for (const signUp of t.signUps.values()) if (signUp.formId === id) t.signUps.delete(signUp.id)
          for (const [key, consent] of t.consents) {
            if (consent.formId === id) t.consents.set(key, new Consent({ ...consent, formId: null }))
          }
          return true
        })
    })
  })
)
