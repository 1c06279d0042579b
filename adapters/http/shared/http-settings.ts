import { Context, type Redacted } from "effect"

/** Where the service is reached from outside, as links and error pages name it. */
export interface HttpSettingsShape {
  /** Base of links in emails and documents, without a trailing slash. */
  readonly publicBaseUrl: string
  /** Prefix of problem `type` values; `GET /errors/{code}` serves the pages they name. */
  readonly errorsBaseUrl: string
  /** Whether the session cookie is sent over HTTPS only (`NODE_ENV=production`). */
  readonly secureCookies: boolean
  /** The secret provider events are signed with (EMAIL_WEBHOOK_SECRET); without it, every event is refused. */
  readonly emailWebhookSecret?: Redacted.Redacted<string> | null | undefined
  /** The secret payment events are signed with (STRIPE_WEBHOOK_SECRET); without it, every event is refused. */
  readonly stripeWebhookSecret?: Redacted.Redacted<string> | null | undefined
  /** The bearer token `GET /metrics` asks for (METRICS_TOKEN); without it, metrics are not served. */
  readonly metricsToken?: Redacted.Redacted<string> | null | undefined
  /** The largest CSV file an import over HTTP takes, in bytes (IMPORT_MAX_BYTES). */
  readonly importMaxBytes: number
  /**
   * How long a file upload on the dashboard may send nothing before it is given up, in seconds
   * (UPLOAD_IDLE_SECONDS).
   */
  readonly uploadIdleSeconds: number
}

export class HttpSettings extends Context.Tag("roster/http/HttpSettings")<HttpSettings, HttpSettingsShape>() {}
