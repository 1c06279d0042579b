import { Args, Command, Options } from "@effect/cli"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { type ImportBatchReport, Organizations, SubscriberExports, SubscriberImports } from "@roster/application"
import { type RowProblem, SubscriberStatus } from "@roster/domain"
import { Console, Effect, Option, Stream } from "effect"
import { closeSync, createReadStream, openSync, statSync, writeSync } from "node:fs"
import { csvLines, makeSubscriberLines, subscriberColumns, writeOut } from "./csv.js"
import { makeProgress, plainEveryMs } from "./progress.js"
import { countRecords } from "./record-count.js"
import { CliInputError, optional, optionErrors, parseChoice } from "./input.js"
import { printJson } from "./print.js"
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
      const everyMs = yield* progressEvery
      const count = yield* withServices(Effect.gen(function*() {
        const organization = yield* (yield* Organizations).getBySlug(args.org)
        const exported = yield* (yield* SubscriberExports).open(organization.id, {
          status: Option.getOrUndefined(status),
          tagName: Option.getOrUndefined(args.tag)
        })
        yield* writeOut(csvLines([subscriberColumns(exported.metadataKeys)]))
        const lines = makeSubscriberLines(exported.metadataKeys)
        const progress = makeProgress({ doing: "exporting", unit: "subscribers", everyMs })
        progress.setTotal(exported.subscriberCount)
        return yield* Stream.runFoldEffect(exported.pages, 0, (written, page) =>
          Effect.map(writeOut(lines(page)), () => {
            progress.update(written + page.length)
            return written + page.length
          })).pipe(Effect.ensuring(Effect.sync(() => progress.stop())))
      })).pipe(Effect.mapError(optionErrors({ tag: "--tag" })))
      yield* Console.error(`exported ${count} subscribers`)
    })
).pipe(
  Command.withDescription(
    "Write an organization's subscribers as CSV to stdout, oldest first: email, first_name, last_name, status, tags, " +
      "created_at and a metadata.KEY column per metadata key. Cells that a spreadsheet would run as a formula start with '."
  )
)

/** How often progress lines are written off a terminal, or why ROSTER_PROGRESS_SECONDS cannot say. */
const progressEvery = Effect.suspend(() => {
  const every = plainEveryMs()
  return every instanceof Error ? Effect.fail(new CliInputError({ message: every.message })) : Effect.succeed(every)
})

/** Chunks a file is read in. */
const READ_CHUNK_BYTES = 256 * 1024

/** Problems told on stderr as they come; every one is in the JSON report (and the --problems file). */
const PROBLEMS_SHOWN = 20

/** What stops a file from being read at all, in an operator's words. */
const unreadable = (path: string, error: unknown) => {
  const code = (error as { readonly code?: unknown } | null)?.code
  const why = code === "ENOENT"
    ? "no such file"
    : code === "EACCES" || code === "EPERM"
    ? "permission denied"
    : code === "EISDIR"
    ? "is a directory"
    : error instanceof Error
    ? error.message
    : String(error)
  return new CliInputError({ message: `${path}: cannot be read (${why})` })
}

const sizeOf = (path: string) =>
  Effect.try({
    try: () => {
      const stat = statSync(path)
      if (stat.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" })
      return stat.size
    },
    catch: (error) => unreadable(path, error)
  })

const problemJson = (p: RowProblem) => ({ line: p.line, field: p.field, problem: p.problem, email: p.email ?? null })

/** Every problem row, as CSV, in a file of the operator's choosing. */
const problemsFile = (path: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const fd = openSync(path, "w")
        writeSync(fd, csvLines([["line", "field", "problem", "email"]]))
        return fd
      },
      catch: (error) => new CliInputError({ message: `--problems: ${path} cannot be written (${error instanceof Error ? error.message : String(error)})` })
    }),
    (fd) => Effect.sync(() => closeSync(fd))
  ).pipe(Effect.map((fd) => (problems: ReadonlyArray<RowProblem>) =>
    Effect.sync(() => {
      if (problems.length === 0) return
      writeSync(fd, csvLines(problems.map((p) => [String(p.line), p.field, p.problem, p.email ?? ""])))
    })
  ))

