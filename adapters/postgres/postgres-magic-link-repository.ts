import * as SqlClient from "@effect/sql/SqlClient"
import { MagicLinkRepository } from "@roster/application"
import { MagicLink } from "@roster/domain"
import { Effect, Layer } from "effect"
import { magicLinkColumns, selectList } from "./columns.js"
import { decodeFirst } from "./rows.js"

const decodeMagicLink = decodeFirst(MagicLink)

export const PostgresMagicLinkRepositoryLive = Layer.effect(
  MagicLinkRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = selectList(sql, magicLinkColumns)

    return MagicLinkRepository.of({
      insert: (link) =>
        sql`
          INSERT INTO magic_links (token_hash, email, locale, created_at, expires_at, consumed_at)
          VALUES (
            ${link.tokenHash}, ${link.email}, ${link.locale}, ${link.createdAt}, ${link.expiresAt}, ${link.consumedAt}
          )`.pipe(Effect.asVoid, Effect.orDie),

      // One conditional update: concurrent consumers queue on the row, and once the first has
      // marked it, the condition no longer holds for the others, so exactly one gets the link.
      consume: (tokenHash, now) =>
        sql`
          UPDATE magic_links SET consumed_at = ${now}
          WHERE token_hash = ${tokenHash} AND consumed_at IS NULL AND expires_at > ${now}
          RETURNING ${columns}`.pipe(Effect.flatMap(decodeMagicLink), Effect.orDie),

      findByHash: (tokenHash) =>
        sql`SELECT ${columns} FROM magic_links WHERE token_hash = ${tokenHash}`.pipe(
          Effect.flatMap(decodeMagicLink),
          Effect.orDie
        )
    })
  })
)
