import { Context, type Effect } from "effect"

/**
 * One transaction around several repositories: everything inside commits together or not at
 * all. A failure, defect or interruption rolls back. Nested calls join the outer transaction.
 */
export class UnitOfWork extends Context.Tag("roster/UnitOfWork")<UnitOfWork, {
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>() {}
