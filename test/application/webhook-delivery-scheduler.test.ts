import { describe, expect, it } from "@effect/vitest"
import {
  type DeliverySchedule,
  DeliverySlots,
  WebhookDeliveryScheduler,
  WebhookDispatch,
  Webhooks
} from "@roster/application"
import { WebhookEndpointId } from "@roster/domain"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Scope, TestClock } from "effect"
import { answered, deliveriesOf, gatedReceiver, openOrganization, register, subscribe } from "./test-kit.js"

const schedule: DeliverySchedule = { maxInFlight: 10, endpointInFlight: 3, claimBatch: 4, leaseMs: 30_000, recheckMs: 250 }

const endpointA = WebhookEndpointId.make("a0000000-0000-7000-8000-000000000000")
const endpointB = WebhookEndpointId.make("b0000000-0000-7000-8000-000000000000")

const { claimed, deliveriesMade, empty: emptySlots, planClaim, sendEnded } = DeliverySlots

/** A claim planned at `at` from `slots`, which must be a claim. */
const claimAt = (slots: DeliverySlots, at: number) => {
  const plan = planClaim(slots, schedule, at)
  if (plan._tag !== "Claim") throw new Error(`expected a claim at ${at}, got ${plan._tag}`)
  return plan
}

describe("planning a claim", () => {
  it("asks for a batch of free slots when nothing is in flight, passing over no endpoint", () => {
    expect(planClaim(emptySlots, schedule, 0)).toEqual({ _tag: "Claim", limit: 4, skipEndpoints: [], skipped: "", made: 0 })
  })

  it("waits while sends are in flight until a whole batch of slots is free, then takes no more than are free", () => {
    const plan = claimAt(emptySlots, 0)
    const eight = claimed(claimed(emptySlots, plan, 0, [endpointA, endpointA, endpointB, endpointB]), plan, 0, [
      endpointB,
      endpointB,
      endpointA,
      endpointB
    ])
    expect(eight.inFlight).toBe(8)
    expect(planClaim(eight, schedule, 0)).toEqual({ _tag: "Hold" })
    const three = [endpointA, endpointA, endpointA, endpointB, endpointB].reduce(sendEnded, eight)
    expect(three.inFlight).toBe(3)
    expect(claimAt(three, 0).limit).toBe(4)
    const full = { ...schedule, maxInFlight: 6 }
    expect(planClaim(three, full, 0)).toEqual({ _tag: "Hold" })
  })

  it("passes over endpoints with their share in flight, and stops once a send to them ends", () => {
    const plan = claimAt(emptySlots, 0)
    const busy = claimed(emptySlots, plan, 0, [endpointB, endpointB, endpointB, endpointA])
    const whole = { ...schedule, claimBatch: 1 }
    expect(planClaim(busy, whole, 0)).toMatchObject({ _tag: "Claim", skipEndpoints: [endpointB] })
    expect(planClaim(sendEnded(busy, endpointB), whole, 0)).toMatchObject({ _tag: "Claim", skipEndpoints: [] })
    expect(sendEnded(sendEnded(busy, endpointA), endpointB)).toMatchObject({ inFlight: 2 })
  })

  it("after a claim that came back short holds until the recheck time passes, fan-out made deliveries, or a busy endpoint has room", () => {
    const whole = { ...schedule, claimBatch: 1 }
    const busy = claimed(emptySlots, claimAt(emptySlots, 0), 0, [endpointB, endpointB, endpointB])
    const plan = planClaim(busy, whole, 100)
    if (plan._tag !== "Claim") throw new Error("expected a claim")
    const short = claimed(busy, plan, 100, [])
    expect(short.lastShort).toEqual({ at: 100, skipped: endpointB, made: 0 })

    expect(planClaim(short, whole, 349)).toEqual({ _tag: "Hold" })
    expect(planClaim(short, whole, 350)._tag).toBe("Claim")
    expect(planClaim(deliveriesMade(short), whole, 101)._tag).toBe("Claim")
    expect(planClaim(sendEnded(short, endpointB), whole, 101)._tag).toBe("Claim")
  })

  it("a full claim is not remembered as short", () => {
    const plan = claimAt(emptySlots, 0)
    expect(claimed(emptySlots, plan, 0, [endpointA, endpointA, endpointA, endpointB]).lastShort).toBeUndefined()
  })
})

/** The scheduler over the use cases in memory, in a scope of its own that the test may close. */
const startScheduler = Effect.gen(function*() {
  const scope = yield* Scope.make()
  const context = yield* Layer.buildWithScope(WebhookDeliveryScheduler.Default, scope)
  return { scheduler: Context.get(context, WebhookDeliveryScheduler), scope }
})

/** Whether `effect` has completed after the fibers that may complete it have run. */
const hasCompleted = <A>(fiber: Fiber.RuntimeFiber<A>) =>
  Effect.map(Effect.zipRight(Effect.yieldNow().pipe(Effect.repeatN(20)), Effect.sync(() => fiber.unsafePoll())), (exit) => exit !== null)

