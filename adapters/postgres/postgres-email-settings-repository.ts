import * as SqlClient from "@effect/sql/SqlClient"
import { EmailSettingsRepository } from "@roster/application"
import { EmailSettings } from "@roster/domain"
import { Effect, Layer } from "effect"
import { decodeFirst } from "./rows.js"

const decodeSettings = decodeFirst(EmailSettings)

/** One row per organization that changed its settings; an organization without one has the defaults. */
export const PostgresEmailSettingsRepositoryLive = Layer.effect(
  EmailSettingsRepository,
  Effect.map(SqlClient.SqlClient, (sql) =>
    EmailSettingsRepository.of({
      find: (organizationId) =>
        sql`
          SELECT organization_id, from_name, from_address, updated_at FROM email_settings
          WHERE organization_id = ${organizationId}`.pipe(Effect.flatMap(decodeSettings), Effect.orDie),
      save: (settings) =>
        sql`
          INSERT INTO email_settings (organization_id, from_name, from_address, updated_at)
          SELECT ${settings.organizationId}, ${settings.fromName}, ${settings.fromAddress}, ${settings.updatedAt}
          WHERE EXISTS (SELECT 1 FROM organizations WHERE id = ${settings.organizationId})
          ON CONFLICT (organization_id) DO UPDATE SET
            from_name = excluded.from_name, from_address = excluded.from_address, updated_at = excluded.updated_at`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    })))
