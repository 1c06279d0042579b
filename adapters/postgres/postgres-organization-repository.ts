import * as SqlClient from "@effect/sql/SqlClient"
import { OrganizationRepository } from "@roster/application"
import { Organization, OrganizationSlugTaken } from "@roster/domain"
import { Effect, Layer } from "effect"
import { organizationColumns, selectList } from "./columns.js"
import { decodeFirst } from "./rows.js"
import { onUniqueViolation, withSavepoint } from "./transactions.js"

const decodeOrganization = decodeFirst(Organization)

export const PostgresOrganizationRepositoryLive = Layer.effect(
  OrganizationRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = selectList(sql, organizationColumns)

    return OrganizationRepository.of({
      insert: (organization) =>
        sql`
          INSERT INTO organizations
            (id, name, slug, tier, is_platform_admin, suspended_at, subscriber_count, created_at, updated_at)
          VALUES (
            ${organization.id}, ${organization.name}, ${organization.slug}, ${organization.tier},
            ${organization.isPlatformAdmin}, ${organization.suspendedAt}, ${organization.subscriberCount},
            ${organization.createdAt}, ${organization.updatedAt}
          )`.pipe(
          withSavepoint(sql),
          Effect.asVoid,
          onUniqueViolation({ organizations_slug_unique: () => new OrganizationSlugTaken({ slug: organization.slug }) })
        ),

      findById: (id) =>
        sql`SELECT ${columns} FROM organizations WHERE id = ${id}`.pipe(Effect.flatMap(decodeOrganization), Effect.orDie),

      findBySlug: (slug) =>
        sql`SELECT ${columns} FROM organizations WHERE slug = ${slug}`.pipe(Effect.flatMap(decodeOrganization), Effect.orDie),

      // One conditional update: the check and the change are atomic, and the row stays locked
      // until the transaction ends, so concurrent reservations queue behind it.
      reserveSubscriberSlots: (id, count, max) =>
        sql`
          UPDATE organizations SET subscriber_count = subscriber_count + ${count}
          WHERE ${sql.and([sql`id = ${id}`, ...(max === null ? [] : [sql`subscriber_count + ${count} <= ${max}`])])}
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      releaseSubscriberSlots: (id, count) =>
        sql`UPDATE organizations SET subscriber_count = greatest(subscriber_count - ${count}, 0) WHERE id = ${id}`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    })
  })
)
