import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer } from "@effect/vitest"
import { ImportJobRepository } from "@roster/application"
import { reason } from "@roster/domain"
import { Effect, type Layer, Option } from "effect"
import { deletingAfterwards, givenImportJob, givenOrganization, type Persistence } from "../contract/fixtures.js"

/**
 * Problem rows and failures an import kept before they carried a reason (their English words
 * alone) are read back with those words as their reason, so that every screen can show them.
 */
export const importProblemsBeforeReasons = (persistence: Layer.Layer<Persistence | SqlClient.SqlClient, unknown>) => {
  layer(persistence)("import problems kept before reasons", (it) => {
    it.effect("read back with their English words as the reason", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const job = yield* givenImportJob(organization.id, { status: "failed", problemCount: 1 })
          yield* sql`
            UPDATE import_jobs
            SET problems = '[{"line":2,"field":"email","problem":"is empty","email":"ada@example.com"}]'::jsonb,
                failure = '{"line":9,"problem":"a quoted cell starts on this line and is never closed"}'::jsonb
            WHERE id = ${job.id}`
          const read = Option.getOrThrow(yield* (yield* ImportJobRepository).find(organization.id, job.id))
          expect(read.problems).toStrictEqual([{
            line: 2,
            field: "email",
            problem: "is empty",
            email: "ada@example.com",
            reason: reason("foreign", { text: "is empty" })
          }])
          expect(read.failure).toStrictEqual({
            line: 9,
            problem: "a quoted cell starts on this line and is never closed",
            reason: reason("foreign", { text: "a quoted cell starts on this line and is never closed" })
          })
        }).pipe(deletingAfterwards([organization.id]))
      }).pipe(Effect.orDie))
  })
}
