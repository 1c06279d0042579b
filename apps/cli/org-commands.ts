import { Args, Command, Options } from "@effect/cli"
import { Organizations } from "@roster/application"
import { customRateLimitProblem, MAX_CUSTOM_RATE_LIMIT, OrganizationName, PlanTier, Slug } from "@roster/domain"
import { Effect, Option } from "effect"
import { CliInputError, decodeOption, optional, optionErrors, parseBoolean, parseChoice, parseInteger } from "./input.js"
import { organizationOverviewJson } from "./output.js"
import { printJson } from "./print.js"
import { withServices } from "./services.js"

const tiers = PlanTier.literals.join(", ")

/** Options are read as text and parsed here, so that a bad value is refused naming its option. */
const parseTier = (option: string) => (value: string) => parseChoice(option, PlanTier.literals, value)

const parseRateLimit = (value: string) => parseInteger("--rate-limit", value, { min: 0, max: MAX_CUSTOM_RATE_LIMIT })

/** The rate limit an update sets: a number, or `plan` for the plan's own. */
const parseRateLimitChange = (value: string) =>
  value === "plan" ? Effect.succeed(null) : parseRateLimit(value)

const tierOption = Options.text("tier").pipe(Options.optional, Options.withDescription(`plan tier: ${tiers}`))

const create = Command.make(
  "create",
  {
    name: Options.text("name").pipe(Options.withDescription("display name of the organization")),
    slug: Options.text("slug").pipe(Options.withDescription("unique URL-safe name, e.g. acme")),
    tier: tierOption.pipe(Options.withDescription("free when left out")),
    platformAdmin: Options.boolean("platform-admin").pipe(
      Options.withDescription("members of this organization may administer all organizations")
    ),
    rateLimit: Options.text("rate-limit").pipe(
      Options.optional,
      Options.withDescription("API requests a minute instead of the plan's, enterprise only; 0 for no limit")
    )
  },
  (args) =>
    Effect.gen(function*() {
      const name = yield* decodeOption(OrganizationName, "--name", args.name)
      const slug = yield* decodeOption(Slug, "--slug", args.slug)
      const tier = Option.getOrElse(yield* optional(args.tier, parseTier("--tier")), () => "free" as const)
      const customRateLimit = Option.getOrNull(yield* optional(args.rateLimit, parseRateLimit))
      const problem = customRateLimitProblem(tier, customRateLimit)
      if (problem !== undefined) return yield* new CliInputError({ message: `--rate-limit: ${problem}` })
      const created = yield* withServices(
        Effect.flatMap(Organizations, (o) =>
          Effect.flatMap(o.create({ name, slug, tier, isPlatformAdmin: args.platformAdmin, customRateLimit }), o.overview))
      )
      yield* printJson(organizationOverviewJson(created))
    })
).pipe(Command.withDescription("Create an organization."))

const list = Command.make(
  "list",
  {
    limit: Options.text("limit").pipe(Options.optional, Options.withDescription("organizations on the page, 1 to 1000; 100 when left out")),
    cursor: Options.text("cursor").pipe(Options.optional, Options.withDescription("next_cursor of the page before"))
  },
  (args) =>
    Effect.gen(function*() {
      const limit = Option.getOrElse(
        yield* optional(args.limit, (value) => parseInteger("--limit", value, { min: 1, max: 1_000 })),
        () => 100
      )
      const page = yield* withServices(
        Effect.flatMap(Organizations, (o) => o.list({ limit, cursor: Option.getOrUndefined(args.cursor) }))
      ).pipe(Effect.mapError(optionErrors({ cursor: "--cursor" })))
      yield* printJson({ items: page.items.map(organizationOverviewJson), total: page.total, next_cursor: page.nextCursor })
    })
).pipe(Command.withDescription("List organizations, oldest first, a page at a time."))

const slugArg = Args.text({ name: "slug" }).pipe(Args.withDescription("the organization's slug"))

const show = Command.make("show", { slug: slugArg }, (args) =>
  Effect.gen(function*() {
    const found = yield* withServices(Effect.flatMap(Organizations, (o) => o.show(args.slug)))
    yield* printJson(organizationOverviewJson(found))
  })).pipe(Command.withDescription("Show an organization."))

const update = Command.make(
  "update",
  {
    slug: slugArg,
    name: Options.text("name").pipe(Options.optional, Options.withDescription("new display name")),
    tier: tierOption.pipe(Options.withDescription("a move below enterprise drops a custom rate limit")),
    rateLimit: Options.text("rate-limit").pipe(
      Options.optional,
      Options.withDescription("API requests a minute instead of the plan's, enterprise only; 0 for no limit, plan for the plan's")
    ),
    platformAdmin: Options.text("platform-admin").pipe(
      Options.optional,
      Options.withDescription("true or false: whether members may administer all organizations")
    ),
    suspended: Options.text("suspended").pipe(
      Options.optional,
      Options.withDescription("true or false: a suspended organization's keys and sessions are refused")
    )
  },
  (args) =>
    Effect.gen(function*() {
      const name = yield* optional(args.name, (value) => decodeOption(OrganizationName, "--name", value))
      const tier = yield* optional(args.tier, parseTier("--tier"))
      const customRateLimit = yield* optional(args.rateLimit, parseRateLimitChange)
      const isPlatformAdmin = yield* optional(args.platformAdmin, (value) => parseBoolean("--platform-admin", value))
      const suspended = yield* optional(args.suspended, (value) => parseBoolean("--suspended", value))
      const changed = yield* withServices(Effect.flatMap(Organizations, (o) =>
        o.update(args.slug, {
          name: Option.getOrUndefined(name),
          tier: Option.getOrUndefined(tier),
          customRateLimit: Option.getOrUndefined(customRateLimit),
          isPlatformAdmin: Option.getOrUndefined(isPlatformAdmin),
          suspended: Option.getOrUndefined(suspended)
        }))).pipe(Effect.mapError(optionErrors({ custom_rate_limit: "--rate-limit" })))
      yield* printJson(organizationOverviewJson(changed))
    })
).pipe(Command.withDescription("Change an organization by the platform admin's rules; options left out stay as they are."))

export const orgCommand = Command.make("org").pipe(
  Command.withDescription("Organizations."),
  Command.withSubcommands([create, list, show, update])
)
