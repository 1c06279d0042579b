import { Effect, FiberRef } from "effect"
import { isGeneratorFunction } from "effect/Utils"

/**
 * Names one operation of a use case (`operation("Subscribers.create")(function*() { ... })`), as
 * `Effect.fn(name)` does: each call runs in a span of that name, under the request's span and
 * above the queries'. The body may also be a plain function returning an effect.
 */
export interface Operation extends Effect.fn.Untraced {
  <Args extends Array<unknown>, A, E, R>(body: (...args: Args) => Effect.Effect<A, E, R>): (...args: Args) => Effect.Effect<A, E, R>
}

const traced = (name: string): Operation => Effect.fn(name) as Operation

/** The body as it is: a generator as `Effect.fnUntraced` runs it, a plain function itself. */
const untraced: Operation = ((body: (...args: Array<never>) => unknown, ...pipeables: Array<unknown>) =>
  isGeneratorFunction(body)
    ? (Effect.fnUntraced as (...args: Array<unknown>) => unknown)(body, ...pipeables)
    : body) as Operation

/**
 * How a use case names its operations, read once when the use case is made: `Effect.fn` where the
 * tracer is on, else the bodies untraced. With the tracer off (`Layer.setTracerEnabled(false)` at
 * a process's root) `Effect.fn` would still capture its call site and make a no-op span on every
 * call; this makes neither.
 */
export const operations: Effect.Effect<(name: string) => Operation> = Effect.map(
  FiberRef.get(FiberRef.currentTracerEnabled),
  (enabled) => enabled ? traced : () => untraced
)
