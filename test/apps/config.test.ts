import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option, Redacted } from "effect"
import { planLimitPolicy, unlimitedPolicy } from "@roster/domain"
import { describeConfigError, describeLimits, limitPolicyOf, publicBaseUrl, RosterConfig } from "../../apps/shared/config.js"

const read = (env: Record<string, string>) =>
  Effect.either(RosterConfig).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

const problem = (env: Record<string, string>) =>
  read(env).pipe(Effect.map(Either.match({ onLeft: describeConfigError, onRight: () => "accepted" })))

describe("configuration", () => {
  it.effect("an empty environment gives the zero-setup defaults", () =>
    Effect.gen(function*() {
      const config = Either.getOrThrow(yield* read({}))
      expect(config.port).toBe(3000)
      expect(config.host).toBe("0.0.0.0")
      expect(config.apiForm).toBe("reference")
      expect(Option.isNone(config.databaseUrl)).toBe(true)
      expect(Option.isNone(config.redisUrl)).toBe(true)
      expect(config.dataDir.endsWith(".roster")).toBe(true)
      expect(config.migrate).toBe(true)
      expect(config.webhookAllowPrivateTargets).toBe(false)
      expect(config.workerLeaseSeconds).toBe(30)
      expect(config.importMaxBytes).toBe(100 * 1024 * 1024)
      expect(config.directLane).toBe(true)
      expect(Either.getOrThrow(yield* read({ HTTP_DIRECT_LANE: "off" })).directLane).toBe(false)
      expect(Either.getOrThrow(yield* read({ HTTP_DIRECT_LANE: "on" })).directLane).toBe(true)
      expect(Either.getOrThrow(yield* read({ IMPORT_MAX_BYTES: "1048576" })).importMaxBytes).toBe(1048576)
      expect(config.uploadIdleSeconds).toBe(30)
      expect(Either.getOrThrow(yield* read({ UPLOAD_IDLE_SECONDS: "5" })).uploadIdleSeconds).toBe(5)
      expect(config.signUpRatePerForm).toBe(120)
      expect(Either.getOrThrow(yield* read({ SIGN_UP_RATE_PER_FORM: "600" })).signUpRatePerForm).toBe(600)
    }))

  it.effect("connection URLs are kept secret and read as given", () =>
    Effect.gen(function*() {
      const config = Either.getOrThrow(yield* read({ DATABASE_URL: "postgres://u:pw@db:5432/roster", REDIS_URL: "redis://cache:6379" }))
      expect(String(Option.getOrThrow(config.databaseUrl))).not.toContain("pw")
      expect(Redacted.value(Option.getOrThrow(config.databaseUrl))).toBe("postgres://u:pw@db:5432/roster")
    }))

  it.effect.each([
    [{ PORT: "abc" }, /^PORT: expected an integer value, got "abc"$/],
    [{ PORT: "70000" }, /^PORT: must be a port number from 0 to 65535$/],
    [{ API_FORM: "fancy" }, /^API_FORM: expected one of \(reference, overview\)/],
    [{ DATABASE_URL: "mysql://x" }, /^DATABASE_URL: must be a connection URL/],
    [{ REDIS_URL: "http://x" }, /^REDIS_URL: must be a connection URL/],
    [{ PUBLIC_BASE_URL: "nope" }, /^PUBLIC_BASE_URL: must be an absolute URL/],
    [{ ERRORS_BASE_URL: "ftp://x" }, /^ERRORS_BASE_URL: must be an absolute URL/],
    [{ SESSION_SECRET: "short" }, /^SESSION_SECRET: must be at least 32 characters$/],
    [{ NODE_ENV: "production" }, /^SESSION_SECRET: required when NODE_ENV=production$/],
    [{ LOG_LEVEL: "loud" }, /^LOG_LEVEL: expected one of trace, debug, info, warning, error, fatal, none; got "loud"$/],
    [{ MIGRATE: "maybe" }, /^MIGRATE: expected one of/],
    [{ PLAN_LIMITS: "none" }, /^PLAN_LIMITS: expected one of \(on, off\)/],
    [{ HTTP_DIRECT_LANE: "false" }, /^HTTP_DIRECT_LANE: expected one of \(on, off\), got "false"$/],
    [
      { PLAN_LIMITS: "off", STRIPE_SECRET_KEY: "sk_test_x" },
      /^PLAN_LIMITS: off runs without plans and so without billing, but STRIPE_SECRET_KEY is set; unset it or PLAN_LIMITS$/
    ],
    [
      { PLAN_LIMITS: "off", STRIPE_WEBHOOK_SECRET: "whsec_x", STRIPE_PRICE_PRO: "price_1" },
      /^PLAN_LIMITS: .* but STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_PRO are set; unset them or PLAN_LIMITS$/
    ],
    [{ WEBHOOK_ALLOW_PRIVATE_TARGETS: "yes" }, /^WEBHOOK_ALLOW_PRIVATE_TARGETS: expected one of/],
    [{ WORKER_LEASE_SECONDS: "5" }, /^WORKER_LEASE_SECONDS: must be a whole number of seconds from 12 to 3600$/],
    [{ EMAIL_UNSUBSCRIBE_MAILTO: "not an address" }, /^EMAIL_UNSUBSCRIBE_MAILTO: must be an email address/],
    [{ EMAIL_UNSUBSCRIBE_MAILTO: "a@b.example, c@d.example" }, /^EMAIL_UNSUBSCRIBE_MAILTO: must be an email address/],
    [{ WORKER_LEASE_SECONDS: "soon" }, /^WORKER_LEASE_SECONDS: expected an integer value, got "soon"$/],
    [{ METRICS_TOKEN: "short" }, /^METRICS_TOKEN: must be at least 16 characters$/],
    [{ WORKER_METRICS_PORT: "70000" }, /^WORKER_METRICS_PORT: /],
    [{ IMPORT_MAX_BYTES: "0" }, /^IMPORT_MAX_BYTES: must be a whole number of bytes from 1 to 1073741824 \(1 GiB\)$/],
    [{ IMPORT_MAX_BYTES: "2147483648" }, /^IMPORT_MAX_BYTES: must be a whole number of bytes from 1 to 1073741824/],
    [{ IMPORT_MAX_BYTES: "100MB" }, /^IMPORT_MAX_BYTES: expected an integer value, got "100MB"$/],
    [{ UPLOAD_IDLE_SECONDS: "0" }, /^UPLOAD_IDLE_SECONDS: must be a whole number of seconds from 1 to 3600$/],
    [{ UPLOAD_IDLE_SECONDS: "30s" }, /^UPLOAD_IDLE_SECONDS: expected an integer value, got "30s"$/],
    [{ SIGN_UP_RATE_PER_FORM: "0" }, /^SIGN_UP_RATE_PER_FORM: must be a whole number of sign-ups a minute from 1 to 1000000$/],
    [{ SIGN_UP_RATE_PER_FORM: "fast" }, /^SIGN_UP_RATE_PER_FORM: expected an integer value, got "fast"$/]
  ] as const)("a bad value stops the start with one line naming the variable: %o", ([env, expected]) =>
    Effect.gen(function*() {
      const line = yield* problem(env)
      expect(line).toMatch(expected)
      expect(line).not.toContain("\n")
    }))

  it.effect("links point at PUBLIC_BASE_URL without its trailing slash, else at this machine's PORT", () =>
    Effect.gen(function*() {
      expect(publicBaseUrl(Either.getOrThrow(yield* read({ PUBLIC_BASE_URL: "https://roster.example.com/" }))))
        .toBe("https://roster.example.com")
      expect(publicBaseUrl(Either.getOrThrow(yield* read({ PORT: "4010" })))).toBe("http://localhost:4010")
      expect(publicBaseUrl(Either.getOrThrow(yield* read({})))).toBe("http://localhost:3000")
    }))

  it.effect("log levels are read in the usual spellings", () =>
    Effect.gen(function*() {
      for (const [text, label] of [["warning", "WARN"], ["WARN", "WARN"], ["debug", "DEBUG"], ["none", "OFF"]] as const) {
        expect(Either.getOrThrow(yield* read({ LOG_LEVEL: text })).logLevel.label).toBe(label)
      }
    }))

  it.effect("the unsubscribe mailbox is read with or without its mailto: scheme, and is unset by default", () =>
    Effect.gen(function*() {
      expect(Either.getOrThrow(yield* read({})).emailUnsubscribeMailto).toEqual(Option.none())
      for (const given of ["unsubscribe@example.com", "mailto:unsubscribe@example.com", " unsubscribe@example.com "]) {
        expect(Either.getOrThrow(yield* read({ EMAIL_UNSUBSCRIBE_MAILTO: given })).emailUnsubscribeMailto)
          .toEqual(Option.some("unsubscribe@example.com"))
      }
    }))

  it.effect("plans apply unless PLAN_LIMITS=off, which takes the policy without limits and says so", () =>
    Effect.gen(function*() {
      const plans = Either.getOrThrow(yield* read({}))
      expect(plans.planLimits).toBe("on")
      expect(limitPolicyOf(plans)).toBe(planLimitPolicy)
      expect(describeLimits(plans)).toBe(
        "plan limits on: each organization is held to its plan (free, pro, enterprise), billing not configured"
      )
      expect(describeLimits(Either.getOrThrow(yield* read({ STRIPE_SECRET_KEY: "sk_test_x" })))).toMatch(/billing through Stripe$/)
      const off = Either.getOrThrow(yield* read({ PLAN_LIMITS: "off" }))
      expect(limitPolicyOf(off)).toBe(unlimitedPolicy)
      expect(describeLimits(off)).toBe(
        "plan limits off (PLAN_LIMITS=off): no subscriber, email or rate limit of a plan, billing disabled"
      )
      expect(limitPolicyOf(Either.getOrThrow(yield* read({ PLAN_LIMITS: "on", STRIPE_SECRET_KEY: "sk_test_x" })))).toBe(planLimitPolicy)
    }))

  it.effect("either wire form may be chosen", () =>
    Effect.gen(function*() {
      expect(Either.getOrThrow(yield* read({ API_FORM: "overview" })).apiForm).toBe("overview")
      expect(Either.getOrThrow(yield* read({ API_FORM: "reference" })).apiForm).toBe("reference")
    }))

  it.effect("production with a long enough session secret is accepted", () =>
    Effect.gen(function*() {
      expect(yield* problem({ NODE_ENV: "production", SESSION_SECRET: "x".repeat(32) })).toBe("accepted")
    }))
})
