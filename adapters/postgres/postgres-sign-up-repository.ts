import * as SqlClient from "@effect/sql/SqlClient"
import { ConsentRepository, type FormSignUpCounts, SignUpRepository } from "@roster/application"
import { Consent, type FormId, PendingSignUp } from "@roster/domain"
import { Effect, Layer } from "effect"
import { decodeFirst, decodeRows, jsonb } from "./rows.js"

const COLUMNS = "id, organization_id, form_id, api_key_id, kind, tag_ids, metadata, email, first_name, last_name, locale, " +
  "token_id, consent_text, client_address, user_agent, created_at, expires_at, mail_due_at, last_mail_at, confirmed_at"

const decodeSignUp = decodeFirst(PendingSignUp)
const decodeSignUps = decodeRows(PendingSignUp)
const decodeConsents = decodeRows(Consent)

/**
 * Sign-ups waiting for confirmation; one unconfirmed per form and address, and one per organization
 * and address through the API, kept by partial unique indexes.
 */
export const PostgresSignUpRepositoryLive = Layer.effect(
  SignUpRepository,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const columns = sql.literal(COLUMNS)
    return SignUpRepository.of({
      insert: (s) =>
        sql`
          INSERT INTO pending_sign_ups (${columns})
          VALUES (${s.id}, ${s.organizationId}, ${s.formId}, ${s.apiKeyId}, ${s.kind}, ${s.tagIds}::uuid[],
                  ${jsonb(s.metadata)}::jsonb, ${s.email}, ${s.firstName}, ${s.lastName}, ${s.locale}, ${s.tokenId}, ${s.consentText}, ${s.clientAddress}, ${s.userAgent}, ${s.createdAt}, ${s.expiresAt},
                  ${s.mailDueAt}, ${s.lastMailAt}, ${s.confirmedAt})
          ON CONFLICT DO NOTHING
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),
      update: (s) =>
        sql`
          UPDATE pending_sign_ups SET api_key_id = ${s.apiKeyId}, kind = ${s.kind}, tag_ids = ${s.tagIds}::uuid[],
                 metadata = ${jsonb(s.metadata)}::jsonb, email = ${s.email}, first_name = ${s.firstName}, last_name = ${s.lastName},
                 locale = ${s.locale}, token_id = ${s.tokenId}, consent_text = ${s.consentText},
                 client_address = ${s.clientAddress}, user_agent = ${s.userAgent}, created_at = ${s.createdAt},
                 expires_at = ${s.expiresAt}, mail_due_at = ${s.mailDueAt}, last_mail_at = ${s.lastMailAt},
                 confirmed_at = ${s.confirmedAt}
          WHERE id = ${s.id}`.pipe(Effect.asVoid, Effect.orDie),
      findById: (id) => sql`SELECT ${columns} FROM pending_sign_ups WHERE id = ${id}`.pipe(Effect.flatMap(decodeSignUp), Effect.orDie),
      findUnconfirmed: (organizationId, formId, email) =>
        sql`
          SELECT ${columns} FROM pending_sign_ups
          WHERE organization_id = ${organizationId}
            AND ${formId === null ? sql`form_id IS NULL` : sql`form_id = ${formId}`}
            AND lower(email) = lower(${email}) AND confirmed_at IS NULL`.pipe(
          Effect.flatMap(decodeSignUp),
          Effect.orDie
        ),
      confirm: (id, tokenId, at) =>
        sql`
          UPDATE pending_sign_ups SET confirmed_at = ${at}, mail_due_at = NULL
          WHERE id = ${id} AND token_id = ${tokenId} AND confirmed_at IS NULL AND expires_at > ${at}
          RETURNING ${columns}`.pipe(Effect.flatMap(decodeSignUp), Effect.orDie),
      takeDueMail: (at, limit) =>
        sql`
          WITH due AS (
            SELECT id FROM pending_sign_ups
            WHERE mail_due_at IS NOT NULL AND mail_due_at <= ${at}
            ORDER BY mail_due_at, id
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          )
          UPDATE pending_sign_ups p SET mail_due_at = NULL, last_mail_at = ${at}
          FROM due WHERE p.id = due.id
          RETURNING ${sql.literal(COLUMNS.split(", ").map((c) => `p.${c}`).join(", "))}`.pipe(
          Effect.flatMap(decodeSignUps),
          Effect.map((rows) => [...rows].sort((a, b) => (a.createdAt.getTime() - b.createdAt.getTime()) || a.id.localeCompare(b.id))),
          Effect.orDie
        ),
      countsByForm: (organizationId, formIds, at) =>
        formIds.length === 0
          ? Effect.succeed(new Map<FormId, FormSignUpCounts>())
          : sql<{ readonly form_id: string; readonly pending: number; readonly confirmed: number }>`
          SELECT f.id AS form_id,
                 (SELECT count(*)::int FROM pending_sign_ups p
                  WHERE p.form_id = f.id AND p.kind = 'confirmation' AND p.confirmed_at IS NULL
                    AND p.expires_at > ${at}) AS pending,
                 (SELECT count(DISTINCT c.subscriber_id)::int FROM subscriber_consents c
                  WHERE c.form_id = f.id) AS confirmed
          FROM forms f
          WHERE f.organization_id = ${organizationId} AND f.id = ANY(${formIds}::uuid[])`.pipe(
            Effect.map((rows) => {
              const counts = new Map<FormId, FormSignUpCounts>(formIds.map((id) => [id, { pending: 0, confirmed: 0 }]))
              for (const row of rows) {
                counts.set(row.form_id as FormId, { pending: Number(row.pending), confirmed: Number(row.confirmed) })
              }
              return counts as ReadonlyMap<FormId, FormSignUpCounts>
            }),
            Effect.orDie
          ),
      deleteExpired: (at, limit) =>
        sql`
          DELETE FROM pending_sign_ups WHERE id IN (
            SELECT id FROM pending_sign_ups WHERE expires_at <= ${at} LIMIT ${limit}
          ) RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie)
    })
  })
)

/** Consents, in the order they were given. */
export const PostgresConsentRepositoryLive = Layer.effect(
  ConsentRepository,
  Effect.map(SqlClient.SqlClient, (sql) =>
    ConsentRepository.of({
      record: (c) =>
        sql`
          INSERT INTO subscriber_consents (id, organization_id, subscriber_id, form_id, api_key_id, text, client_address,
                                           user_agent, agreed_at, confirmed_at)
          VALUES (${c.id}, ${c.organizationId}, ${c.subscriberId}, ${c.formId}, ${c.apiKeyId}, ${c.text},
                  ${c.clientAddress}, ${c.userAgent}, ${c.agreedAt}, ${c.confirmedAt})`.pipe(Effect.asVoid, Effect.orDie),
      listFor: (organizationId, subscriberId) =>
        sql`
          SELECT id, organization_id, subscriber_id, form_id, api_key_id, text, client_address, user_agent, agreed_at,
                 confirmed_at
          FROM subscriber_consents
          WHERE organization_id = ${organizationId} AND subscriber_id = ${subscriberId}
          ORDER BY agreed_at, id`.pipe(Effect.flatMap(decodeConsents), Effect.orDie)
    }))
)
