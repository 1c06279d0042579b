import * as SqlClient from "@effect/sql/SqlClient"
import { OrganizationRepository } from "@roster/application"
import { Organization, OrganizationSlugTaken } from "@roster/domain"
import { Effect, Layer } from "effect"
import { organizationColumns, selectList } from "./columns.js"
import { instant, keyset } from "./keyset.js"
import { decodeCount, decodeFirst, decodeRows } from "./rows.js"
import { onUniqueViolation, transactional, withSavepoint } from "./transactions.js"

const decodeOrganization = decodeFirst(Organization)
const decodeOrganizations = decodeRows(Organization)

export const PostgresOrganizationRepositoryLive = Layer.effect(
  OrganizationRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = selectList(sql, organizationColumns)

    return OrganizationRepository.of({
      insert: (organization) =>
        sql`
          INSERT INTO organizations
            (id, name, slug, tier, is_platform_admin, suspended_at, custom_rate_limit, subscriber_count, created_at, updated_at)
          VALUES (
            ${organization.id}, ${organization.name}, ${organization.slug}, ${organization.tier},
            ${organization.isPlatformAdmin}, ${organization.suspendedAt}, ${organization.customRateLimit},
            ${organization.subscriberCount},
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

      // The subscriber count belongs to the reservations below: an update never writes it back.
      update: (organization) =>
        sql`
          UPDATE organizations SET
            name = ${organization.name}, tier = ${organization.tier}, is_platform_admin = ${organization.isPlatformAdmin},
            suspended_at = ${organization.suspendedAt}, custom_rate_limit = ${organization.customRateLimit},
            updated_at = ${organization.updatedAt}
          WHERE id = ${organization.id}`.pipe(Effect.asVoid, Effect.orDie),

      // Subscribers, their tags, tags, API keys and memberships go by cascade. Events have no
      // foreign key and go by name, after the organization: the cascade waits for transactions
      // still changing the organization's rows, so the second statement sees their events too.
      delete: (id) =>
        transactional(sql)(Effect.gen(function*() {
          const deleted = yield* sql`DELETE FROM organizations WHERE id = ${id} RETURNING id`
          if (deleted.length === 0) return false
          yield* sql`DELETE FROM outbox_events WHERE organization_id = ${id}`
          return true
        })).pipe(Effect.orDie),

      list: (query) => {
        const page = keyset(sql, "created_at", "asc", query.after && { value: instant(query.after.value), id: query.after.id })
        return sql`
          SELECT ${columns} FROM organizations
          WHERE ${sql.and(page.after)}
          ${page.orderBy}
          LIMIT ${query.limit} OFFSET ${query.offset ?? 0}`.pipe(Effect.flatMap(decodeOrganizations), Effect.orDie)
      },

      count: sql`SELECT count(*)::integer AS count FROM organizations`.pipe(Effect.flatMap(decodeCount), Effect.orDie),

      // One conditional update: the check and the change are atomic, and the row stays locked
      // until the transaction ends, so concurrent reservations queue behind it. The condition
      // mirrors `withinLimit` of domain/limits.ts.
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
