import type { NewSequence, SequenceChanges } from "@roster/application"
import {
  type Enrollment,
  EnrollmentState,
  entryToJson,
  ExitReason,
  MAX_SEQUENCE_NAME_LENGTH,
  ReEntry,
  type Sequence,
  SequenceEntrySchema,
  SequenceName,
  SequenceStatus,
  SequenceSteps,
  stepToJson,
  type StepFigures,
  SubscriberId,
  TagId
} from "@roster/domain"
import { Schema } from "effect"
import { Count, IdInput, oneOf, strictInput, Timestamp, Uuid } from "./wire-fields.js"

/** Sequences as every form shows and takes them. */

const NameInput = SequenceName.annotations({
  jsonSchema: { type: "string", minLength: 1, maxLength: MAX_SEQUENCE_NAME_LENGTH, description: "for people; trimmed" }
})
const GoalInput = Schema.NullOr(IdInput(TagId, "a tag of the organization: a subscriber given it leaves the sequence before the next step"))
const ReEntryInput = oneOf(ReEntry, "`once` (default): a subscriber enters at most once; `each_time`: again on each entry, when not in it")
const TimeZoneInput = Schema.String.annotations({
  jsonSchema: {
    type: "string",
    maxLength: 64,
    description: "the IANA zone of waits until a time of day for subscribers whose metadata names none; by default the " +
      "organization's (`GET /settings/organization`, UTC until set) when the sequence is made"
  }
})

export const CreateSequenceRequest = Schema.Struct({
  name: NameInput,
  entry: SequenceEntrySchema,
  steps: SequenceSteps,
  goal_tag_id: Schema.optionalWith(GoalInput, { exact: true }),
  re_entry: Schema.optionalWith(ReEntryInput, { exact: true }),
  time_zone: Schema.optionalWith(TimeZoneInput, { exact: true })
}).annotations({ identifier: "CreateSequenceRequest", ...strictInput })

export const UpdateSequenceRequest = Schema.Struct({
  name: Schema.optionalWith(NameInput, { exact: true }),
  entry: Schema.optionalWith(SequenceEntrySchema, { exact: true }),
  steps: Schema.optionalWith(SequenceSteps, { exact: true }),
  goal_tag_id: Schema.optionalWith(GoalInput, { exact: true }),
  re_entry: Schema.optionalWith(ReEntryInput, { exact: true }),
  time_zone: Schema.optionalWith(TimeZoneInput, { exact: true })
}).annotations({ identifier: "UpdateSequenceRequest", description: "fields left out stay as they are", ...strictInput })

export const EnrollRequest = Schema.Struct({
  subscriber_id: IdInput(SubscriberId, "a subscriber of the organization")
}).annotations({ identifier: "EnrollRequest", ...strictInput })

const Json = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const SequenceView = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  status: SequenceStatus.annotations({ description: "draft (enrolls nobody), active, or paused (enrolls nobody; enrollments wait)" }),
  version: Count("the version new enrollments run; each change of steps of a sequence out of draft makes the next"),
  entry: Json,
  steps: Schema.Array(Json),
  goal_tag_id: Schema.NullOr(Uuid),
  re_entry: ReEntry,
  time_zone: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Sequence" })

export const toSequenceView = (sequence: Sequence): typeof SequenceView.Type => ({
  id: sequence.id,
  name: sequence.name,
  status: sequence.status,
  version: sequence.version,
  entry: entryToJson(sequence.entry),
  steps: sequence.steps.map(stepToJson),
  goal_tag_id: sequence.goalTagId,
  re_entry: sequence.reEntry,
  time_zone: sequence.timeZone,
  created_at: sequence.createdAt.toISOString(),
  updated_at: sequence.updatedAt.toISOString()
})

export const EnrollmentView = Schema.Struct({
  id: Uuid,
  sequence_id: Uuid,
  subscriber_id: Uuid,
  version: Count("the version of the sequence it runs"),
  state: EnrollmentState,
  current_step: Schema.String.annotations({ description: "the step it is at: the one it runs next, waits in, or ended at" }),
  current_step_index: Count("that step's place in the version's steps, from 0"),
  waiting: Schema.Boolean.annotations({ description: "whether it waits in a wait step until next_run_at" }),
  next_run_at: Schema.NullOr(Timestamp).annotations({ description: "when it moves on; null once it ended" }),
  exit_reason: Schema.NullOr(ExitReason),
  sandboxed: Schema.Boolean.annotations({ description: "enrolled with a test key: its emails are recorded, never delivered" }),
  entered_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "SequenceEnrollment" })

