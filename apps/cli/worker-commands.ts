import { Command, Options } from "@effect/cli"
import { type Backlog, lagSeconds, WorkerHealth, type WorkerHealthReport } from "@roster/application"
import { Console, Effect, Option } from "effect"
import { CliInputError, optional, parseInteger } from "./input.js"
import { printJson } from "./print.js"
import { withServices } from "./services.js"

/** Seconds with millisecond precision at most. */
const seconds = (value: number | null) => (value === null ? null : Math.round(value * 1_000) / 1_000)

const backlogJson = (backlog: Backlog, at: Date, waiting: string) => ({
  [waiting]: backlog.waiting,
  due: backlog.due,
  oldest_due_age_seconds: seconds(lagSeconds(backlog, at))
})

export const healthJson = ({ backlog, checkedAt, healthy, maxLagSeconds, overdue }: WorkerHealthReport) => ({
  healthy,
  checked_at: checkedAt.toISOString(),
  max_lag_seconds: maxLagSeconds,
  overdue: overdue.map((o) => ({ work: o.work, lag_seconds: seconds(o.lagSeconds) })),
  events: backlogJson(backlog.events, checkedAt, "undispatched"),
  webhook_deliveries: backlogJson(backlog.webhookDeliveries, checkedAt, "pending"),
  emails: backlogJson(backlog.emails, checkedAt, "queued"),
  campaigns: {
    sending: backlog.sendingCampaigns,
    emails: backlogJson(backlog.campaignEmails, checkedAt, "queued"),
    scheduled: backlogJson(backlog.scheduledCampaigns, checkedAt, "waiting")
  },
  trigger_firings: backlogJson(backlog.triggerFirings, checkedAt, "pending"),
  sequence_steps: backlogJson(backlog.sequenceSteps, checkedAt, "waiting"),
  imports: backlogJson(backlog.imports, checkedAt, "unfinished")
})

const health = Command.make(
  "health",
  {
    maxLag: Options.text("max-lag").pipe(
      Options.optional,
      Options.withDescription("seconds that due work may wait before the check fails; 60 when left out")
    )
  },
  (args) =>
    Effect.gen(function*() {
      const maxLag = Option.getOrElse(
        yield* optional(args.maxLag, (value) => parseInteger("--max-lag", value, { min: 0, max: 7 * 24 * 3_600 })),
        () => 60
      )
      const report = yield* withServices(Effect.flatMap(WorkerHealth, (workers) => workers.check(maxLag)))
      yield* printJson(healthJson(report))
      if (!report.healthy) {
        const late = report.overdue.map((o) => `${o.work} waited ${Math.round(o.lagSeconds)} s`).join(", ")
        return yield* new CliInputError({ message: `work is overdue (more than --max-lag ${maxLag} s): ${late}` })
      }
      yield* Console.error("no work is overdue")
    })
).pipe(
  Command.withDescription(
    "Report the background work waiting in the database (JSON) and exit 1 when any has been due for longer than --max-lag: " +
      "a health check for workers."
  )
)

export const workerCommand = Command.make("worker").pipe(
  Command.withDescription("Background workers."),
  Command.withSubcommands([health])
)
