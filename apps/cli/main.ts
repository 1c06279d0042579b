import { Command, Options } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { ApiKeys, Organizations } from "@roster/application"
import {
  CustomRateLimit,
  customRateLimitProblem,
  OrganizationName,
  PlanTier,
  type Scope,
  scopes as knownScopes,
  Slug
} from "@roster/domain"
import { Console, Effect, Layer, Logger, LogLevel, Option, ParseResult, Schema } from "effect"
import { loadConfig } from "../shared/config.js"
import { cryptoLayer, persistenceLayer } from "../shared/layers.js"
import { apiKeyJson, organizationJson } from "./output.js"

/**
 * The operators' command line: JSON on stdout, progress and errors on stderr, exit 1 on failure.
 * It runs pending migrations itself.
 */

const services = Effect.gen(function*() {
  const config = yield* loadConfig
  return Layer.mergeAll(Organizations.Default, ApiKeys.Default).pipe(
    Layer.provideMerge(persistenceLayer(config, { migrate: true })),
    Layer.provide(cryptoLayer)
  )
})

/** Runs `effect` with the database open, closing it afterwards. */
const withServices = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(services, (layer) => Effect.provide(effect, layer))

const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

class CliInputError extends Schema.TaggedError<CliInputError>()("CliInputError", { message: Schema.String }) {}

const decodeOption = <A, I>(schema: Schema.Schema<A, I>, option: string, value: I) =>
  Schema.decodeUnknown(schema)(value).pipe(
    Effect.mapError((error) =>
      new CliInputError({ message: `--${option}: ${ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? "is not valid"}` })
    )
  )

const parseScopes = (text: string) => {
  const wanted = text.split(/[\s,]+/).filter((s) => s.length > 0)
  const unknown = wanted.filter((s) => !(knownScopes as ReadonlyArray<string>).includes(s))
  if (wanted.length === 0) return Effect.fail(new CliInputError({ message: "--scopes: name at least one scope" }))
  if (unknown.length > 0) {
    return Effect.fail(new CliInputError({ message: `--scopes: unknown scope '${unknown[0]}'; known scopes: ${knownScopes.join(", ")}` }))
  }
  return Effect.succeed(wanted as ReadonlyArray<Scope>)
}

const migrate = Command.make("migrate", {}, () =>
  withServices(Effect.void).pipe(Effect.zipRight(printJson({ migrated: true })))
).pipe(Command.withDescription("Apply pending database migrations."))

const orgCreate = Command.make(
  "create",
  {
    name: Options.text("name").pipe(Options.withDescription("display name of the organization")),
    slug: Options.text("slug").pipe(Options.withDescription("unique URL-safe name, e.g. acme")),
    tier: Options.choice("tier", PlanTier.literals).pipe(Options.withDefault("free" as const)),
    platformAdmin: Options.boolean("platform-admin").pipe(
      Options.withDescription("members of this organization may administer all organizations")
    ),
    rateLimit: Options.integer("rate-limit").pipe(
      Options.optional,
      Options.withDescription("API requests a minute instead of the plan's, enterprise only; 0 for no limit")
    )
  },
  (args) =>
    Effect.gen(function*() {
      const name = yield* decodeOption(OrganizationName, "name", args.name)
      const slug = yield* decodeOption(Slug, "slug", args.slug)
      const customRateLimit = Option.isSome(args.rateLimit)
        ? yield* decodeOption(CustomRateLimit, "rate-limit", args.rateLimit.value)
        : null
      const problem = customRateLimitProblem(args.tier, customRateLimit)
      if (problem !== undefined) return yield* new CliInputError({ message: `--rate-limit: ${problem}` })
      const organization = yield* withServices(
        Effect.flatMap(Organizations, (o) =>
          o.create({ name, slug, tier: args.tier, isPlatformAdmin: args.platformAdmin, customRateLimit }))
      )
      yield* printJson(organizationJson(organization))
    })
).pipe(Command.withDescription("Create an organization."))

const apiKeyCreate = Command.make(
  "create",
  {
    org: Options.text("org").pipe(Options.withDescription("slug of the organization that owns the key")),
    name: Options.text("name").pipe(Options.withDescription("what the key is for")),
    scopes: Options.text("scopes").pipe(
      Options.withDefault("*"),
      Options.withDescription(`comma-separated scopes (${knownScopes.join(", ")})`)
    ),
    test: Options.boolean("test").pipe(Options.withDescription("make a svc_test_ key: same data, no email is ever sent"))
  },
  (args) =>
    Effect.gen(function*() {
      const scopes = yield* parseScopes(args.scopes)
      const issued = yield* withServices(Effect.gen(function*() {
        const organization = yield* (yield* Organizations).getBySlug(args.org)
        return yield* (yield* ApiKeys).create({
          organizationId: organization.id,
          name: args.name,
          scopes,
          environment: args.test ? "test" : "live"
        }).pipe(Effect.map((issued) => ({ ...issued, organization })))
      }))
      yield* Console.error("This is the only time the full key is shown; keep it somewhere safe.")
      yield* printJson(apiKeyJson(issued.apiKey, issued.key, issued.organization))
    })
).pipe(Command.withDescription("Create an API key and print it once."))

const roster = Command.make("roster").pipe(
  Command.withDescription("Operate a Roster installation."),
  Command.withSubcommands([
    migrate,
    Command.make("org").pipe(Command.withDescription("Organizations."), Command.withSubcommands([orgCreate])),
    Command.make("api-key").pipe(Command.withDescription("API keys."), Command.withSubcommands([apiKeyCreate]))
  ])
)

const cli = Command.run(roster, { name: "roster", version: "0.1.0" })

cli(process.argv).pipe(
  Effect.catchAll((error) =>
    Effect.sync(() => {
      // The CLI's own usage errors are printed by @effect/cli already.
      if (typeof error === "object" && error !== null && "message" in error && !("_tag" in error && String(error._tag).startsWith("Validation"))) {
        process.stderr.write(`roster: ${String(error.message)}\n`)
      }
      process.exitCode = 1
    })
  ),
  Effect.provide(NodeContext.layer),
  Logger.withMinimumLogLevel(LogLevel.Warning),
  NodeRuntime.runMain({ disableErrorReporting: false })
)
