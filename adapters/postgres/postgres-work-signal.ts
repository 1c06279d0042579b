import * as SqlClient from "@effect/sql/SqlClient"
import { PgClient } from "@effect/sql-pg"
import { makeWakeUp, WorkSignal } from "@roster/application"
import { Effect, Layer, Ref, Stream } from "effect"

const EMAIL_QUEUED = "roster_email_queued"

/**
 * Work signals between processes through PostgreSQL's LISTEN/NOTIFY: a send in any api process
 * wakes every worker at once. A process listens (on a connection of its own) only once it first
 * waits, so api processes hold no listening connection. A lost notification only delays work
 * until the worker's next look at the queue.
 */
export const PostgresWorkSignalLive = Layer.scoped(
  WorkSignal,
  Effect.gen(function*() {
    const pg = yield* PgClient.PgClient
    const sql = yield* SqlClient.SqlClient
    const queued = yield* makeWakeUp
    const scope = yield* Effect.scope
    const listening = yield* Ref.make(false)

    const listen = Effect.flatMap(Ref.getAndSet(listening, true), (already) =>
      already ? Effect.void : pg.listen(EMAIL_QUEUED).pipe(
        Stream.runForEach(() => queued.notify),
        Effect.tapErrorCause((cause) => Effect.logWarning("listening for queued email stopped", cause)),
        Effect.ignore,
        Effect.forkIn(scope),
        Effect.asVoid
      ))

    return WorkSignal.of({
      // pg_notify rather than the client's NOTIFY, which sends the payload as a parameter NOTIFY
      // does not take; listeners hear only notifications with a payload.
      emailQueued: sql`SELECT pg_notify(${EMAIL_QUEUED}, '1')`.pipe(
        Effect.tapError((error) => Effect.logWarning("could not signal queued email", error)),
        Effect.ignore
      ),
      awaitEmailQueued: Effect.zipRight(listen, queued.wait)
    })
  })
)
