import { CryptoLive, makeBufferedOutput } from "../../adapters/node/index.js"
import { RequestLines } from "../../adapters/observability/index.js"
import { CsvParseReaderLive } from "../../adapters/csv/index.js"
import {
  InProcessCacheHealthLive,
  InProcessDomainVerifierLive,
  InProcessIdempotencyStoreLive,
  InProcessRateLimiterLive,
  makeConsoleMailer
} from "../../adapters/in-process/index.js"
import {
  makeRedisClient,
  RedisCacheHealthLive,
  RedisIdempotencyStoreLive,
  RedisRateLimiterLive
} from "../../adapters/redis/index.js"
import { LiquidTemplateEngineLive, makeLiquidTemplateEngine, makeTemplatedAuthMail } from "../../adapters/liquid/index.js"
import { makeResendDomainVerifier, makeResendMailer } from "../../adapters/resend/index.js"
import { makeTokenSignerLive } from "../../adapters/jose/index.js"
import { makeHttpWebhookTransport } from "../../adapters/http-client/index.js"
import { makeStripePaymentGateway } from "../../adapters/stripe/index.js"
import { makeOtlpTracingLive } from "../../adapters/opentelemetry/index.js"
import { UnconfiguredPaymentGatewayLive } from "../../adapters/in-process/index.js"
import { BillingSettings, Limits, OutgoingMailConfig, SignUpRate } from "@roster/application"
import { Data, Effect, FiberRef, HashSet, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { limitPolicyOf, otlpHeadersOf, publicBaseUrl, type RosterConfig } from "./config.js"
import { bufferedJsonLogger, prettyLogger, requestLineJson } from "./logging.js"

export { describeDatabase, MigrationsLive, persistenceLayer } from "./persistence.js"

/**
 * The cache store: rate-limit windows, idempotency records and the cache's health, all in Redis at
 * REDIS_URL (one connection) or all in this process.
 */
export const cacheLayer = (config: RosterConfig) =>
  Option.match(config.redisUrl, {
    onSome: (url) =>
      Layer.mergeAll(RedisCacheHealthLive, RedisRateLimiterLive, RedisIdempotencyStoreLive).pipe(
        Layer.provide(makeRedisClient(url))
      ),
    onNone: () => Layer.mergeAll(InProcessCacheHealthLive, InProcessRateLimiterLive, InProcessIdempotencyStoreLive)
  })

export const cryptoLayer = CryptoLive

/** CSV files, read with csv-parse. */
export const csvLayer = CsvParseReaderLive

/**
 * In production, emails printed to the output would put sign-in links in the logs: the console
 * mailer is refused there unless ALLOW_CONSOLE_MAILER=true says it is meant.
 */
export class ConsoleMailerInProduction extends Data.TaggedError("ConsoleMailerInProduction")<{ readonly message: string }> {
  constructor() {
    super({
      message: "RESEND_API_KEY: required when NODE_ENV=production, or emails (sign-in links among them) would be printed " +
        "to the log; set ALLOW_CONSOLE_MAILER=true to print them anyway"
    })
  }
}

/**
 * Resend when RESEND_API_KEY is set (at RESEND_BASE_URL, if given), else the console mailer, which
 * prints each email. Emails that name no sender come from EMAIL_FROM. Without `retries`, a failure
 * is answered at once: the worker reschedules queued email itself, honouring the provider's
 * `Retry-After`, while a sign-in email is tried again on the spot.
 */
export const mailerLayer = (config: RosterConfig, options: { readonly retries: boolean } = { retries: true }) =>
  Option.match(config.resendApiKey, {
    onSome: (apiKey) =>
      makeResendMailer({
        apiKey,
        baseUrl: Option.getOrUndefined(config.resendBaseUrl),
        from: config.emailFrom,
        ...(options.retries ? {} : { retry: { times: 0 } })
      }),
    onNone: () =>
      config.nodeEnv === "production" && !config.allowConsoleMailer
        ? Layer.fail(new ConsoleMailerInProduction())
        : makeConsoleMailer(undefined, { from: config.emailFrom }).pipe(
          // Said once, by the mailer of sign-in email that every process with an API has.
          Layer.tap(() =>
            options.retries
              ? Effect.logInfo("emails are printed here, not delivered: set RESEND_API_KEY to send them through Resend")
              : Effect.void
          )
        )
  })

/**
 * Tokens signed with SESSION_SECRET, else the secret kept in DATA_DIR: the api and the worker (whose
 * campaign emails carry preference links) must share it.
 */
export const tokenSignerLayer = (config: RosterConfig) =>
  makeTokenSignerLive({ configured: config.sessionSecret, dataDir: config.dataDir })

/**
 * Signing in: session tokens signed with SESSION_SECRET (else the secret kept in DATA_DIR), and the
 * sign-in email with links under the public address, over the configured mailer.
 */
export const signInLayer = (config: RosterConfig) =>
  Layer.merge(
    tokenSignerLayer(config),
    makeTemplatedAuthMail({ publicBaseUrl: publicBaseUrl(config) }).pipe(Layer.provide(mailerLayer(config)))
  )

/**
 * What every email shares (the default sender EMAIL_FROM, links under the public address, the
 * optional unsubscribe mailbox EMAIL_UNSUBSCRIBE_MAILTO) and the Liquid engine templates render with.
 * `renderThreads` caps the engine's render threads (each holds about 20 MB while it renders).
 */
export const emailLayer = (config: RosterConfig, options: { readonly renderThreads?: number } = {}) =>
  Layer.merge(
    Layer.succeed(OutgoingMailConfig, {
      defaultFrom: config.emailFrom,
      publicBaseUrl: publicBaseUrl(config),
      unsubscribeMailto: Option.getOrNull(config.emailUnsubscribeMailto)
    }),
    options.renderThreads === undefined ? LiquidTemplateEngineLive : makeLiquidTemplateEngine({ threads: options.renderThreads })
  )

/** Outgoing webhooks over HTTP; private and loopback targets only with WEBHOOK_ALLOW_PRIVATE_TARGETS. */
export const webhookTransportLayer = (config: RosterConfig) =>
  makeHttpWebhookTransport({ allowPrivateTargets: config.webhookAllowPrivateTargets })

/** Log level and format: JSON in production or off a terminal, pretty on a terminal. */
export const loggerLayer = (config: RosterConfig) => {
  const format = Option.getOrElse(config.logFormat, () =>
    config.nodeEnv === "production" || !process.stdout.isTTY ? "json" as const : "pretty" as const)
  const logger: Logger.Logger<unknown, unknown> = format === "json" ? processJsonLogger() : prettyLogger
  const output = format === "json" ? processJsonOutput() : undefined
  return Layer.mergeAll(
    // The one logger, however often this layer is provided (npm start provides it to the server
    // and again around the worker): adding it beside another would write every line twice.
    Layer.scopedDiscard(Effect.locallyScopedWith(FiberRef.currentLoggers, () => HashSet.make(logger))),
    Logger.minimumLogLevel(config.logLevel),
    // A JSON log takes request lines straight to its output: they are most of what it writes.
    Layer.succeed(RequestLines, {
      logged: !LogLevel.greaterThan(config.logLevel, LogLevel.Info),
      write: output === undefined ? undefined : (requestId, line) => output.writeLine(requestLineJson(requestId, line))
    })
  )
}

/** Whether spans are made and sent: only when OTEL_EXPORTER_OTLP_ENDPOINT names a collector. */
export const tracingOn = (config: RosterConfig): boolean => Option.isSome(config.otlpEndpoint)

/**
 * Traces, for a process's root (provided around everything else, which reads it when it is made):
 * sent to OTEL_EXPORTER_OTLP_ENDPOINT as OTEL_SERVICE_NAME (else `serviceName`), with the headers
 * of OTEL_EXPORTER_OTLP_HEADERS, each attribute passed through `options.attribute` (for a server,
 * `traceableAttribute`: of a request, spans keep what logs keep). Without an endpoint the tracer
 * is off and nothing makes a span: use cases run their operations untraced, and the HTTP server
 * opens no span per request.
 */
export const tracingLayer = (
  config: RosterConfig,
  serviceName: string,
  options: { readonly attribute?: (key: string, value: unknown) => unknown } = {}
) =>
  Option.match(config.otlpEndpoint, {
    onNone: () => Layer.setTracerEnabled(false),
    onSome: (endpoint) =>
      makeOtlpTracingLive({
        endpoint,
        serviceName: Option.getOrElse(config.otelServiceName, () => serviceName),
        headers: Option.getOrUndefined(Option.map(config.otlpHeaders, (text) => otlpHeadersOf(Redacted.value(text)))),
        attribute: options.attribute
      })
  })

/** The process's JSON log: one output buffer, and one logger on it, for every layer that logs. */
let jsonOutput: ReturnType<typeof makeBufferedOutput> | undefined
const processJsonOutput = () => (jsonOutput ??= makeBufferedOutput(1))
let jsonLogger: Logger.Logger<unknown, void> | undefined
const processJsonLogger = () => (jsonLogger ??= bufferedJsonLogger(processJsonOutput()))

/**
 * Custom sending domains at Resend when RESEND_API_KEY is set (at RESEND_BASE_URL, if given); else
 * in this process, where a domain is verified on its first check (the console mailer sends nothing).
 */
export const domainVerifierLayer = (config: RosterConfig) =>
  Option.match(config.resendApiKey, {
    onSome: (apiKey) => makeResendDomainVerifier({ apiKey, baseUrl: Option.getOrUndefined(config.resendBaseUrl) }),
    onNone: () => InProcessDomainVerifierLive
  })

/**
 * The limits the use cases keep organizations to (their plans', or none with PLAN_LIMITS=off), and
 * the sign-ups a minute one form takes (SIGN_UP_RATE_PER_FORM), which hold with or without plans.
 */
export const limitsLayer = (config: RosterConfig) =>
  Layer.merge(
    Layer.succeed(Limits, limitPolicyOf(config)),
    Layer.succeed(SignUpRate, { perFormPerMinute: config.signUpRatePerForm })
  )

/**
 * The payment provider: Stripe when STRIPE_SECRET_KEY is set (at STRIPE_API_BASE, if given), else
 * none, and billing's actions answer `billing_not_configured`. The plans' prices are
 * STRIPE_PRICE_PRO and STRIPE_PRICE_ENTERPRISE; checkout and the portal send people back to the
 * public address. A worker never calls the provider (`provider: false`): its billing job only
 * ends plans whose paid period is over.
 */
export const paymentLayer = (config: RosterConfig, options: { readonly provider: boolean } = { provider: true }) =>
  Layer.merge(
    Option.match(options.provider ? config.stripeSecretKey : Option.none(), {
      onSome: (secretKey) => makeStripePaymentGateway({ secretKey, apiBase: Option.getOrUndefined(config.stripeApiBase) }),
      onNone: () => UnconfiguredPaymentGatewayLive
    }),
    Layer.succeed(BillingSettings, {
      prices: { pro: Option.getOrNull(config.stripePricePro), enterprise: Option.getOrNull(config.stripePriceEnterprise) },
      returnUrl: publicBaseUrl(config)
    })
  )
