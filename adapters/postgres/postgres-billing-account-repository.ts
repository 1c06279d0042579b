import * as SqlClient from "@effect/sql/SqlClient"
import { BillingAccountRepository } from "@roster/application"
import { BillingAccount, OrganizationId } from "@roster/domain"
import { Effect, Layer } from "effect"
import { decodeFirst } from "./rows.js"

const decodeAccount = decodeFirst(BillingAccount)

const COLUMNS = "organization_id, customer_id, subscription_id, price_id, status, current_period_end, " +
  "cancel_at_period_end, last_change_at, settled_at, updated_at"

/** One row per organization that ever dealt with billing; the provider's event ids beside them. */
export const PostgresBillingAccountRepositoryLive = Layer.effect(
  BillingAccountRepository,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const columns = sql.literal(COLUMNS)
    return BillingAccountRepository.of({
      find: (organizationId) =>
        sql`SELECT ${columns} FROM billing_accounts WHERE organization_id = ${organizationId}`.pipe(
          Effect.flatMap(decodeAccount),
          Effect.orDie
        ),
      findByCustomer: (customerId) =>
        sql`SELECT ${columns} FROM billing_accounts WHERE customer_id = ${customerId}`.pipe(
          Effect.flatMap(decodeAccount),
          Effect.orDie
        ),
      // The insert waits for a concurrent one of the same organization to end; the select then
      // holds the row until the caller's transaction ends.
      hold: (empty) =>
        Effect.zipRight(
          sql`
            INSERT INTO billing_accounts (organization_id, status, cancel_at_period_end, updated_at)
            SELECT ${empty.organizationId}, ${empty.status}, ${empty.cancelAtPeriodEnd}, ${empty.updatedAt}
            WHERE EXISTS (SELECT 1 FROM organizations WHERE id = ${empty.organizationId})
            ON CONFLICT (organization_id) DO NOTHING`,
          sql`SELECT ${columns} FROM billing_accounts WHERE organization_id = ${empty.organizationId} FOR UPDATE`.pipe(
            Effect.flatMap(decodeAccount)
          )
        ).pipe(Effect.orDie),
      save: (account) =>
        sql`
          INSERT INTO billing_accounts (${columns})
          SELECT ${account.organizationId}, ${account.customerId}, ${account.subscriptionId}, ${account.priceId},
            ${account.status}, ${account.currentPeriodEnd}, ${account.cancelAtPeriodEnd}, ${account.lastChangeAt},
            ${account.settledAt}, ${account.updatedAt}
          WHERE EXISTS (SELECT 1 FROM organizations WHERE id = ${account.organizationId})
          ON CONFLICT (organization_id) DO UPDATE SET
            customer_id = excluded.customer_id, subscription_id = excluded.subscription_id,
            price_id = excluded.price_id, status = excluded.status, current_period_end = excluded.current_period_end,
            cancel_at_period_end = excluded.cancel_at_period_end, last_change_at = excluded.last_change_at,
            settled_at = excluded.settled_at, updated_at = excluded.updated_at`.pipe(Effect.asVoid, Effect.orDie),
      recordEvent: (eventId, receivedAt) =>
        sql`
          INSERT INTO billing_events (event_id, received_at) VALUES (${eventId}, ${receivedAt})
          ON CONFLICT (event_id) DO NOTHING RETURNING event_id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      listEnded: (now, limit) =>
        sql<{ readonly organization_id: string }>`
          SELECT b.organization_id FROM billing_accounts b JOIN organizations o ON o.id = b.organization_id
          WHERE b.settled_at IS NULL AND b.status IN ('canceled', 'unpaid', 'incomplete_expired', 'paused')
            AND (b.current_period_end IS NULL OR b.current_period_end <= ${now})
            AND o.tier <> 'free'
          ORDER BY b.current_period_end NULLS FIRST, b.organization_id
          LIMIT ${limit}`.pipe(
          Effect.map((rows) => rows.map((row) => OrganizationId.make(row.organization_id))),
          Effect.orDie
        )
    })
  })
)
