import { HttpServer } from "@effect/platform"
import { Effect, Layer } from "effect"
import { makeHttpServerLive } from "../../adapters/http/index.js"
import { readResendEvent } from "../../adapters/resend/index.js"
import { stripePaymentEvents } from "../../adapters/stripe/index.js"
import { applicationLayer } from "./application.js"
import { httpSettingsOf, type RosterConfig } from "./config.js"
import { loggerLayer, tracingOn } from "./layers.js"

/** The address a person can open: `localhost` for the wildcard addresses. */
export const reachableAddress = (address: HttpServer.Address): string =>
  address._tag === "UnixAddress"
    ? `unix:${address.path}`
    : `http://${["0.0.0.0", "::", "127.0.0.1"].includes(address.hostname) ? "localhost" : address.hostname}:${address.port}`

/**
 * The API server over the configured adapters. `announce` runs once it listens, with the address
 * a person can open. Provide `tracingLayer` around it.
 */
export const serverLayer = <E, R>(
  config: RosterConfig,
  announce: (url: string) => Effect.Effect<void, E, R>
) => {
  const announced = Layer.effectDiscard(
    Effect.flatMap(HttpServer.HttpServer, (server) => announce(reachableAddress(server.address)))
  )
  const http = makeHttpServerLive({
    form: config.apiForm,
    settings: httpSettingsOf(config),
    eventReaders: { payment: stripePaymentEvents, email: readResendEvent },
    port: config.port,
    host: config.host,
    directLane: config.directLane,
    traced: tracingOn(config)
  })
  // Data-first, as application.ts explains.
  const served = Layer.provideMerge(Layer.provideMerge(announced, http), applicationLayer(config))
  return Layer.provide(served, loggerLayer(config))
}
