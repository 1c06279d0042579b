import * as SqlClient from "@effect/sql/SqlClient"
import { TemplateRepository } from "@roster/application"
import { EmailTemplate, OrganizationId } from "@roster/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { decodeFirst, decodeRows } from "./rows.js"

const COLUMNS = "id, organization_id, name, subject, html, text, created_at, updated_at"

const decodeTemplate = decodeFirst(EmailTemplate)
const decodeTemplates = decodeRows(EmailTemplate)
const decodeOwner = decodeFirst(Schema.Struct({ organizationId: OrganizationId }))

/** Templates; an email keeps what it was when its template is deleted (`ON DELETE SET NULL`). */
export const PostgresTemplateRepositoryLive = Layer.effect(
  TemplateRepository,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const columns = sql.literal(COLUMNS)
    return TemplateRepository.of({
      insert: (template) =>
        sql`
          INSERT INTO email_templates (id, organization_id, name, subject, html, text, created_at, updated_at)
          VALUES (${template.id}, ${template.organizationId}, ${template.name}, ${template.subject}, ${template.html},
                  ${template.text}, ${template.createdAt}, ${template.updatedAt})`.pipe(Effect.asVoid, Effect.orDie),
      update: (template) =>
        sql`
          UPDATE email_templates SET name = ${template.name}, subject = ${template.subject}, html = ${template.html},
                 text = ${template.text}, updated_at = ${template.updatedAt}
          WHERE id = ${template.id} AND organization_id = ${template.organizationId}`.pipe(Effect.asVoid, Effect.orDie),
      findById: (organizationId, id) =>
        sql`SELECT ${columns} FROM email_templates WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(
          Effect.flatMap(decodeTemplate),
          Effect.orDie
        ),
      organizationOf: (id) =>
        sql`SELECT organization_id FROM email_templates WHERE id = ${id}`.pipe(
          Effect.flatMap(decodeOwner),
          Effect.map(Option.map((row) => row.organizationId)),
          Effect.orDie
        ),
      list: ({ after, limit, offset, organizationId }) =>
        sql`
          SELECT ${columns} FROM email_templates
          WHERE organization_id = ${organizationId}
            ${after === undefined ? sql`` : sql`AND (created_at, id) > (${new Date(after.value)}, ${after.id})`}
          ORDER BY created_at, id
          LIMIT ${limit} ${offset === undefined ? sql`` : sql`OFFSET ${offset}`}`.pipe(
          Effect.flatMap(decodeTemplates),
          Effect.orDie
        ),
      count: (organizationId) =>
        sql`SELECT count(*)::integer AS count FROM email_templates WHERE organization_id = ${organizationId}`.pipe(
          Effect.map((rows) => Number(rows[0]?.count ?? 0)),
          Effect.orDie
        ),
      delete: (organizationId, id) =>
        sql`DELETE FROM email_templates WHERE id = ${id} AND organization_id = ${organizationId} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
    })
  })
)
