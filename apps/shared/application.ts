import {
  Admin,
  ApiKeys,
  Auth,
  Idempotency,
  Onboarding,
  Organizations,
  RateLimits,
  Readiness,
  Subscribers,
  Tags,
  WebhookDispatch,
  Webhooks
} from "@roster/application"
import { Layer } from "effect"
import { MailerLive, TemplatedAuthMailLive } from "../../adapters/mail/index.js"
import { TokenSignerLive } from "../../adapters/tokens/index.js"
import type { RosterConfig } from "./config.js"
import { cacheLayer, cryptoLayer, persistenceLayer, webhookTransportLayer } from "./layers.js"

/** Signing in: session tokens and the sign-in email over the configured mailer. */
const signInLayer = Layer.merge(TokenSignerLive, TemplatedAuthMailLive.pipe(Layer.provide(MailerLive)))

/** Every use case over the adapters the configuration picks, the ports included. */
export const applicationLayer = (config: RosterConfig) => {
  const adapters = Layer.mergeAll(
    persistenceLayer(config, { migrate: config.migrate }),
    cacheLayer(config),
    cryptoLayer,
    signInLayer,
    webhookTransportLayer(config)
  )
  const useCases = Layer.mergeAll(
    Subscribers.Default,
    Tags.Default,
    Organizations.Default,
    ApiKeys.Default,
    Auth.Default,
    Admin.Default,
    Idempotency.Default,
    RateLimits.Default,
    Readiness.Default,
    Webhooks.Default,
    WebhookDispatch.Default
  ).pipe(Layer.provideMerge(adapters))
  return Onboarding.Default.pipe(Layer.provideMerge(useCases))
}

/** What the worker alone needs: the database, the webhook transport and the jobs' use cases. */
export const workerApplicationLayer = (config: RosterConfig) =>
  WebhookDispatch.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(
      persistenceLayer(config, { migrate: config.migrate }),
      cryptoLayer,
      webhookTransportLayer(config)
    ))
  )
