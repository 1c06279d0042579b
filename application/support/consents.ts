import type { Consent, FormId, OrganizationId, SubscriberId } from "@roster/domain"
import { Array, Effect, Option } from "effect"
import { FormRepository } from "../ports/form-repository.js"
import { ConsentRepository } from "../ports/sign-up-repository.js"

/** A consent as it is shown: with the name of the form it came through, while that form is there. */
export interface ConsentView {
  readonly consent: Consent
  readonly form: { readonly id: FormId; readonly name: string } | null
}

/** Reads a subscriber's consents, newest first, each with its form's name. */
export const makeConsentReader = Effect.gen(function*() {
  const consents = yield* ConsentRepository
  const forms = yield* FormRepository

  return (organizationId: OrganizationId, subscriberId: SubscriberId) =>
    Effect.gen(function*() {
      const kept = yield* consents.listFor(organizationId, subscriberId)
      const formIds = Array.dedupe(kept.flatMap((c) => c.formId === null ? [] : [c.formId]))
      // A subscriber joins through few forms: each is read once.
      const found = yield* Effect.forEach(formIds, (id) => forms.findById(organizationId, id), { concurrency: 4 })
      const names = new Map(found.flatMap((form) => Option.isSome(form) ? [[form.value.id, form.value.name] as const] : []))
      return [...kept].reverse().map((consent): ConsentView => {
        const name = consent.formId === null ? undefined : names.get(consent.formId)
        return { consent, form: name === undefined ? null : { id: consent.formId!, name } }
      })
    })
})
