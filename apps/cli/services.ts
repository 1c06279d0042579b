import { ApiKeys, Organizations, SubscriberExports, SubscriberImports, WorkerHealth } from "@roster/application"
import { Effect, Layer } from "effect"
import { loadConfig } from "../shared/config.js"
import { CsvParseReaderLive } from "../../adapters/csv/index.js"
import { CryptoLive } from "../../adapters/node/index.js"
import { limitsLayer, tracingLayer } from "../shared/layers.js"
import { persistenceLayer } from "../shared/persistence.js"

/** The use cases the CLI drives, over the database the configuration names, migrated first. */
const services = Effect.map(loadConfig, (config) =>
  Layer.mergeAll(Organizations.Default, ApiKeys.Default, WorkerHealth.Default, SubscriberExports.Default, SubscriberImports.Default).pipe(
    Layer.provideMerge(persistenceLayer(config, { migrate: true, lifetime: "command" })),
    Layer.provide(Layer.mergeAll(CryptoLive, CsvParseReaderLive, limitsLayer(config))),
    Layer.provide(tracingLayer(config, "roster-cli"))
  ))

/** Runs `effect` with the database open, closing it afterwards. */
export const withServices = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(services, (layer) => Effect.provide(effect, layer))
