import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Tracer } from "effect"
import { operations } from "../../application/support/operation.js"
import { Subscribers } from "@roster/application"
import { email, openOrganization, UseCasesInMemory } from "./test-kit.js"

/** The span a body runs in, by name, or none. */
const spanName = Effect.map(Effect.option(Effect.currentSpan), Option.map((span) => span.name))

/** A tracer that keeps the name of every span it is asked for, beside Effect's own. */
const recordingTracer = () => {
  const names: Array<string> = []
  return {
    names,
    layer: Layer.unwrapEffect(Effect.map(Effect.tracer, (inner) =>
      Layer.setTracer(Tracer.make({
        span: (name, ...rest) => {
          names.push(name)
          return inner.span(name, ...rest)
        },
        context: inner.context
      }))))
  }
}

describe("named operations", () => {
  it.effect("with the tracer on, an operation runs in a span of its name", () =>
    Effect.gen(function*() {
      const operation = yield* operations
      const generator = operation("Things.make")(function*(n: number) {
        return [n, yield* spanName] as const
      })
      const plain = operation("Things.read")((n: number) => Effect.map(spanName, (name) => [n, name] as const))
      expect(yield* generator(1)).toEqual([1, Option.some("Things.make")])
      expect(yield* plain(2)).toEqual([2, Option.some("Things.read")])
    }))

  it.effect("with the tracer off, an operation makes no span at all, not even a no-op one, and a plain body is itself", () =>
    Effect.gen(function*() {
      const operation = yield* operations
      const generator = operation("Things.make")(function*(n: number) {
        return [n, yield* spanName] as const
      })
      const body = (n: number) => Effect.map(spanName, (name) => [n, name] as const)
      const plain = operation("Things.read")(body)
      expect(plain).toBe(body)
      expect(yield* generator(1)).toEqual([1, Option.none()])
      expect(yield* plain(2)).toEqual([2, Option.none()])
    }).pipe(Effect.withTracerEnabled(false)))

  it.effect("use cases made with the tracer on name their spans; made with it off, they ask the tracer for none", () =>
    Effect.gen(function*() {
      const createAndRead = Effect.gen(function*() {
        const { principal } = yield* openOrganization()
        const subscribers = yield* Subscribers
        const created = yield* subscribers.create(principal, { email: email("ada@example.com") })
        yield* subscribers.get(principal, created.subscriber.id)
      })
      const on = recordingTracer()
      yield* createAndRead.pipe(Effect.provide(UseCasesInMemory), Effect.provide(on.layer))
      expect(on.names).toEqual(expect.arrayContaining(["Organizations.create", "ApiKeys.create", "Subscribers.create", "Subscribers.get"]))

      const off = recordingTracer()
      yield* createAndRead.pipe(Effect.provide(UseCasesInMemory), Effect.provide(Layer.merge(off.layer, Layer.setTracerEnabled(false))))
      expect(off.names).toEqual([])
    }))
})