describe("the webhook delivery scheduler", () => {
  it.effect("starts the sends it claims without waiting for them, and a send that ends frees its slot and wakes it", () => {
    const { gates, ...receiver } = gatedReceiver()
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* register(principal)
      yield* subscribe(principal, "ada@example.com")
      yield* subscribe(principal, "grace@example.com")
      const { scheduler } = yield* startScheduler
      const woken = yield* Effect.fork(scheduler.wake)

      expect((yield* scheduler.fanOut(100)).deliveries).toBe(2)
      expect(yield* hasCompleted(woken)).toBe(true)
      expect(yield* scheduler.sendDue(schedule)).toBe(2)
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      expect(gates).toHaveLength(2)
      expect(yield* scheduler.inFlight).toBe(2)

      const nextWake = yield* Effect.fork(scheduler.wake)
      expect(yield* hasCompleted(nextWake)).toBe(false)
      yield* Deferred.succeed(gates[0]!, answered(200))
      expect(yield* hasCompleted(nextWake)).toBe(true)
      expect(yield* scheduler.inFlight).toBe(1)
      yield* Deferred.succeed(gates[1]!, answered(200))
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      expect(yield* scheduler.inFlight).toBe(0)
      const history = yield* deliveriesOf(principal, endpoint)
      expect(history.map(({ delivery }) => delivery.status)).toEqual(["succeeded", "succeeded"])
    }))
  })

  it.effect("passes over an endpoint with its share in flight and sends the others' deliveries", () => {
    const { gates, ...receiver } = gatedReceiver()
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const webhooks = yield* Webhooks
      const first = yield* webhooks.create(principal, { url: "https://first.example.com/hook" })
      for (let i = 0; i < 3; i++) yield* subscribe(principal, `reader-${i}@example.com`)
      const { scheduler } = yield* startScheduler
      yield* scheduler.fanOut(100)
      const second = yield* webhooks.create(principal, { url: "https://second.example.com/hook" })
      yield* subscribe(principal, "late@example.com")
      yield* scheduler.fanOut(100)

      const oneAtATime = { ...schedule, claimBatch: 1, endpointInFlight: 2 }
      const started = []
      for (let i = 0; i < 4; i++) started.push(yield* scheduler.sendDue(oneAtATime))
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      // Two to the first endpoint (its share), then the second's; the first's others wait.
      expect(started).toEqual([1, 1, 1, 0])
      expect(gates).toHaveLength(3)
      expect((yield* deliveriesOf(principal, second)).map(({ attempts }) => attempts.length)).toEqual([0])
      for (const gate of gates) yield* Deferred.succeed(gate, answered(200))
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      expect((yield* deliveriesOf(principal, second)).map(({ delivery }) => delivery.status)).toEqual(["succeeded"])
      const toFirst = yield* deliveriesOf(principal, first)
      expect(toFirst.filter(({ delivery }) => delivery.status === "succeeded")).toHaveLength(2)
      expect(toFirst.filter(({ delivery }) => delivery.status === "pending")).toHaveLength(2)
    }))
  })

  it.effect("a claim that came back short is not repeated for deliveries made elsewhere until the recheck time passes", () => {
    const { gates, ...receiver } = gatedReceiver()
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      yield* register(principal)
      const { scheduler } = yield* startScheduler
      expect(yield* scheduler.sendDue(schedule)).toBe(0)

      // Another worker's fan-out: this scheduler does not hear of it.
      yield* subscribe(principal, "ada@example.com")
      yield* Effect.flatMap(WebhookDispatch, (dispatch) => dispatch.fanOut(100))
      expect(yield* scheduler.sendDue(schedule)).toBe(0)
      yield* TestClock.adjust(schedule.recheckMs - 1)
      expect(yield* scheduler.sendDue(schedule)).toBe(0)
      yield* TestClock.adjust(1)
      expect(yield* scheduler.sendDue(schedule)).toBe(1)
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      expect(gates).toHaveLength(1)
      yield* Deferred.succeed(gates[0]!, answered(200))
    }))
  })

  it.effect("a fan-out through the scheduler makes the next claim worth asking at once", () => {
    const { gates, ...receiver } = gatedReceiver()
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      yield* register(principal)
      const { scheduler } = yield* startScheduler
      expect(yield* scheduler.sendDue(schedule)).toBe(0)
      yield* subscribe(principal, "ada@example.com")
      expect(yield* scheduler.fanOut(100)).toEqual({ events: 1, deliveries: 1 })
      expect(yield* scheduler.sendDue(schedule)).toBe(1)
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      yield* Deferred.succeed(gates[0]!, answered(200))
    }))
  })

  it.effect("released, it waits for the sends in flight and records them", () => {
    const { gates, ...receiver } = gatedReceiver()
    return receiver.run(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const endpoint = yield* register(principal)
      yield* subscribe(principal, "ada@example.com")
      const { scheduler, scope } = yield* startScheduler
      yield* scheduler.fanOut(100)
      expect(yield* scheduler.sendDue(schedule)).toBe(1)
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      expect(gates).toHaveLength(1)

      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      expect(yield* hasCompleted(closing)).toBe(false)
      yield* Deferred.succeed(gates[0]!, answered(200))
      yield* Fiber.join(closing)
      const [history] = yield* deliveriesOf(principal, endpoint)
      expect(history!.delivery.status).toBe("succeeded")
    }))
  })
})
