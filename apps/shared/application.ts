import {
  Admin,
  ApiKeys,
  Auth,
  Campaigns,
  CampaignSending,
  EmailDelivery,
  Emails,
  Forms,
  Idempotency,
  Members,
  Notes,
  Onboarding,
  OrganizationOverviews,
  Organizations,
  RateLimits,
  Readiness,
  Subscribers,
  Tags,
  WebhookDispatch,
  Preferences,
  ProviderEvents,
  SenderSettings,
  OrganizationSettings,
  SendingDomains,
  SignUps,
  Templates,
  Segments,
  TriggerFiring,
  Triggers,
  SequenceEngine,
  Sequences,
  Webhooks,
  Billing,
  ImportJobs,
  SubscriberExports,
  SubscriberImports,
  WorkerHealth
} from "@roster/application"
import { Layer } from "effect"
import type { RosterConfig } from "./config.js"
import {
  cacheLayer,
  cryptoLayer,
  csvLayer,
  domainVerifierLayer,
  emailLayer,
  limitsLayer,
  mailerLayer,
  paymentLayer,
  persistenceLayer,
  signInLayer,
  tokenSignerLayer,
  webhookTransportLayer
} from "./layers.js"

/**
 * Every use case the API serves, over whatever adapters are provided: the list the running
 * service and the HTTP tests share.
 */
export const UseCasesLive = Layer.mergeAll(
  Subscribers.Default,
  Tags.Default,
  Organizations.Default,
  OrganizationOverviews.Default,
  ApiKeys.Default,
  Auth.Default,
  Admin.Default,
  Members.Default,
  Idempotency.Default,
  RateLimits.Default,
  Readiness.Default,
  Webhooks.Default,
  WebhookDispatch.Default,
  Preferences.Default,
  Emails.Default,
  EmailDelivery.Default,
  ProviderEvents.Default,
  SenderSettings.Default,
  OrganizationSettings.Default,
  Templates.Default,
  Forms.Default,
  Segments.Default,
  Notes.Default,
  Campaigns.Default,
  CampaignSending.Default,
  Triggers.Default,
  TriggerFiring.Default,
  Sequences.Default,
  SequenceEngine.Default,
  SendingDomains.Default,
  SignUps.Default,
  Billing.Default,
  WorkerHealth.Default,
  // Imports sent over HTTP run the import itself.
  ImportJobs.Default.pipe(Layer.provideMerge(SubscriberImports.Default)),
  // The dashboard streams exports as the CLI writes them.
  SubscriberExports.Default
)

/**
 * Every use case over the adapters the configuration picks, the ports included.
 *
 * The layers are composed data-first (`Layer.provideMerge(self, that)`), not piped: with some forty
 * services on each side, the piped forms of this file's two compositions, the server's and
 * `npm start`'s took the type checker 67 of the 133 s it spent on the whole project; data-first,
 * each takes under a second.
 */
export const applicationLayer = (config: RosterConfig) => {
  const adapters = Layer.mergeAll(
    persistenceLayer(config, { migrate: config.migrate, lifetime: "service" }),
    cacheLayer(config),
    cryptoLayer,
    csvLayer,
    signInLayer(config),
    mailerLayer(config, { retries: false }),
    emailLayer(config),
    webhookTransportLayer(config),
    domainVerifierLayer(config),
    paymentLayer(config),
    limitsLayer(config)
  )
  return Layer.provideMerge(Onboarding.Default, Layer.provideMerge(UseCasesLive, adapters))
}

/**
 * What the worker alone needs: the database, the webhook transport, the mailer, the cache (the
 * provider's rate is shared there), the email provider's domains and the jobs' use cases.
 */
export const workerApplicationLayer = (config: RosterConfig) =>
  Layer.provideMerge(
    Layer.mergeAll(
      WebhookDispatch.Default,
      Subscribers.Default,
      EmailDelivery.Default,
      CampaignSending.Default,
      TriggerFiring.Default,
      SequenceEngine.Default,
      SendingDomains.Default,
      SignUps.Default,
      Billing.Default,
      ImportJobs.Default.pipe(Layer.provideMerge(SubscriberImports.Default))
    ),
    Layer.mergeAll(
      persistenceLayer(config, { migrate: config.migrate, lifetime: "service" }),
      cacheLayer(config),
      cryptoLayer,
      csvLayer,
      mailerLayer(config, { retries: false }),
      // One render thread: a worker renders a batch at a time per lane, each in milliseconds, and a
      // second thread would cost its 20 MB for little.
      emailLayer(config, { renderThreads: 1 }),
      tokenSignerLayer(config),
      webhookTransportLayer(config),
      domainVerifierLayer(config),
      paymentLayer(config, { provider: false }),
      limitsLayer(config)
    )
  )
