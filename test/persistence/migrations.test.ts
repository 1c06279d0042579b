import { describe, expect, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { instantOf } from "@roster/domain"
import { Effect, Redacted } from "effect"
import { makePgClient, makePgliteClient, runMigrations } from "../../adapters/postgres/index.js"
import unlimitedSubscriberSlots from "../../adapters/postgres/migrations/0021_unlimited_subscriber_slots.js"
import outboxDispatchMark from "../../adapters/postgres/migrations/0025_outbox_dispatch_mark.js"
import campaignFirstEvents from "../../adapters/postgres/migrations/0037_campaign_first_events.js"
import messageCreation from "../../adapters/postgres/migrations/0040_message_creation.js"
import { postgres } from "../support/servers.js"

const tables = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly table_name: string }>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`.pipe(
    Effect.map((rows) => rows.map((row) => row.table_name))
  ))

/** The columns each named index covers, in order. */
const indexedColumns = (names: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly name: string; readonly columns: string }>`
      SELECT i.relname AS name, string_agg(a.attname, ',' ORDER BY k.position) AS columns
      FROM pg_index x
        JOIN pg_class i ON i.oid = x.indexrelid
        CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, position)
        JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
      WHERE i.relname = ANY(${names}::text[])
      GROUP BY i.relname
      ORDER BY i.relname`)

describe("migrations", () => {
  layer(makePgliteClient("memory://"))("on a new embedded database", (it) => {
    it.effect("apply once, in order; a second run applies nothing", () =>
      Effect.gen(function*() {
        expect(yield* runMigrations).toStrictEqual([
          [1, "initial_schema"],
          [2, "dashboard_access"],
          [3, "administration"],
          [4, "tag_presentation"],
          [5, "outgoing_webhooks"],
          [6, "preference_tokens"],
          [7, "subscriber_erasure"],
          [8, "email"],
          [9, "campaigns"],
          [10, "email_triggers"],
          [11, "campaign_lease_order"],
          [12, "custom_rate_limits"],
          [13, "subscriber_slots"],
          [14, "sending_domains"],
          [15, "billing"],
          [16, "audience_order"],
          [17, "audience_snapshot"],
          [18, "import_jobs"],
          [19, "import_lease_token"],
          [20, "import_problem_retention"],
          [21, "unlimited_subscriber_slots"],
          [22, "provider_reports_by_address"],
          [23, "tag_visibility"],
          [24, "tag_assignments_with_their_time"],
          [25, "outbox_dispatch_mark"],
          [26, "import_drafts"],
          [27, "events_by_subscriber"],
          [28, "forms"],
          [29, "sign_ups"],
          [30, "segments"],
          [31, "sign_ups_through_the_api"],
          [32, "segment_audiences"],
          [33, "consents_by_form"],
          [34, "sequences"],
          [35, "webhook_response_excerpts"],
          [36, "organization_time_zone"],
          [37, "campaign_first_events"],
          [38, "webhook_test_deliveries"],
          [39, "campaign_queue_index"],
          [40, "message_creation"]
        ])
        expect(yield* runMigrations).toStrictEqual([])
        expect(yield* tables).toStrictEqual([
          "api_keys",
          "billing_accounts",
          "billing_events",
          "campaign_audience_parts",
          "campaign_audiences",
          "campaigns",
          "effect_sql_migrations",
          "email_settings",
          "email_templates",
          "email_triggers",
          "email_usage",
          "forms",
          "import_job_parts",
          "import_jobs",
          "magic_links",
          "memberships",
          "message_events",
          "message_first_events",
          "messages",
          "organization_subscriber_slots",
          "organizations",
          "outbox_dispatch_mark",
          "outbox_events",
          "pending_sign_ups",
          "provider_reports",
          "segments",
          "sending_domains",
          "sequence_enrollments",
          "sequence_step_runs",
          "sequence_versions",
          "sequences",
          "sessions",
          "subscriber_consents",
          "subscriber_notes",
          "subscriber_tags",
          "subscribers",
          "tags",
          "trigger_firings",
          "users",
          "webhook_attempts",
          "webhook_deliveries",
          "webhook_endpoints"
        ])
      }))

    it.effect("organizations and users are indexed in the order their lists walk", () =>
      Effect.gen(function*() {
        yield* runMigrations
        expect(yield* indexedColumns(["organizations_created_at_idx", "users_created_at_idx"])).toStrictEqual([
          { name: "organizations_created_at_idx", columns: "created_at,id" },
          { name: "users_created_at_idx", columns: "created_at,id" }
        ])
      }))

    it.effect("a subscriber's events are indexed by the subscriber their data names, in recorded order", () =>
      Effect.gen(function*() {
        yield* runMigrations
        const sql = yield* SqlClient.SqlClient
        const [index] = yield* sql<{ readonly indexdef: string }>`
          SELECT indexdef FROM pg_indexes WHERE indexname = 'outbox_events_subscriber_idx'`
        expect(index?.indexdef).toBe(
          "CREATE INDEX outbox_events_subscriber_idx ON public.outbox_events USING btree ((((data -> 'subscriber'::text) ->> 'id'::text)), \"position\")"
        )
      }))

    it.effect("only campaign emails enter the index of a campaign's queued emails", () =>
      Effect.gen(function*() {
        yield* runMigrations
        const sql = yield* SqlClient.SqlClient
        const [index] = yield* sql<{ readonly indexdef: string }>`
          SELECT indexdef FROM pg_indexes WHERE indexname = 'messages_campaign_queued_idx'`
        expect(index?.indexdef).toBe(
          "CREATE INDEX messages_campaign_queued_idx ON public.messages USING btree (campaign_id, subscriber_id) " +
            "WHERE ((status = 'queued'::text) AND (campaign_id IS NOT NULL))"
        )
      }))

    it.effect("consents are indexed by the form they were given through, with their subscriber", () =>
      Effect.gen(function*() {
        yield* runMigrations
        expect(yield* indexedColumns(["subscriber_consents_form_idx"])).toStrictEqual([
          { name: "subscriber_consents_form_idx", columns: "form_id,subscriber_id" }
        ])
      }))

    it.effect("an organization counted without a limit gets 128 slot rows, its count unchanged; one under a limit keeps its rows", () =>
      Effect.gen(function*() {
        yield* runMigrations
        const sql = yield* SqlClient.SqlClient
        const unlimited = "00000000-0000-4000-8000-000000000001"
        const limited = "00000000-0000-4000-8000-000000000002"
        yield* sql`INSERT INTO organizations (id, name, slug, tier, created_at, updated_at) VALUES
          (${unlimited}, 'Unlimited', 'unlimited', 'enterprise', now(), now()),
          (${limited}, 'Limited', 'limited', 'free', now(), now())`
        // As the rows stood before: sixteen rows for either, counting 7 and 5.
        yield* sql`INSERT INTO organization_subscriber_slots (organization_id, shard, used, allowance, quota)
          SELECT ${unlimited}::uuid, s, CASE WHEN s = 3 THEN 7 ELSE 0 END, NULL, NULL FROM generate_series(0, 15) AS s
          UNION ALL
          SELECT ${limited}::uuid, s, CASE WHEN s = 0 THEN 5 ELSE 0 END, 62, 1000 FROM generate_series(0, 15) AS s`
        // The migration itself, run again over rows as they stood before it.
        yield* unlimitedSubscriberSlots
        const slots = yield* sql<{ readonly organizationId: string; readonly rows: number; readonly used: number; readonly shards: number }>`
          SELECT organization_id AS "organizationId", count(*)::integer AS rows, sum(used)::integer AS used, max(shard)::integer + 1 AS shards
          FROM organization_subscriber_slots WHERE organization_id IN (${unlimited}, ${limited})
          GROUP BY organization_id ORDER BY organization_id`
        expect(slots).toStrictEqual([
          { organizationId: unlimited, rows: 128, used: 7, shards: 128 },
          { organizationId: limited, rows: 16, used: 5, shards: 16 }
        ])
      }))

    it.effect("events dispatched before the dispatch mark existed stay dispatched; those still waiting are claimed first", () =>
      Effect.gen(function*() {
        yield* runMigrations
        const sql = yield* SqlClient.SqlClient
        // The outbox as it stood before: a dispatched_at per event, no transaction ids, no mark.
        yield* sql`
          DROP TABLE outbox_dispatch_mark;
          DROP INDEX outbox_events_dispatch_order_idx;
          DROP INDEX outbox_events_occurred_idx;
          ALTER TABLE outbox_events DROP COLUMN xid, ADD COLUMN dispatched_at timestamptz;
          CREATE INDEX outbox_events_pending_idx ON outbox_events (position) WHERE dispatched_at IS NULL;
          CREATE INDEX outbox_events_dispatched_idx ON outbox_events (dispatched_at) WHERE dispatched_at IS NOT NULL`
        const event = (n: number, dispatched: boolean) =>
          sql`INSERT INTO outbox_events (id, organization_id, type, occurred_at, data, dispatched_at) VALUES (
            ${`00000000-0000-4000-8000-00000000000${n}`}, ${"00000000-0000-4000-8000-000000000000"}, 'tag.subscribed',
            now(), '{}', ${dispatched ? new Date() : null})`
        yield* event(1, true)
        yield* event(2, false)
        yield* event(3, true)
        yield* event(4, false)
        yield* outboxDispatchMark
        // One recorded after the change, by a transaction of its own.
        yield* sql`INSERT INTO outbox_events (id, organization_id, type, occurred_at, data) VALUES (
          ${"00000000-0000-4000-8000-000000000005"}, ${"00000000-0000-4000-8000-000000000000"}, 'tag.subscribed', now(), '{}')`
        const waiting = yield* sql<{ readonly id: string }>`
          SELECT e.id FROM outbox_dispatch_mark m JOIN outbox_events e ON (e.xid, e.position) > (m.xid, m.position)
          ORDER BY e.xid, e.position`
        expect(waiting.map((row) => row.id.slice(-1))).toStrictEqual(["2", "4", "5"])
      }))

    it.effect("a campaign's emails sent before get the first time of each kind their chart counts from their events", () =>
      Effect.gen(function*() {
        yield* runMigrations
        const sql = yield* SqlClient.SqlClient
        const id = (n: number) => `00000000-0000-4000-8000-0000000001${String(n).padStart(2, "0")}`
        // As the rows stood before: no first times kept, and the recipient index without the status.
        yield* sql`
          DROP TABLE message_first_events;
          DROP INDEX messages_campaign_recipient_unique;
          CREATE UNIQUE INDEX messages_campaign_recipient_unique ON messages (campaign_id, subscriber_id)
            WHERE campaign_id IS NOT NULL`
        yield* sql`INSERT INTO organizations (id, name, slug, tier, created_at, updated_at)
          VALUES (${id(0)}, 'Sent', 'sent-before', 'free', now(), now())`
        yield* sql`INSERT INTO subscribers (id, organization_id, email, email_key, status, created_at, updated_at)
          VALUES (${id(1)}, ${id(0)}, 'a@example.com', 'a@example.com', 'active', now(), now()),
                 (${id(2)}, ${id(0)}, 'b@example.com', 'b@example.com', 'active', now(), now())`
        yield* sql`INSERT INTO campaigns (id, organization_id, name, kind, status, created_at, updated_at)
          VALUES (${id(3)}, ${id(0)}, 'News', 'marketing', 'sent', now(), now())`
        // A campaign's email to each subscriber, and one email of no campaign.
        yield* sql`INSERT INTO messages (id, organization_id, subscriber_id, campaign_id, kind, to_address, from_header, subject,
                                         status, created_at, updated_at)
          VALUES (${id(4)}, ${id(0)}, ${id(1)}, ${id(3)}, 'marketing', 'a@example.com', 'x@example.com', 'News', 'clicked', now(), now()),
                 (${id(5)}, ${id(0)}, ${id(2)}, ${id(3)}, 'marketing', 'b@example.com', 'x@example.com', 'News', 'sent', now(), now()),
                 (${id(6)}, ${id(0)}, ${id(1)}, NULL, 'transactional', 'a@example.com', 'x@example.com', 'Hi', 'opened', now(), now())`
        yield* sql`INSERT INTO message_events (id, message_id, organization_id, type, occurred_at)
          VALUES (gen_random_uuid(), ${id(4)}, ${id(0)}, 'sent', '2025-01-01T10:00:00Z'),
                 (gen_random_uuid(), ${id(4)}, ${id(0)}, 'delivered', '2025-01-01T10:01:00Z'),
                 (gen_random_uuid(), ${id(4)}, ${id(0)}, 'opened', '2025-01-01T12:00:00Z'),
                 (gen_random_uuid(), ${id(4)}, ${id(0)}, 'opened', '2025-01-01T11:00:00Z'),
                 (gen_random_uuid(), ${id(4)}, ${id(0)}, 'clicked', '2025-01-01T11:05:00Z'),
                 (gen_random_uuid(), ${id(5)}, ${id(0)}, 'sent', '2025-01-01T10:00:00Z'),
                 (gen_random_uuid(), ${id(6)}, ${id(0)}, 'opened', '2025-01-01T10:30:00Z')`
        yield* campaignFirstEvents
        const firsts = yield* sql<{ readonly messageId: string; readonly type: string; readonly at: Date }>`
          SELECT message_id AS "messageId", type, occurred_at AS at FROM message_first_events
          WHERE campaign_id = ${id(3)} ORDER BY message_id, type`
        expect(firsts.map((row) => [row.messageId, row.type, row.at.toISOString()])).toStrictEqual([
          [id(4), "clicked", "2025-01-01T11:05:00.000Z"],
          [id(4), "delivered", "2025-01-01T10:01:00.000Z"],
          [id(4), "opened", "2025-01-01T11:00:00.000Z"]
        ])
        // The email goes, and its first times with it.
        yield* sql`DELETE FROM messages WHERE id = ${id(4)}`
        expect(yield* sql`SELECT message_id FROM message_first_events`).toStrictEqual([])
        expect(yield* indexedColumns(["message_first_events_campaign_idx", "messages_campaign_recipient_unique"])).toStrictEqual([
          { name: "message_first_events_campaign_idx", columns: "campaign_id,type,occurred_at" },
          { name: "messages_campaign_recipient_unique", columns: "campaign_id,subscriber_id,status" }
        ])
      }))

    it.effect("a single send's stored creation event becomes the status it was made in; its other events and a campaign's stay", () =>
      Effect.gen(function*() {
        yield* runMigrations
        const sql = yield* SqlClient.SqlClient
        const id = (n: number) => `00000000-0000-4000-8000-0000000002${String(n).padStart(2, "0")}`
        const made = "2025-02-01T09:00:00.000Z"
        // As the rows stood before: each single send's first event a row of its own.
        yield* sql`ALTER TABLE messages DROP COLUMN created_as`
        yield* sql`INSERT INTO organizations (id, name, slug, tier, created_at, updated_at)
          VALUES (${id(0)}, 'Made', 'made-before', 'free', now(), now())`
        yield* sql`INSERT INTO subscribers (id, organization_id, email, email_key, status, created_at, updated_at)
          VALUES (${id(1)}, ${id(0)}, 'a@example.com', 'a@example.com', 'active', now(), now())`
        yield* sql`INSERT INTO campaigns (id, organization_id, name, kind, status, created_at, updated_at)
          VALUES (${id(2)}, ${id(0)}, 'News', 'marketing', 'sent', now(), now())`
        // A single send queued and then sent, one held when made, and a campaign's email.
        yield* sql`INSERT INTO messages (id, organization_id, subscriber_id, campaign_id, kind, to_address, from_header, subject,
                                         status, error, created_at, updated_at)
          VALUES (${id(3)}, ${id(0)}, ${id(1)}, NULL, 'transactional', 'a@example.com', 'x@example.com', 'Hi', 'sent', NULL,
                  ${made}, ${made}),
                 (${id(4)}, ${id(0)}, ${id(1)}, NULL, 'marketing', 'a@example.com', 'x@example.com', 'Hi', 'suppressed',
                  'unsubscribed', ${made}, ${made}),
                 (${id(5)}, ${id(0)}, ${id(1)}, ${id(2)}, 'marketing', 'a@example.com', 'x@example.com', 'News', 'sent', NULL,
                  ${made}, ${made})`
        yield* sql`INSERT INTO message_events (id, message_id, organization_id, type, occurred_at, detail)
          VALUES (${id(10)}, ${id(3)}, ${id(0)}, 'queued', ${made}, NULL),
                 (${id(11)}, ${id(3)}, ${id(0)}, 'sent', '2025-02-01T09:00:01Z', NULL),
                 (${id(12)}, ${id(4)}, ${id(0)}, 'suppressed', ${made}, 'unsubscribed'),
                 (${id(13)}, ${id(5)}, ${id(0)}, 'sent', ${made}, NULL)`
        yield* messageCreation
        const messages = yield* sql<{ readonly id: string; readonly createdAs: string | null }>`
          SELECT id, created_as AS "createdAs" FROM messages WHERE organization_id = ${id(0)} ORDER BY id`
        expect(messages.map((row) => [row.id, row.createdAs])).toStrictEqual([[id(3), "queued"], [id(4), "suppressed"], [id(5), null]])
        const events = yield* sql<{ readonly id: string }>`
          SELECT id FROM message_events WHERE organization_id = ${id(0)} ORDER BY id`
        expect(events.map((row) => row.id)).toStrictEqual([id(11), id(13)])
      }))

    it.effect("subscribers are indexed by their email key alone, for a provider's report about an address in every organization", () =>
      Effect.gen(function*() {
        yield* runMigrations
        expect(yield* indexedColumns(["subscribers_email_key_idx"])).toStrictEqual([
          { name: "subscribers_email_key_idx", columns: "email_key" }
        ])
      }))

    it.effect("segments' filters read metadata dates as the domain does: a day that does not exist is no date, never an error", () =>
      Effect.gen(function*() {
        yield* runMigrations
        const sql = yield* SqlClient.SqlClient
        const texts = ["2024-02-29", "2025-02-29", "2025-01-01T10:00:00.5-02:30", "2025-01-01T24:00:00Z", "2025-01-01T10:00:00", "soon"]
        const rows = yield* sql<{ readonly value: string; readonly at: Date | null }>`
          SELECT t.value, segment_instant(t.value) AS at FROM unnest(${texts}::text[]) WITH ORDINALITY AS t(value, n) ORDER BY t.n`
        expect(rows.map((row) => row.at?.toISOString() ?? null))
          .toStrictEqual(texts.map((text) => instantOf(text)?.toISOString() ?? null))
        expect(yield* indexedColumns(["subscribers_metadata_idx", "message_events_engagement_idx"])).toStrictEqual([
          { name: "message_events_engagement_idx", columns: "organization_id,type,occurred_at,message_id" },
          { name: "subscribers_metadata_idx", columns: "metadata" }
        ])
      }))

    it.effect("tags made before visibility existed are public; a visibility other than public or private is refused", () =>
      Effect.gen(function*() {
        yield* runMigrations
        const sql = yield* SqlClient.SqlClient
        const organization = "00000000-0000-4000-8000-000000000003"
        yield* sql`INSERT INTO organizations (id, name, slug, tier, created_at, updated_at)
          VALUES (${organization}, 'Tagged', 'tagged', 'free', now(), now())`
        yield* sql`INSERT INTO tags (id, organization_id, name, name_key, slug, created_at, updated_at)
          VALUES ('00000000-0000-4000-8000-000000000004', ${organization}, 'News', 'news', 'news', now(), now())`
        expect(yield* sql`SELECT visibility FROM tags WHERE organization_id = ${organization}`).toStrictEqual([
          { visibility: "public" }
        ])
        const refused = yield* Effect.flip(sql`UPDATE tags SET visibility = 'hidden' WHERE organization_id = ${organization}`)
        expect(String(refused.cause)).toContain("tags_visibility_check")
        expect(yield* indexedColumns(["tags_public_name_idx"])).toStrictEqual([
          { name: "tags_public_name_idx", columns: "organization_id,name_key,id" }
        ])
      }))

    it.effect("tags are indexed by organization and category, the order a category list walks", () =>
      Effect.gen(function*() {
        yield* runMigrations
        expect(yield* indexedColumns(["tags_category_idx"])).toStrictEqual([
          { name: "tags_category_idx", columns: "organization_id,category,id" }
        ])
      }))

    it.effect("imports are indexed in the order the claimer, the newest-first list and the problem retention walk", () =>
      Effect.gen(function*() {
        yield* runMigrations
        expect(
          yield* indexedColumns(["import_jobs_claim_idx", "import_jobs_list_idx", "import_jobs_problems_kept_idx", "import_jobs_receiving_idx"])
        ).toStrictEqual([
          { name: "import_jobs_claim_idx", columns: "created_at,id" },
          { name: "import_jobs_list_idx", columns: "organization_id,created_at,id" },
          { name: "import_jobs_problems_kept_idx", columns: "finished_at" },
          { name: "import_jobs_receiving_idx", columns: "updated_at" }
        ])
      }))

    it.effect("webhook deliveries are no tests unless marked; a test delivery is never pending and keeps its body", () =>
      Effect.gen(function*() {
        yield* runMigrations
        const sql = yield* SqlClient.SqlClient
        const organization = "00000000-0000-4000-8000-000000000005"
        const endpoint = "00000000-0000-4000-8000-000000000006"
        yield* sql`INSERT INTO organizations (id, name, slug, tier, created_at, updated_at)
          VALUES (${organization}, 'Hooked', 'hooked', 'free', now(), now())`
        yield* sql`INSERT INTO webhook_endpoints (id, organization_id, url, events, status, signing_secret, created_at, updated_at)
          VALUES (${endpoint}, ${organization}, 'https://example.com/hooks', '{}', 'active', 'whsec_x', now(), now())`
        const delivery = (id: string, columns: { readonly status: string; readonly test?: boolean; readonly body?: string | null }) =>
          sql`INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type, status, attempt_count,
              created_at, updated_at ${columns.test === undefined ? sql`` : sql`, test, test_body`})
            VALUES (${id}, ${organization}, ${endpoint}, ${id}, 'subscriber.created', ${columns.status}, 0, now(), now()
              ${columns.test === undefined ? sql`` : sql`, ${columns.test}, ${columns.body ?? null}`})`
        yield* delivery("00000000-0000-4000-8000-000000000007", { status: "pending" })
        expect(yield* sql`SELECT test, test_body FROM webhook_deliveries WHERE endpoint_id = ${endpoint}`).toStrictEqual([
          { test: false, test_body: null }
        ])
        yield* delivery("00000000-0000-4000-8000-000000000008", { status: "failed", test: true, body: "{}" })
        for (
          const refused of [
            delivery("00000000-0000-4000-8000-000000000009", { status: "pending", test: true, body: "{}" }),
            delivery("00000000-0000-4000-8000-00000000000a", { status: "succeeded", test: true, body: null })
          ]
        ) {
          expect(String((yield* Effect.flip(refused)).cause)).toContain("webhook_deliveries_test_check")
        }
      }))

    it.effect("webhook deliveries are indexed in the order the claimer and the newest-first list walk", () =>
      Effect.gen(function*() {
        yield* runMigrations
        expect(
          yield* indexedColumns([
            "webhook_deliveries_due_idx",
            "webhook_deliveries_endpoint_idx",
            "webhook_attempts_endpoint_idx",
            "webhook_attempts_organization_idx"
          ])
        ).toStrictEqual([
          { name: "webhook_attempts_endpoint_idx", columns: "endpoint_id,attempted_at" },
          { name: "webhook_attempts_organization_idx", columns: "organization_id,attempted_at" },
          { name: "webhook_deliveries_due_idx", columns: "next_attempt_at,id" },
          { name: "webhook_deliveries_endpoint_idx", columns: "endpoint_id,id" }
        ])
      }))
  })

  describe.skipIf(!postgres.available)(postgres.label, () => {
    layer(makePgClient(Redacted.make(postgres.url ?? "")))((it) => {
      it.effect("runs started together apply each migration once, and a later run applies nothing", () =>
        Effect.gen(function*() {
          const runs = yield* Effect.all([runMigrations, runMigrations, runMigrations], { concurrency: "unbounded" })
          expect(runs.flat().filter(([id]) => id === 1).length).toBeLessThanOrEqual(1)
          expect(yield* runMigrations).toStrictEqual([])
          expect(yield* tables).toContain("subscribers")
        }))
    })
  })
})
