import { ApiKeys, Onboarding, Organizations, Readiness, Subscribers, Tags } from "@roster/application"
import { Layer } from "effect"
import type { RosterConfig } from "./config.js"
import { cacheLayer, cryptoLayer, persistenceLayer } from "./layers.js"

/** Every use case over the adapters the configuration picks, the ports included. */
export const applicationLayer = (config: RosterConfig) => {
  const adapters = Layer.mergeAll(persistenceLayer(config, { migrate: config.migrate }), cacheLayer(config), cryptoLayer)
  const useCases = Layer.mergeAll(Subscribers.Default, Tags.Default, Organizations.Default, ApiKeys.Default, Readiness.Default)
    .pipe(Layer.provideMerge(adapters))
  return Onboarding.Default.pipe(Layer.provideMerge(useCases))
}
