import { WorkSignal } from "@roster/application"
import { Effect, Layer } from "effect"
import { makeWakeUp } from "./wake-up.js"

/** Work signals within this process: the api and the worker of `npm start`, or a test. */
export const InProcessWorkSignalLive = Layer.effect(
  WorkSignal,
  Effect.map(makeWakeUp, (queued) => WorkSignal.of({ emailQueued: queued.notify, awaitEmailQueued: queued.wait }))
)