export const toEnrollmentView = (e: Enrollment): typeof EnrollmentView.Type => ({
  id: e.id,
  sequence_id: e.sequenceId,
  subscriber_id: e.subscriberId,
  version: e.version,
  state: e.state,
  current_step: e.stepName,
  current_step_index: e.stepIndex,
  waiting: e.waiting,
  next_run_at: e.nextRunAt?.toISOString() ?? null,
  exit_reason: e.exitReason,
  sandboxed: e.sandboxed,
  entered_at: e.enteredAt.toISOString(),
  updated_at: e.updatedAt.toISOString()
})

export const StepFiguresView = Schema.Struct({
  step: Schema.String,
  entered: Count("enrollments that reached the step"),
  completed: Count("that left it for the next"),
  exited: Count("that ended there early (unsubscribed, bounced, complained, the goal, removed)"),
  emails_sent: Count("emails it queued for sending (not those withheld)"),
  opened: Count("of those, opened or clicked"),
  clicked: Count("of those, clicked")
}).annotations({ identifier: "SequenceStepFigures" })

export const SequenceFiguresView = Schema.Struct({ steps: Schema.Array(StepFiguresView) })
  .annotations({ identifier: "SequenceFigures" })

export const toFiguresView = (figures: ReadonlyArray<StepFigures>): typeof SequenceFiguresView.Type => ({
  steps: figures.map((f) => ({
    step: f.step,
    entered: f.entered,
    completed: f.completed,
    exited: f.exited,
    emails_sent: f.emailsSent,
    opened: f.opened,
    clicked: f.clicked
  }))
})

export const toSequenceChanges = (payload: typeof UpdateSequenceRequest.Type): SequenceChanges => ({
  name: payload.name,
  entry: payload.entry,
  steps: payload.steps,
  goalTagId: payload.goal_tag_id,
  reEntry: payload.re_entry,
  timeZone: payload.time_zone
})

export const toNewSequence = (payload: typeof CreateSequenceRequest.Type): NewSequence => ({
  ...toSequenceChanges(payload),
  name: payload.name,
  entry: payload.entry,
  steps: payload.steps
})

/** How sequences work, told once for both forms. */
export const sequenceRules = `A sequence takes subscribers through steps once they enter. The entry is an event
(\`subscriber.created\`, \`tag.subscribed\` with an optional \`tag_id\`, \`subscriber.confirmed\` with an optional \`form_id\`,
\`segment.entered\` with a \`segment_id\`) or \`api\` (only \`POST .../enrollments\`). Steps run in order, each an object with an
optional \`name\` (default \`step_<n>\`) and one action: \`send_email\` (\`template_id\`, \`kind\`, \`data\`), \`wait\` (an ISO 8601
duration such as \`PT30S\` or \`P3D\`, at least a second; or \`{"until": "09:00", "weekdays": [...], "time_zone_field": ...}\`,
the next such local time in the subscriber's zone, read from that metadata key, else the sequence's \`time_zone\`),
\`branch\` (\`if\` one of \`filter\` (a segment filter), \`opened_previous_email\`, \`clicked_previous_email\`, \`has_tag\`; then
\`go_to\` a named step, else \`else_go_to\` or the next step), \`add_tag\`, \`remove_tag\` (\`tag_id\`), \`end\`. A loop must hold a
wait. A subscriber who unsubscribed, bounced or complained, or carries the \`goal_tag_id\`, leaves before the next step
runs, even one already due. Each step of an enrollment runs once: the worker takes due enrollments under a row lock,
and the step's effect (the email queued, the tag changed) commits with the move to the next step. Emails follow the
rules of every email (withheld states, the plan's monthly limit, List-Unsubscribe for marketing); an enrollment made
with a test key sends sandboxed email. A sequence is made a \`draft\`, enrolls while \`active\`, and while \`paused\` enrolls
nobody and its enrollments wait. Changing the steps of a sequence out of draft makes a new version for those who enter
from then on; those in flight finish the version they started.`
