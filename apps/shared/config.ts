import {
  type LimitPolicy,
  MIN_SIGNING_SECRET_BYTES,
  planLimitPolicy,
  SIGN_UPS_PER_FORM_PER_MINUTE,
  unlimitedPolicy
} from "@roster/domain"
import { Config, ConfigError, Effect, Either, LogLevel, Option, Redacted } from "effect"
import * as path from "node:path"
import { DEFAULT_EMAIL_FROM } from "../../adapters/in-process/index.js"

/**
 * The whole configuration of DESIGN.md §4, read from the environment. Every process validates it
 * at start, so a bad value stops it at once with one line naming the variable, never later on
 * a request.
 */

const url = (name: string) =>
  Config.string(name).pipe(Config.validate({
    message: "must be an absolute URL such as http://localhost:3000",
    validation: (s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)
  }), Config.map((s) => s.replace(/\/+$/, "")))

const connectionUrl = (name: string, schemes: ReadonlyArray<string>, example: string) =>
  Config.redacted(name).pipe(Config.validate({
    message: `${name}: must be a connection URL such as ${example}`,
    validation: (r) => {
      const s = Redacted.value(r)
      return URL.canParse(s) && schemes.includes(new URL(s).protocol)
    }
  }))

const flag = (name: string, fallback: boolean) =>
  Config.literal("true", "false", "1", "0")(name).pipe(
    Config.map((s) => s === "true" || s === "1"),
    Config.withDefault(fallback)
  )

const logLevels: Record<string, LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None,
  off: LogLevel.None
}

const logLevel = Config.string("LOG_LEVEL").pipe(
  Config.mapOrFail((value) => {
    const level = logLevels[value.trim().toLowerCase()]
    return level === undefined
      ? Either.left(ConfigError.InvalidData([], `LOG_LEVEL: expected one of trace, debug, info, warning, error, fatal, none; got "${value}"`))
      : Either.right(level)
  })
)

/** The largest CSV file an import over HTTP takes unless IMPORT_MAX_BYTES says otherwise: 100 MiB. */
const DEFAULT_IMPORT_MAX_BYTES = 100 * 1024 * 1024
/** The largest IMPORT_MAX_BYTES may be. */
const MAX_IMPORT_MAX_BYTES = 1024 * 1024 * 1024

/**
 * The headers of OTEL_EXPORTER_OTLP_HEADERS (`name=value,name=value`, values percent-encoded as
 * OpenTelemetry specifies), or `undefined` when a pair has no `=` or
 * its name is not a header name.
 */
