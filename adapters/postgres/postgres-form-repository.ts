import * as SqlClient from "@effect/sql/SqlClient"
import { FormRepository } from "@roster/application"
import { Form, OrganizationId } from "@roster/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { decodeFirst, decodeRows } from "./rows.js"

const COLUMNS = "id, organization_id, name, tag_ids, double_opt_in, consent_text, success_url, confirmed_url, " +
  "allowed_origins, confirmation_template_id, created_at, updated_at"

const decodeForm = decodeFirst(Form)
const decodeForms = decodeRows(Form)
const decodeOwner = decodeFirst(Schema.Struct({ organizationId: OrganizationId }))

/** Sign-up forms, their tags and allowed origins as arrays of the row. */
export const PostgresFormRepositoryLive = Layer.effect(
  FormRepository,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const columns = sql.literal(COLUMNS)
    return FormRepository.of({
      insert: (form) =>
        sql`
          INSERT INTO forms (id, organization_id, name, tag_ids, double_opt_in, consent_text, success_url, confirmed_url,
                             allowed_origins, confirmation_template_id, created_at, updated_at)
          VALUES (${form.id}, ${form.organizationId}, ${form.name}, ${form.tagIds}::uuid[], ${form.doubleOptIn},
                  ${form.consentText}, ${form.successUrl}, ${form.confirmedUrl}, ${form.allowedOrigins}::text[],
                  ${form.confirmationTemplateId}, ${form.createdAt}, ${form.updatedAt})`.pipe(Effect.asVoid, Effect.orDie),
      update: (form) =>
        sql`
          UPDATE forms SET name = ${form.name}, tag_ids = ${form.tagIds}::uuid[], double_opt_in = ${form.doubleOptIn},
                 consent_text = ${form.consentText}, success_url = ${form.successUrl}, confirmed_url = ${form.confirmedUrl},
                 allowed_origins = ${form.allowedOrigins}::text[], confirmation_template_id = ${form.confirmationTemplateId},
                 updated_at = ${form.updatedAt}
          WHERE id = ${form.id} AND organization_id = ${form.organizationId}`.pipe(Effect.asVoid, Effect.orDie),
      findById: (organizationId, id) =>
        sql`SELECT ${columns} FROM forms WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(
          Effect.flatMap(decodeForm),
          Effect.orDie
        ),
      findPublic: (id) =>
        sql`SELECT ${columns} FROM forms WHERE id = ${id}`.pipe(Effect.flatMap(decodeForm), Effect.orDie),
      organizationOf: (id) =>
        sql`SELECT organization_id FROM forms WHERE id = ${id}`.pipe(
          Effect.flatMap(decodeOwner),
          Effect.map(Option.map((row) => row.organizationId)),
          Effect.orDie
        ),
      list: ({ after, limit, offset, organizationId }) =>
        sql`
          SELECT ${columns} FROM forms
          WHERE organization_id = ${organizationId}
            ${after === undefined ? sql`` : sql`AND (created_at, id) > (${new Date(after.value)}, ${after.id})`}
          ORDER BY created_at, id
          LIMIT ${limit} ${offset === undefined ? sql`` : sql`OFFSET ${offset}`}`.pipe(
          Effect.flatMap(decodeForms),
          Effect.orDie
        ),
      count: (organizationId) =>
        sql`SELECT count(*)::integer AS count FROM forms WHERE organization_id = ${organizationId}`.pipe(
          Effect.map((rows) => Number(rows[0]?.count ?? 0)),
          Effect.orDie
        ),
      delete: (organizationId, id) =>
        sql`DELETE FROM forms WHERE id = ${id} AND organization_id = ${organizationId} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
    })
  })
)
