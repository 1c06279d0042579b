import { Array, Either, Schema } from "effect"
import { EmailAddress } from "./email-address.js"
import { InvalidStatusTransition } from "./errors.js"
import { OrganizationId, SubscriberId } from "./ids.js"
import { Metadata, sameMetadata } from "./metadata.js"
import { type PlainReason, reason, reasonTextOf } from "./reason.js"
import { isStorableText, longerThan } from "./text.js"

export const SubscriberStatus = Schema.Literal("active", "unsubscribed", "bounced", "complained")
export type SubscriberStatus = typeof SubscriberStatus.Type
export const subscriberStatuses: ReadonlyArray<SubscriberStatus> = SubscriberStatus.literals

/** Who asks for a change of status. */
export const StatusActor = Schema.Literal("api", "subscriber", "provider", "import")
export type StatusActor = typeof StatusActor.Type

export interface StatusTransition {
  readonly from: SubscriberStatus
  readonly to: SubscriberStatus
  readonly by: ReadonlyArray<StatusActor>
  readonly why: string
}

/**
 * Every move a subscriber's status may make, and who may make it. Staying in the same status is
 * always allowed and changes nothing. Any move not listed here is refused.
 */
export const statusTransitions: ReadonlyArray<StatusTransition> = [
  { from: "active", to: "unsubscribed", by: ["api", "subscriber", "provider", "import"], why: "opt-out by the sender, the subscriber or the mailbox provider" },
  { from: "active", to: "bounced", by: ["provider", "import"], why: "hard bounce reported by the email provider (or by the list an import brings over)" },
  { from: "active", to: "complained", by: ["provider", "import"], why: "spam complaint reported by the email provider (or by the list an import brings over)" },
  { from: "unsubscribed", to: "active", by: ["api", "subscriber", "import"], why: "re-subscribed (by an import only when told to resubscribe)" },
  { from: "bounced", to: "active", by: ["api", "subscriber", "import"], why: "the address was fixed (by an import only when told to resubscribe)" },
  { from: "bounced", to: "unsubscribed", by: ["api", "subscriber", "import"], why: "opt-out" },
  { from: "complained", to: "active", by: ["subscriber", "import"], why: "only the subscriber's own action can undo a complaint (or an import told to resubscribe)" },
  { from: "complained", to: "unsubscribed", by: ["api", "subscriber", "import"], why: "opt-out" }
]

export const findTransition = (from: SubscriberStatus, to: SubscriberStatus): StatusTransition | undefined =>
  statusTransitions.find((t) => t.from === from && t.to === to)

/** The statuses `actor` may move a subscriber in status `from` to, in the table's order. */
export const allowedMoves = (from: SubscriberStatus, actor: StatusActor): ReadonlyArray<SubscriberStatus> =>
  statusTransitions.filter((t) => t.from === from && Array.contains(t.by, actor)).map((t) => t.to)

/** The status after `actor` asks to move from `from` to `to`, or why that is refused. */
export const transitionStatus = (
  from: SubscriberStatus,
  to: SubscriberStatus,
  actor: StatusActor
): Either.Either<SubscriberStatus, InvalidStatusTransition> => {
  if (from === to) return Either.right(to)
  const move = findTransition(from, to)
  return move !== undefined && Array.contains(move.by, actor)
    ? Either.right(to)
    : Either.left(new InvalidStatusTransition({ from, to, actor }))
}

export const MAX_NAME_LENGTH = 100

/** Why `s` (already trimmed) cannot be a first or last name, if it cannot. */
export const personNameReason = (s: string): PlainReason | undefined => {
  if (longerThan(s, MAX_NAME_LENGTH)) return reason("tooLong", { max: MAX_NAME_LENGTH })
  if (/\p{Cc}/u.test(s)) return reason("controlCharacters")
  if (!isStorableText(s)) return reason("unstorable")
  return undefined
}

/** {@link personNameReason} in English. */
export const personNameProblem = (s: string): string | undefined => reasonTextOf(personNameReason(s))

export const PersonName = Schema.Trim.pipe(Schema.filter(personNameProblem, { identifier: "PersonName" }))

export class Subscriber extends Schema.Class<Subscriber>("Subscriber")({
  id: SubscriberId,
  organizationId: OrganizationId,
  email: EmailAddress,
  status: SubscriberStatus,
  metadata: Metadata,
  firstName: Schema.NullOr(Schema.String),
  lastName: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
}) {}

/** What may change on a subscriber through an update; absent fields stay as they are. */
export interface SubscriberChanges {
  readonly status?: SubscriberStatus | undefined
  readonly metadata?: Metadata | undefined
  readonly firstName?: string | null | undefined
  readonly lastName?: string | null | undefined
}

/**
 * Applies `changes` as `actor`: the new subscriber and the names of the fields that really
 * changed, or the refused status move.
 */
export const applySubscriberChanges = (
  subscriber: Subscriber,
  changes: SubscriberChanges,
  actor: StatusActor,
  now: Date
): Either.Either<{ readonly subscriber: Subscriber; readonly changed: ReadonlyArray<string> }, InvalidStatusTransition> =>
  Either.gen(function*() {
    const status = changes.status === undefined
      ? subscriber.status
      : yield* transitionStatus(subscriber.status, changes.status, actor)
    const next = {
      status,
      metadata: changes.metadata ?? subscriber.metadata,
      firstName: changes.firstName === undefined ? subscriber.firstName : changes.firstName,
      lastName: changes.lastName === undefined ? subscriber.lastName : changes.lastName
    }
    const changed: Array<string> = []
    if (next.status !== subscriber.status) changed.push("status")
    if (!sameMetadata(next.metadata, subscriber.metadata)) changed.push("metadata")
    if (next.firstName !== subscriber.firstName) changed.push("first_name")
    if (next.lastName !== subscriber.lastName) changed.push("last_name")
    if (changed.length === 0) return { subscriber, changed }
    return { subscriber: new Subscriber({ ...subscriber, ...next, updatedAt: now }), changed }
  })
