import { makeWakeUp, WorkSignal } from "@roster/application"
import { Effect, Layer } from "effect"

/** Work signals within this process: the api and the worker of `npm start`, or a test. */
export const InProcessWorkSignalLive = Layer.effect(
  WorkSignal,
  Effect.map(makeWakeUp, (queued) => WorkSignal.of({ emailQueued: queued.notify, awaitEmailQueued: queued.wait }))
)
