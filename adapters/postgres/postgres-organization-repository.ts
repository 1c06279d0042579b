import * as SqlClient from "@effect/sql/SqlClient"
import { OrganizationRepository } from "@roster/application"
import { Organization, OrganizationSlugTaken } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { organizationSelectList } from "./columns.js"
import { instant, keyset } from "./keyset.js"
import { decodeCount, decodeFirst, decodeRows } from "./rows.js"
import { makeSubscriberSlots } from "./subscriber-slots.js"
import { onUniqueViolation, transactional, withSavepoint } from "./transactions.js"

const decodeOrganization = decodeFirst(Organization)
const decodeOrganizations = decodeRows(Organization)

export const PostgresOrganizationRepositoryLive = Layer.effect(
  OrganizationRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = organizationSelectList(sql, { from: "organizations" })
    const slots = makeSubscriberSlots(sql)

    return OrganizationRepository.of({
      insert: (organization) =>
        sql`
          INSERT INTO organizations
            (id, name, slug, tier, is_platform_admin, suspended_at, custom_rate_limit, created_at, updated_at)
          VALUES (
            ${organization.id}, ${organization.name}, ${organization.slug}, ${organization.tier},
            ${organization.isPlatformAdmin}, ${organization.suspendedAt}, ${organization.customRateLimit},
            ${organization.createdAt}, ${organization.updatedAt}
          )`.pipe(
          withSavepoint(sql),
          Effect.asVoid,
          onUniqueViolation({ organizations_slug_unique: () => new OrganizationSlugTaken({ slug: organization.slug }) }),
          Effect.zipLeft(slots.start(organization.id, organization.subscriberCount))
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

      timeZoneOf: (id) =>
        sql`SELECT time_zone FROM organizations WHERE id = ${id}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => String(row.time_zone))),
          Effect.orDie
        ),
      setTimeZone: (id, zone) =>
        sql`UPDATE organizations SET time_zone = ${zone} WHERE id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      reserveSubscriberSlots: slots.reserve,
      releaseSubscriberSlots: slots.release
    })
  })
)
