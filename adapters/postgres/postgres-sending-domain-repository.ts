import * as SqlClient from "@effect/sql/SqlClient"
import { SendingDomainRepository } from "@roster/application"
import { OrganizationId, SendingDomain, SendingDomainExists, SendingDomainTaken } from "@roster/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { decodeFirst, decodeRows, jsonb } from "./rows.js"
import { onUniqueViolation, withSavepoint } from "./transactions.js"
import { makeWorkQueue } from "./work-queue.js"

const COLUMNS = "organization_id, name, provider_id, status, records, created_at, updated_at, checked_at, verified_at, next_check_at"
const qualified = (alias: string) => COLUMNS.split(", ").map((column) => `${alias}.${column}`).join(", ")

const decodeDomain = decodeFirst(SendingDomain)
const decodeDomains = decodeRows(SendingDomain)
const decodeOwner = decodeFirst(Schema.Struct({ organizationId: OrganizationId }))

/** Custom sending domains, one row per organization that has one. */
export const PostgresSendingDomainRepositoryLive = Layer.effect(
  SendingDomainRepository,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const columns = sql.literal(COLUMNS)
    // A check is leased by pushing the domain's next check on; the check's outcome sets the next one.
    const checkQueue = makeWorkQueue(sql, { table: "sending_domains", alias: "d", key: ["organization_id"], due: "next_check_at" })
    const find = (organizationId: OrganizationId) =>
      sql`SELECT ${columns} FROM sending_domains WHERE organization_id = ${organizationId}`.pipe(
        Effect.flatMap(decodeDomain),
        Effect.orDie
      )
    return SendingDomainRepository.of({
      find,
      ownerOf: (name) =>
        sql`SELECT organization_id FROM sending_domains WHERE name = ${name}`.pipe(
          Effect.flatMap(decodeOwner),
          Effect.map(Option.map((row) => row.organizationId)),
          Effect.orDie
        ),
      insert: (domain) =>
        withSavepoint(sql)(sql`
          INSERT INTO sending_domains (${columns})
          SELECT ${domain.organizationId}, ${domain.name}, ${domain.providerId}, ${domain.status},
            ${jsonb(domain.records)}::jsonb, ${domain.createdAt}, ${domain.updatedAt}, ${domain.checkedAt},
            ${domain.verifiedAt}, ${domain.nextCheckAt}
          WHERE EXISTS (SELECT 1 FROM organizations WHERE id = ${domain.organizationId})`).pipe(
          Effect.asVoid,
          onUniqueViolation<"taken" | "exists">({
            sending_domains_name_key: () => "taken",
            sending_domains_pkey: () => "exists"
          }),
          Effect.catchAll((clash): Effect.Effect<never, SendingDomainTaken | SendingDomainExists> =>
            clash === "taken"
              ? Effect.fail(new SendingDomainTaken({ domain: domain.name }))
              : Effect.flatMap(find(domain.organizationId), (existing) =>
                Effect.fail(new SendingDomainExists({
                  domain: Option.match(existing, { onNone: () => domain.name, onSome: (d) => d.name })
                })))
          )
        ),
      update: (domain) =>
        sql`
          UPDATE sending_domains SET
            status = ${domain.status}, records = ${jsonb(domain.records)}::jsonb, updated_at = ${domain.updatedAt},
            checked_at = ${domain.checkedAt}, verified_at = ${domain.verifiedAt}, next_check_at = ${domain.nextCheckAt}
          WHERE organization_id = ${domain.organizationId} AND provider_id = ${domain.providerId}
          RETURNING organization_id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      delete: (organizationId) =>
        sql`DELETE FROM sending_domains WHERE organization_id = ${organizationId} RETURNING ${columns}`.pipe(
          Effect.flatMap(decodeDomain),
          Effect.orDie
        ),
      claimDueChecks: (limit, at, leaseUntil) =>
        checkQueue.claim({
          pick: {
            where: sql`d.status = 'pending' AND d.next_check_at <= ${at}`,
            orderBy: sql`d.next_check_at, d.organization_id`,
            limit
          },
          lease: { until: leaseUntil },
          returning: sql.literal(qualified("d"))
        }).pipe(
          Effect.flatMap(decodeDomains),
          Effect.orDie
        )
    })
  })
)
