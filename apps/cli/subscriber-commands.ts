import { Command, Options } from "@effect/cli"
import { Organizations, SubscriberExports } from "@roster/application"
import { SubscriberStatus } from "@roster/domain"
import { Console, Effect, Option, Stream } from "effect"
import { csvLines, subscriberColumns, subscriberRow, writeOut } from "./csv.js"
import { optional, optionErrors, parseChoice } from "./input.js"
import { withServices } from "./services.js"

const orgOption = Options.text("org").pipe(Options.withDescription("slug of the organization"))

const exportCommand = Command.make(
  "export",
  {
    org: orgOption,
    status: Options.text("status").pipe(
      Options.optional,
      Options.withDescription(`only subscribers of this status: ${SubscriberStatus.literals.join(", ")}`)
    ),
    tag: Options.text("tag").pipe(Options.optional, Options.withDescription("only subscribers with the tag of this name"))
  },
  (args) =>
    Effect.gen(function*() {
      const status = yield* optional(args.status, (value) => parseChoice("--status", SubscriberStatus.literals, value))
      const count = yield* withServices(Effect.gen(function*() {
        const organization = yield* (yield* Organizations).getBySlug(args.org)
        const exported = yield* (yield* SubscriberExports).open(organization.id, {
          status: Option.getOrUndefined(status),
          tagName: Option.getOrUndefined(args.tag)
        })
        yield* writeOut(csvLines([subscriberColumns(exported.metadataKeys)]))
        return yield* Stream.runFoldEffect(exported.pages, 0, (written, page) =>
          Effect.as(writeOut(csvLines(page.map((view) => subscriberRow(view, exported.metadataKeys)))), written + page.length))
      })).pipe(Effect.mapError(optionErrors({ tag: "--tag" })))
      yield* Console.error(`exported ${count} subscribers`)
    })
).pipe(
  Command.withDescription(
    "Write an organization's subscribers as CSV to stdout, oldest first: email, first_name, last_name, status, tags, " +
      "created_at and a metadata.KEY column per metadata key. Cells that a spreadsheet would run as a formula start with '."
  )
)

export const subscribersCommand = Command.make("subscribers").pipe(
  Command.withDescription("Subscribers, in and out."),
  Command.withSubcommands([exportCommand])
)
