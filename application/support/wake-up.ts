import { Deferred, Effect, Ref } from "effect"

/**
 * A signal to a job's lanes that work may be waiting: `notify` ends every pause waiting on
 * `wait`. A signal given while no one waits is kept, so the next `wait` returns at once: work
 * that came during a batch is not left for the end of the pause.
 */
export interface WakeUp {
  readonly notify: Effect.Effect<void>
  readonly wait: Effect.Effect<void>
}

export const makeWakeUp: Effect.Effect<WakeUp> = Effect.gen(function*() {
  const state = yield* Ref.make({ signalled: false, waiters: yield* Deferred.make<void>() })
  return {
    notify: Effect.flatMap(Deferred.make<void>(), (next) =>
      Effect.flatMap(
        Ref.getAndSet(state, { signalled: true, waiters: next }),
        ({ waiters }) => Deferred.succeed(waiters, undefined)
      )),
    wait: Effect.flatMap(
      Ref.modify(state, (current) => [current, { ...current, signalled: false }]),
      ({ signalled, waiters }) => signalled ? Effect.void : Deferred.await(waiters)
    )
  }
})
