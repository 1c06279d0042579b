import { describe, expect, it } from "@effect/vitest"
import { Webhooks } from "@roster/application"
import type { SendResult } from "@roster/domain"
import { Deferred, Effect, Exit, Fiber, Layer, Scope, TestClock } from "effect"
import { WorkerSettings } from "../../apps/worker/settings.js"
import { WebhookJobsLive } from "../../apps/worker/webhook-jobs.js"
import { answered, deliveriesOf, gatedReceiver, openOrganization, register, subscribe, withReceiver } from "../application/test-kit.js"

/**
 * The worker's webhook jobs as the worker runs them, over the use cases in memory and a transport
 * that answers as each test says.
 */

describe("the worker's delivery job", () => {
  /** Runs the worker's webhook jobs in the background of the current scope. */
  const startWorker = (overrides: Partial<typeof WorkerSettings.Service> = {}) =>
    Effect.flatMap(Effect.scope, (scope) =>
      Layer.buildWithScope(
        WebhookJobsLive.pipe(Layer.provide(Layer.succeed(WorkerSettings, {
          ...WorkerSettings.defaultValue(),
          maxInFlight: 20,
          endpointInFlight: 3,
          claimBatch: 10,
          ...overrides
        }))),
        scope
      ))

  const settle = Effect.zipRight(TestClock.adjust("1 second"), Effect.yieldNow().pipe(Effect.repeatN(50)))

  it.scoped("an endpoint that does not answer holds only its share of sends; the others' deliveries go out", () => {
    const gates: Array<Deferred.Deferred<SendResult>> = []
    const receiver = withReceiver((message) =>
      message.url.includes("slow")
        ? Effect.flatMap(Deferred.make<SendResult>(), (gate) => {
          gates.push(gate)
          return Deferred.await(gate)
        })
        : answered(200)
    )
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      const slow = yield* webhooks.create(principal, { url: "https://slow.example.com/hook" })
      const fast = yield* webhooks.create(principal, { url: "https://fast.example.com/hook" })
      for (let i = 0; i < 10; i++) yield* subscribe(principal, `reader-${i}@example.com`)
      // One delivery a claim, so the slow endpoint stops at exactly its share.
      yield* startWorker({ claimBatch: 1 })
      for (let i = 0; i < 10; i++) yield* settle

      const toFast = yield* deliveriesOf(principal, fast)
      expect(toFast.map(({ delivery }) => delivery.status)).toEqual(Array(10).fill("succeeded"))
      expect(gates).toHaveLength(3)

      for (const gate of gates) yield* Deferred.succeed(gate, answered(200))
      for (let round = 0; round < 10 && gates.length < 10; round++) {
        yield* settle
        for (const gate of gates) yield* Deferred.succeed(gate, answered(200))
      }
      for (let i = 0; i < 5; i++) yield* settle
      const toSlow = yield* deliveriesOf(principal, slow)
      expect(toSlow.map(({ delivery }) => delivery.status)).toEqual(Array(10).fill("succeeded"))
      expect(toSlow.every(({ attempts }) => attempts.length === 1)).toBe(true)
    }))
  })

  it.effect("a worker told to stop waits for its sends in flight, and records them", () => {
    const { gates, ...receiver } = gatedReceiver()
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* register(principal)
      yield* subscribe(principal, "ada@example.com")
      const scope = yield* Scope.make()
      yield* Scope.extend(startWorker(), scope)
      yield* settle
      expect(gates).toHaveLength(1)

      const stopping = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* Effect.yieldNow().pipe(Effect.repeatN(50))
      expect(stopping.unsafePoll()).toBeNull()
      yield* Deferred.succeed(gates[0]!, answered(200))
      yield* Fiber.join(stopping)
      const [history] = yield* deliveriesOf(principal, endpoint)
      expect(history!.delivery.status).toBe("succeeded")
    }))
  })
})