const importCommand = Command.make(
  "import",
  {
    file: Args.file({ name: "file" }).pipe(Args.withDescription("the CSV file: a header line, then a subscriber a row")),
    org: orgOption,
    resubscribe: Options.boolean("resubscribe").pipe(
      Options.withDescription("make unsubscribed, bounced and complained subscribers the file names active again")
    ),
    encoding: Options.text("encoding").pipe(
      Options.withDefault("utf-8"),
      Options.withDescription("the file's encoding when it is not UTF-8 (windows-1252, iso-8859-1, utf-16le, ...); a byte-order mark wins")
    ),
    problems: Options.file("problems").pipe(
      Options.optional,
      Options.withDescription("write every problem row to this CSV file (line, field, problem, email)")
    )
  },
  (args) =>
    Effect.gen(function*() {
      yield* sizeOf(args.file)
      const everyMs = yield* progressEvery
      const startedAt = Date.now()
      const result = yield* withServices(Effect.scoped(Effect.gen(function*() {
        const imports = yield* SubscriberImports
        const organization = yield* (yield* Organizations).getBySlug(args.org)
        const writeProblems = Option.isSome(args.problems) ? yield* problemsFile(args.problems.value) : undefined
        // Rows of the file committed, of the rows it holds: those are counted first, in a quick
        // pass over the file that decodes no cell (a second or so for a million rows), so that the
        // bar has its percentage and time left from the start.
        const records = yield* Effect.tryPromise((signal) => countRecords(args.file, args.encoding, signal)).pipe(
          // A file that cannot be read, or read so, is refused by the import itself, in its words.
          Effect.option
        )
        const progress = makeProgress({ doing: "importing", unit: "rows", problems: true, everyMs })
        if (Option.isSome(records)) progress.setTotal(Math.max(records.value - 1, 0))
        let shown = 0
        const onBatch = (report: ImportBatchReport) =>
          Effect.gen(function*() {
            progress.update(Math.max(report.recordsDone - 1, 0), report.total.failed)
            if (writeProblems !== undefined) yield* writeProblems(report.problems)
            for (const p of report.problems) {
              if (shown++ >= PROBLEMS_SHOWN) break
              process.stderr.write(`roster: line ${p.line}: ${p.field}: ${p.problem}\n`)
            }
          })
        const bytes = NodeStream.fromReadable<CliInputError, Uint8Array>(
          () => createReadStream(args.file, { highWaterMark: READ_CHUNK_BYTES }),
          (error) => unreadable(args.file, error)
        )
        return yield* imports.run(bytes, {
          organization,
          options: { resubscribe: args.resubscribe, createTags: true, encoding: args.encoding },
          progress: onBatch
        }).pipe(Effect.ensuring(Effect.sync(() => progress.stop())))
      }))).pipe(Effect.mapError(optionErrors({ encoding: "--encoding" })))
      const seconds = (Date.now() - startedAt) / 1000
      const { counts } = result
      yield* printJson({
        file: args.file,
        organization: args.org,
        completed: result.failure === null,
        rows: counts.rows,
        created: counts.created,
        updated: counts.updated,
        unchanged: counts.unchanged,
        failed: counts.failed,
        kept_status: counts.keptStatus,
        ignored_columns: result.ignoredColumns,
        problem_count: result.problemCount,
        problems: result.problems.map(problemJson),
        failure: result.failure === null ? null : { line: result.failure.line, problem: result.failure.problem },
        seconds: Math.round(seconds * 10) / 10,
        rows_per_second: seconds > 0 ? Math.round(counts.rows / seconds) : counts.rows
      })
      if (result.problemCount > PROBLEMS_SHOWN) {
        yield* Console.error(`${result.problemCount - PROBLEMS_SHOWN} more problem rows: see "problems" in the report${Option.isSome(args.problems) ? " and the --problems file" : ""}`)
      }
      if (result.failure !== null) {
        return yield* new CliInputError({
          message: `${args.file}: ${result.failure.message}; the rows before it were imported, and running the import again after a fix changes nothing they did`
        })
      }
      yield* Console.error(`imported ${counts.rows} rows: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.failed} with problems`)
    })
).pipe(
  Command.withDescription(
    "Bring subscribers in from a CSV file, found by email: new ones are made, existing ones get the row's names, " +
      "status and metadata keys, and the row's tags are added (tags named that no tag has are made). Columns: email " +
      "(required), first_name, last_name, status, tags (comma-separated names), metadata.KEY; others are passed over. " +
      "Unsubscribed, bounced and complained subscribers stay so unless --resubscribe. Rows with problems are reported " +
      "with their line; the rest go in. Prints a JSON report; running a file again changes nothing it did."
  )
)

export const subscribersCommand = Command.make("subscribers").pipe(
  Command.withDescription("Subscribers, in and out."),
  Command.withSubcommands([importCommand, exportCommand])
)
