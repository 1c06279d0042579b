import { Args, Command, Options } from "@effect/cli"
import { ApiKeys, Organizations } from "@roster/application"
import { ApiKeyId, ApiKeyName, type Scope, scopes as knownScopes } from "@roster/domain"
import { Console, Effect, Option } from "effect"
import { CliInputError, decodeOption, optionErrors } from "./input.js"
import { apiKeyJson, apiKeyRecordJson } from "./output.js"
import { printJson } from "./print.js"
import { withServices } from "./services.js"

const scopeList = knownScopes.join(", ")

const parseScopes = (given: Option.Option<string>) => {
  if (Option.isNone(given)) {
    return Effect.fail(new CliInputError({ message: `--scopes: required; give one or more of ${scopeList}, separated by commas` }))
  }
  const wanted = given.value.split(/[\s,]+/).filter((s) => s.length > 0)
  const unknown = wanted.filter((s) => !(knownScopes as ReadonlyArray<string>).includes(s))
  if (wanted.length === 0) return Effect.fail(new CliInputError({ message: `--scopes: name at least one of ${scopeList}` }))
  if (unknown.length > 0) {
    return Effect.fail(new CliInputError({ message: `--scopes: unknown scope '${unknown[0]}'; known scopes: ${scopeList}` }))
  }
  return Effect.succeed(wanted as ReadonlyArray<Scope>)
}

const orgOption = Options.text("org").pipe(Options.withDescription("slug of the organization that owns the key"))

const idArg = Args.text({ name: "id" }).pipe(Args.withDescription("the key's id, as api-key list shows it"))

const organizationOf = (slug: string) => Effect.flatMap(Organizations, (o) => o.getBySlug(slug))

const create = Command.make(
  "create",
  {
    org: orgOption,
    name: Options.text("name").pipe(Options.withDescription("what the key is for")),
    scopes: Options.text("scopes").pipe(
      Options.optional,
      Options.withDescription(`comma-separated scopes, required: ${scopeList} ('*' grants all of them)`)
    ),
    test: Options.boolean("test").pipe(Options.withDescription("make a svc_test_ key: same data, no email is ever sent"))
  },
  (args) =>
    Effect.gen(function*() {
      const scopes = yield* parseScopes(args.scopes)
      const name = yield* decodeOption(ApiKeyName, "--name", args.name)
      const issued = yield* withServices(Effect.gen(function*() {
        const organization = yield* organizationOf(args.org)
        const { apiKey, key } = yield* (yield* ApiKeys).create({
          organizationId: organization.id,
          name,
          scopes,
          environment: args.test ? "test" : "live"
        })
        return { apiKey, key, organization }
      }))
      yield* Console.error("This is the only time the full key is shown; keep it somewhere safe.")
      yield* printJson(apiKeyJson(issued.apiKey, issued.key, issued.organization))
    })
).pipe(Command.withDescription("Create an API key and print it once."))

const list = Command.make("list", { org: orgOption }, (args) =>
  Effect.gen(function*() {
    const { keys, organization } = yield* withServices(Effect.gen(function*() {
      const organization = yield* organizationOf(args.org)
      return { organization, keys: yield* (yield* ApiKeys).listForOrganization(organization.id) }
    }))
    yield* printJson({ items: keys.map((key) => apiKeyRecordJson(key, organization)), total: keys.length })
  })).pipe(Command.withDescription("List an organization's API keys, oldest first, revoked ones included; never the keys themselves."))

const revoke = Command.make("revoke", { org: orgOption, id: idArg }, (args) =>
  Effect.gen(function*() {
    const id = yield* decodeOption(ApiKeyId, "ID", args.id)
    const { apiKey, organization } = yield* withServices(Effect.gen(function*() {
      const organization = yield* organizationOf(args.org)
      return { organization, apiKey: yield* (yield* ApiKeys).revokeInOrganization(organization.id, id) }
    }))
    yield* printJson(apiKeyRecordJson(apiKey, organization))
  })).pipe(Command.withDescription("Revoke an API key: it is refused from now on (within a second by running servers); its record stays."))

const rotate = Command.make("rotate", { org: orgOption, id: idArg }, (args) =>
  Effect.gen(function*() {
    const id = yield* decodeOption(ApiKeyId, "ID", args.id)
    const issued = yield* withServices(Effect.gen(function*() {
      const organization = yield* organizationOf(args.org)
      const { apiKey, key } = yield* (yield* ApiKeys).rotateInOrganization(organization.id, id)
      return { apiKey, key, organization }
    })).pipe(Effect.mapError(optionErrors({ api_key: "ID" })))
    yield* Console.error("This is the only time the full key is shown; keep it somewhere safe. The old key is refused from now on.")
    yield* printJson(apiKeyJson(issued.apiKey, issued.key, issued.organization))
  })).pipe(Command.withDescription("Give an API key a new secret and print it once; the old one stops working."))

export const apiKeyCommand = Command.make("api-key").pipe(
  Command.withDescription("API keys."),
  Command.withSubcommands([create, list, revoke, rotate])
)