export const otlpHeadersOf = (text: string): Record<string, string> | undefined => {
  const headers: Record<string, string> = {}
  for (const pair of text.split(",")) {
    if (pair.trim() === "") continue
    const at = pair.indexOf("=")
    const name = pair.slice(0, at).trim()
    if (at < 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return undefined
    try {
      headers[name] = decodeURIComponent(pair.slice(at + 1).trim())
    } catch {
      return undefined
    }
  }
  return headers
}

export const LogFormat = Config.literal("json", "pretty")("LOG_FORMAT").pipe(Config.option)

export const RosterConfig = Config.all({
  nodeEnv: Config.string("NODE_ENV").pipe(Config.withDefault("development")),
  port: Config.integer("PORT").pipe(
    Config.validate({ message: "must be a port number from 0 to 65535", validation: (n) => n >= 0 && n <= 65535 }),
    Config.withDefault(3000)
  ),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  apiForm: Config.literal("reference", "overview")("API_FORM").pipe(Config.withDefault("reference")),
  /** Whether the API serves its busiest requests on its direct lane beside the HttpApi (`on`), or all through the HttpApi. */
  directLane: Config.literal("on", "off")("HTTP_DIRECT_LANE").pipe(
    Config.withDefault("on"),
    Config.map((value) => value === "on")
  ),
  databaseUrl: connectionUrl("DATABASE_URL", ["postgres:", "postgresql:"], "postgres://user@host:5432/roster").pipe(Config.option),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(".roster"), Config.map((dir) => path.resolve(dir))),
  redisUrl: connectionUrl("REDIS_URL", ["redis:", "rediss:"], "redis://127.0.0.1:6379").pipe(Config.option),
  publicBaseUrl: url("PUBLIC_BASE_URL").pipe(Config.option),
  errorsBaseUrl: url("ERRORS_BASE_URL").pipe(Config.option),
  sessionSecret: Config.redacted("SESSION_SECRET").pipe(
    Config.validate({
      message: `SESSION_SECRET: must be at least ${MIN_SIGNING_SECRET_BYTES} characters`,
      validation: (r) => Redacted.value(r).length >= MIN_SIGNING_SECRET_BYTES
    }),
    Config.option
  ),
  resendApiKey: Config.redacted("RESEND_API_KEY").pipe(
    Config.validate({ message: "RESEND_API_KEY: must not be empty when set", validation: (r) => Redacted.value(r).trim() !== "" }),
    Config.option
  ),
  resendBaseUrl: url("RESEND_BASE_URL").pipe(Config.option),
  emailFrom: Config.string("EMAIL_FROM").pipe(
    Config.validate({ message: "EMAIL_FROM: must not be empty", validation: (s) => s.trim() !== "" }),
    Config.withDefault(DEFAULT_EMAIL_FROM)
  ),
  emailUnsubscribeMailto: Config.string("EMAIL_UNSUBSCRIBE_MAILTO").pipe(
    Config.map((s) => s.trim().replace(/^mailto:/i, "")),
    Config.validate({
      message: "EMAIL_UNSUBSCRIBE_MAILTO: must be an email address such as unsubscribe@example.com",
      validation: (s) => /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/.test(s)
    }),
    Config.option
  ),
  emailProviderRate: Config.integer("EMAIL_PROVIDER_RATE").pipe(
    Config.validate({
      message: "EMAIL_PROVIDER_RATE: must be a whole number of calls a second from 1 to 1000",
      validation: (n) => n >= 1 && n <= 1000
    }),
    Config.withDefault(2)
  ),
  emailWebhookSecret: Config.redacted("EMAIL_WEBHOOK_SECRET").pipe(Config.option),
  allowConsoleMailer: flag("ALLOW_CONSOLE_MAILER", false),
  planLimits: Config.literal("on", "off")("PLAN_LIMITS").pipe(Config.withDefault("on")),
  signUpRatePerForm: Config.integer("SIGN_UP_RATE_PER_FORM").pipe(
    Config.validate({
      message: "SIGN_UP_RATE_PER_FORM: must be a whole number of sign-ups a minute from 1 to 1000000",
      validation: (n) => n >= 1 && n <= 1_000_000
    }),
    Config.withDefault(SIGN_UPS_PER_FORM_PER_MINUTE)
  ),
  stripeSecretKey: Config.redacted("STRIPE_SECRET_KEY").pipe(Config.option),
  stripeWebhookSecret: Config.redacted("STRIPE_WEBHOOK_SECRET").pipe(Config.option),
  stripeApiBase: url("STRIPE_API_BASE").pipe(Config.option),
  stripePricePro: Config.string("STRIPE_PRICE_PRO").pipe(Config.option),
  stripePriceEnterprise: Config.string("STRIPE_PRICE_ENTERPRISE").pipe(Config.option),
  webhookAllowPrivateTargets: flag("WEBHOOK_ALLOW_PRIVATE_TARGETS", false),
  importMaxBytes: Config.integer("IMPORT_MAX_BYTES").pipe(
    Config.validate({
      message: `IMPORT_MAX_BYTES: must be a whole number of bytes from 1 to ${MAX_IMPORT_MAX_BYTES} (1 GiB)`,
      validation: (n) => n >= 1 && n <= MAX_IMPORT_MAX_BYTES
    }),
    Config.withDefault(DEFAULT_IMPORT_MAX_BYTES)
  ),
  uploadIdleSeconds: Config.integer("UPLOAD_IDLE_SECONDS").pipe(
    Config.validate({
      message: "UPLOAD_IDLE_SECONDS: must be a whole number of seconds from 1 to 3600",
      validation: (n) => n >= 1 && n <= 3600
    }),
    Config.withDefault(30)
  ),
  workerLeaseSeconds: Config.integer("WORKER_LEASE_SECONDS").pipe(
    Config.validate({
      message: "WORKER_LEASE_SECONDS: must be a whole number of seconds from 12 to 3600",
      validation: (n) => n >= 12 && n <= 3600
    }),
    Config.withDefault(30)
  ),
  workerHeartbeatFile: Config.string("WORKER_HEARTBEAT_FILE").pipe(Config.option),
  metricsToken: Config.redacted("METRICS_TOKEN").pipe(
    Config.validate({
      message: "METRICS_TOKEN: must be at least 16 characters",
      validation: (token) => Redacted.value(token).length >= 16
    }),
    Config.option
  ),
  workerMetricsPort: Config.port("WORKER_METRICS_PORT").pipe(Config.option),
  migrate: flag("MIGRATE", true),
  otlpEndpoint: url("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(Config.option),
  otlpHeaders: Config.redacted("OTEL_EXPORTER_OTLP_HEADERS").pipe(
    Config.validate({
      message: "OTEL_EXPORTER_OTLP_HEADERS: must be name=value pairs separated by commas, such as x-api-key=secret",
      validation: (r) => otlpHeadersOf(Redacted.value(r)) !== undefined
    }),
    Config.option
  ),
  otelServiceName: Config.string("OTEL_SERVICE_NAME").pipe(
    Config.validate({ message: "OTEL_SERVICE_NAME: must not be empty when set", validation: (s) => s.trim() !== "" }),
    Config.option
  ),
  logLevel: logLevel.pipe(Config.withDefault(LogLevel.Info)),
  logFormat: LogFormat
}).pipe(
  Config.validate({
    message: "SESSION_SECRET: required when NODE_ENV=production",
    validation: (c) => c.nodeEnv !== "production" || Option.isSome(c.sessionSecret)
  }),
  Config.mapOrFail((c) => {
    const billing = stripeSettingsOf(c)
    return c.planLimits === "off" && billing.length > 0
      ? Either.left(ConfigError.InvalidData(
        [],
        `PLAN_LIMITS: off runs without plans and so without billing, but ${billing.join(", ")} ` +
          `${billing.length === 1 ? "is" : "are"} set; unset ${billing.length === 1 ? "it" : "them"} or PLAN_LIMITS`
      ))
      : Either.right(c)
  })
)

/** The payment provider's variables that are set. */
const stripeSettingsOf = (c: {
  readonly stripeSecretKey: Option.Option<unknown>
  readonly stripeWebhookSecret: Option.Option<unknown>
  readonly stripePricePro: Option.Option<unknown>
  readonly stripePriceEnterprise: Option.Option<unknown>
}): ReadonlyArray<string> =>
  ([
    ["STRIPE_SECRET_KEY", c.stripeSecretKey],
    ["STRIPE_WEBHOOK_SECRET", c.stripeWebhookSecret],
    ["STRIPE_PRICE_PRO", c.stripePricePro],
    ["STRIPE_PRICE_ENTERPRISE", c.stripePriceEnterprise]
  ] as const).filter(([, value]) => Option.isSome(value)).map(([name]) => name)

/** The limit policy PLAN_LIMITS asks for: each organization's plan (`on`), or none (`off`). */
export const limitPolicyOf = (config: RosterConfig): LimitPolicy =>
  config.planLimits === "off" ? unlimitedPolicy : planLimitPolicy

/** The line each process logs at start: which limits it keeps organizations to. */
export const describeLimits = (config: RosterConfig): string =>
  config.planLimits === "off"
    ? "plan limits off (PLAN_LIMITS=off): no subscriber, email or rate limit of a plan, billing disabled"
    : `plan limits on: each organization is held to its plan (free, pro, enterprise), billing ${
      Option.isSome(config.stripeSecretKey) ? "through Stripe" : "not configured"
    }`

export type RosterConfig = Config.Config.Success<typeof RosterConfig>

/** Where links in emails point: PUBLIC_BASE_URL, else this machine's port. */
export const publicBaseUrl = (config: RosterConfig): string =>
  Option.getOrElse(config.publicBaseUrl, () => `http://localhost:${config.port}`)

/** Where the API is reached from outside, as links, cookies and error pages need it. */
export const httpSettingsOf = (config: RosterConfig) => {
  const base = publicBaseUrl(config)
  return {
    publicBaseUrl: base,
    errorsBaseUrl: Option.getOrElse(config.errorsBaseUrl, () => `${base}/errors`),
    secureCookies: config.nodeEnv === "production",
    emailWebhookSecret: Option.getOrNull(config.emailWebhookSecret),
    stripeWebhookSecret: Option.getOrNull(config.stripeWebhookSecret),
    metricsToken: Option.getOrNull(config.metricsToken),
    importMaxBytes: config.importMaxBytes,
    uploadIdleSeconds: config.uploadIdleSeconds
  }
}

/** The embedded database lives here when DATABASE_URL is unset. */
export const embeddedDatabaseDir = (config: RosterConfig): string => path.join(config.dataDir, "pgdata")

/** One line naming the variable and what is wrong with it. */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  const lines: Array<string> = []
  const walk = (e: ConfigError.ConfigError): void => {
    switch (e._op) {
      case "And":
      case "Or":
        walk(e.left)
        walk(e.right)
        return
      case "InvalidData":
      case "MissingData":
      case "SourceUnavailable":
      case "Unsupported": {
        const name = e.path.join("_")
        const message = e.message.replace(/^Expected (.*?) but received/i, "expected $1, got")
        lines.push(name.length > 0 && !message.startsWith(name) ? `${name}: ${message}` : message)
      }
    }
  }
  walk(error)
  return lines[0] ?? String(error)
}

/** Reads and validates the configuration; on a bad value, prints one line and exits. */
export const loadConfig: Effect.Effect<RosterConfig> = Effect.either(RosterConfig).pipe(
  Effect.flatMap(Either.match({
    onRight: Effect.succeed,
    onLeft: (error) =>
      Effect.sync(() => {
        process.stderr.write(`roster: configuration error: ${describeConfigError(error)}\n`)
        process.exit(1)
      }) as Effect.Effect<never>
  }))
)
