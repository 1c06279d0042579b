import { ConsentRepository, type FormSignUpCounts, SignUpRepository } from "@roster/application"
import { emailKey, type FormId, PendingSignUp } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore, type Tables } from "./memory-store.js"

/** The unconfirmed sign-up for the address through the form, or through the organization's API when `formId` is null. */
const unconfirmedOf = (t: Tables, organizationId: string, formId: string | null, email: string) =>
  [...t.signUps.values()].find((s) =>
    s.organizationId === organizationId && s.formId === formId && s.confirmedAt === null && emailKey(s.email) === emailKey(email)
  )

/** Sign-ups waiting for confirmation in the in-memory store. */
export const MemorySignUpRepositoryLive = Layer.effect(
  SignUpRepository,
  Effect.map(MemoryStore, (store) =>
    SignUpRepository.of({
      insert: (signUp) =>
        store.write((t) => {
          if (!t.organizations.has(signUp.organizationId) || t.signUps.has(signUp.id)) return false
          if (signUp.formId !== null && !t.forms.has(signUp.formId)) return false
          if (unconfirmedOf(t, signUp.organizationId, signUp.formId, signUp.email) !== undefined) return false
          t.signUps.set(signUp.id, signUp)
          return true
        }),
      update: (signUp) => store.write((t) => void (t.signUps.has(signUp.id) && t.signUps.set(signUp.id, signUp))),
      findById: (id) => store.read((t) => Option.fromNullable(t.signUps.get(id))),
      findUnconfirmed: (organizationId, formId, email) =>
        store.read((t) => Option.fromNullable(unconfirmedOf(t, organizationId, formId, email))),
      confirm: (id, tokenId, at) =>
        store.write((t) => {
          const found = t.signUps.get(id)
          if (found === undefined || found.tokenId !== tokenId || found.confirmedAt !== null) return Option.none()
          if (found.expiresAt.getTime() <= at.getTime()) return Option.none()
          const confirmed = new PendingSignUp({ ...found, confirmedAt: at, mailDueAt: null })
          t.signUps.set(id, confirmed)
          return Option.some(confirmed)
        }),
      takeDueMail: (at, limit) =>
        store.write((t) => {
          const due = [...t.signUps.values()]
            .filter((s) => s.mailDueAt !== null && s.mailDueAt.getTime() <= at.getTime())
            .sort((a, b) => (a.mailDueAt!.getTime() - b.mailDueAt!.getTime()) || a.id.localeCompare(b.id))
            .slice(0, limit)
            .map((s) => new PendingSignUp({ ...s, mailDueAt: null, lastMailAt: at }))
          for (const s of due) t.signUps.set(s.id, s)
          return due.sort((a, b) => (a.createdAt.getTime() - b.createdAt.getTime()) || a.id.localeCompare(b.id))
        }),
      countsByForm: (organizationId, formIds, at) =>
        store.read((t) => {
          const counts = new Map(formIds.map((id) => [id, { pending: 0, confirmed: 0 }]))
          for (const s of t.signUps.values()) {
            const count = s.formId === null || s.organizationId !== organizationId ? undefined : counts.get(s.formId)
            if (count === undefined || s.kind !== "confirmation" || s.confirmedAt !== null) continue
            if (s.expiresAt.getTime() > at.getTime()) count.pending += 1
          }
          const joined = new Map<string, Set<string>>()
          for (const c of t.consents.values()) {
            if (c.formId === null || c.organizationId !== organizationId || !counts.has(c.formId)) continue
            joined.set(c.formId, (joined.get(c.formId) ?? new Set()).add(c.subscriberId))
          }
          for (const [formId, subscribers] of joined) counts.get(formId as FormId)!.confirmed = subscribers.size
          return counts as ReadonlyMap<FormId, FormSignUpCounts>
        }),
      deleteExpired: (at, limit) =>
        store.write((t) => {
          const gone = [...t.signUps.values()].filter((s) => s.expiresAt.getTime() <= at.getTime()).slice(0, limit)
          for (const s of gone) t.signUps.delete(s.id)
          return gone.length
        })
    }))
)

/** Consents in the in-memory store; they go with their subscriber. */
export const MemoryConsentRepositoryLive = Layer.effect(
  ConsentRepository,
  Effect.map(MemoryStore, (store) =>
    ConsentRepository.of({
      record: (consent) => store.write((t) => void (t.subscribers.has(consent.subscriberId) && t.consents.set(consent.id, consent))),
      listFor: (organizationId, subscriberId) =>
        store.read((t) =>
          [...t.consents.values()]
            .filter((c) => c.organizationId === organizationId && c.subscriberId === subscriberId)
            .sort((a, b) => (a.agreedAt.getTime() - b.agreedAt.getTime()) || a.id.localeCompare(b.id))
        )
    }))
)
