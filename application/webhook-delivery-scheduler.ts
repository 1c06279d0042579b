import type { WebhookEndpointId } from "@roster/domain"
import { Clock, Effect, FiberSet, HashMap, Option, Ref } from "effect"
import { makeWakeUp } from "./support/wake-up.js"
import { type FanOutResult, WebhookDispatch } from "./webhook-dispatch.js"

/** How one worker sends webhook deliveries: how many at once, to one endpoint, and per claim. */
export interface DeliverySchedule {
  /** Sends in flight at once in this worker. */
  readonly maxInFlight: number
  /** Once this many sends to one endpoint are in flight, claims pass over it. */
  readonly endpointInFlight: number
  /** Deliveries leased by one claim at most. */
  readonly claimBatch: number
  /** How long claimed deliveries are held by this worker. */
  readonly leaseMs: number
  /** How long a claim that came back short is taken at its word, unless something changed. */
  readonly recheckMs: number
}

/**
 * What one worker has in flight, as plain data: sends in all and per endpoint, how many fan-outs
 * made deliveries so far, and the last claim that found less than it asked for (when, the
 * endpoints it passed over, and how many fan-outs had made deliveries by then).
 */
export interface DeliverySlots {
  readonly inFlight: number
  readonly perEndpoint: HashMap.HashMap<WebhookEndpointId, number>
  readonly made: number
  readonly lastShort: { readonly at: number; readonly skipped: string; readonly made: number } | undefined
}

const emptySlots: DeliverySlots = {
  inFlight: 0,
  perEndpoint: HashMap.empty(),
  made: 0,
  lastShort: undefined
}

/** What to do now: claim `limit` deliveries passing over `skipEndpoints`, or nothing. */
export type ClaimPlan =
  | {
    readonly _tag: "Claim"
    readonly limit: number
    readonly skipEndpoints: ReadonlyArray<WebhookEndpointId>
    /** The endpoints passed over, as one key, to tell whether the next claim would pass over the same. */
    readonly skipped: string
    /** Fan-outs that had made deliveries when the claim was planned. */
    readonly made: number
  }
  | { readonly _tag: "Hold" }

const hold: ClaimPlan = { _tag: "Hold" }

/**
 * Whether to claim at `at`, and how much. Free slots are claimed a batch at a time while sends
 * are in flight, not one by one as they end. Endpoints with `endpointInFlight` sends in flight are
 * passed over. After a claim that came back short, asking again is worth it only once one of the
 * busy endpoints has room, fan-out made deliveries, or `recheckMs` passed.
 */
const planClaim = (slots: DeliverySlots, schedule: DeliverySchedule, at: number): ClaimPlan => {
  const free = Math.min(schedule.maxInFlight - slots.inFlight, schedule.claimBatch)
  if (free <= 0 || (slots.inFlight > 0 && free < schedule.claimBatch)) return hold
  const skipEndpoints = [...HashMap.entries(slots.perEndpoint)]
    .filter(([, n]) => n >= schedule.endpointInFlight)
    .map(([id]) => id)
    .sort()
  const skipped = skipEndpoints.join()
  const last = slots.lastShort
  if (last !== undefined && last.skipped === skipped && last.made === slots.made && at - last.at < schedule.recheckMs) {
    return hold
  }
  return { _tag: "Claim", limit: free, skipEndpoints, skipped, made: slots.made }
}

/** The slots once a planned claim at `at` leased deliveries to `endpoints` (one entry per delivery) and started them. */
const claimed = (
  slots: DeliverySlots,
  plan: Extract<ClaimPlan, { _tag: "Claim" }>,
  at: number,
  endpoints: ReadonlyArray<WebhookEndpointId>
): DeliverySlots => ({
  inFlight: slots.inFlight + endpoints.length,
  perEndpoint: endpoints.reduce(
    (counts, id) => HashMap.modifyAt(counts, id, (n) => Option.some(Option.getOrElse(n, () => 0) + 1)),
    slots.perEndpoint
  ),
  made: slots.made,
  lastShort: endpoints.length < plan.limit ? { at, skipped: plan.skipped, made: plan.made } : undefined
})

/** The slots once a send to `endpointId` ended, however it ended. */
const sendEnded = (slots: DeliverySlots, endpointId: WebhookEndpointId): DeliverySlots => ({
  ...slots,
  inFlight: slots.inFlight - 1,
  perEndpoint: HashMap.modifyAt(slots.perEndpoint, endpointId, (n) => {
    const left = Option.getOrElse(n, () => 1) - 1
    return left > 0 ? Option.some(left) : Option.none()
  })
})

/** The slots once fan-out made deliveries: the next claim is worth making. */
const deliveriesMade = (slots: DeliverySlots): DeliverySlots => ({ ...slots, made: slots.made + 1 })

/** Slots as values: the empty ones, and each step of their life. */
export const DeliverySlots = { empty: emptySlots, planClaim, claimed, sendEnded, deliveriesMade } as const

/**
 * One worker's webhook sending: fan-out through it tells delivery of the deliveries it made, and
 * delivery keeps up to `maxInFlight` sends going at once, each on its own, so a slow send holds
 * only its own slot. Each `sendDue` leases as many due deliveries as there are free slots and
 * starts them; `wake` completes when a send ends or fan-out made deliveries. Sends are never
 * interrupted: releasing the scheduler waits for those in flight.
 */
export class WebhookDeliveryScheduler extends Effect.Service<WebhookDeliveryScheduler>()(
  "roster/WebhookDeliveryScheduler",
  {
    scoped: Effect.gen(function*() {
      const dispatch = yield* WebhookDispatch
      const slots = yield* Ref.make(emptySlots)
      const sends = yield* FiberSet.make()
      const made = yield* makeWakeUp
      const ended = yield* makeWakeUp

      /** Fan-out of up to `limit` events; when it made deliveries, delivery hears of it at once. */
      const fanOut = Effect.fn("WebhookDeliveryScheduler.fanOut")(function*(limit: number) {
        const result: FanOutResult = yield* dispatch.fanOut(limit)
        if (result.deliveries > 0) yield* Effect.zipRight(Ref.update(slots, deliveriesMade), made.notify)
        return result
      })

      const endSend = (endpointId: WebhookEndpointId) => Effect.zipRight(Ref.update(slots, (s) => sendEnded(s, endpointId)), ended.notify)

      /** Claims what free slots allow and starts each send in the background; how many it started. */
      const sendDue = Effect.fn("WebhookDeliveryScheduler.sendDue")(function*(schedule: DeliverySchedule) {
        const at = yield* Clock.currentTimeMillis
        const plan = planClaim(yield* Ref.get(slots), schedule, at)
        if (plan._tag === "Hold") return 0
        const { lease, leased } = yield* dispatch.claimDue({
          limit: plan.limit,
          leaseMs: schedule.leaseMs,
          skipEndpoints: plan.skipEndpoints
        })
        yield* Ref.update(slots, (s) => claimed(s, plan, at, leased.map((item) => item.endpoint.id)))
        if (leased.length > 0) {
          yield* FiberSet.run(
            sends,
            dispatch.attemptAll({ lease, leased }, (item) => endSend(item.endpoint.id)).pipe(Effect.uninterruptible)
          )
        }
        return leased.length
      }, Effect.uninterruptible)

      return {
        fanOut,
        sendDue,
        /** Completes when a send ended or fan-out made deliveries since the last wait. */
        wake: Effect.raceFirst(made.wait, ended.wait),
        /** The sends in flight now. */
        inFlight: Effect.map(Ref.get(slots), (s) => s.inFlight)
      } as const
    })
  }
) {}
