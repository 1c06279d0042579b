import { Schema } from "effect"
import { CampaignId, MessageId, OrganizationId, SubscriberId, TemplateId } from "./ids.js"
import type { SubscriberStatus } from "./subscriber.js"

/**
 * A message is one email to one subscriber: what was rendered for them, where it stands, and what
 * happened to it. Transactional mail answers something the subscriber did (a receipt, a password
 * reset); marketing mail is everything else, and stops when they unsubscribe.
 */

export const MessageKind = Schema.Literal("transactional", "marketing")
export type MessageKind = typeof MessageKind.Type

/**
 * The kind of an email, campaign or trigger that does not say: marketing, the safe side, since it
 * honours unsubscribes and carries List-Unsubscribe. Transactional mail is said explicitly.
 */
export const DEFAULT_MESSAGE_KIND: MessageKind = "marketing"

/** The kind asked for, or the default. */
export const messageKindOr = (kind: MessageKind | undefined): MessageKind => kind ?? DEFAULT_MESSAGE_KIND

export const MessageStatus = Schema.Literal(
  "queued",
  "sent",
  "delivered",
  "opened",
  "clicked",
  "bounced",
  "complained",
  "failed",
  "suppressed",
  "sandboxed"
)
export type MessageStatus = typeof MessageStatus.Type
export const messageStatuses: ReadonlyArray<MessageStatus> = MessageStatus.literals

/** What can happen to a message; its history is a list of these. */
export const MessageEventType = Schema.Literal(
  "queued",
  "sent",
  "delivered",
  "delayed",
  "opened",
  "clicked",
  "bounced",
  "complained",
  "failed",
  "suppressed",
  "sandboxed",
  "retrying"
)
export type MessageEventType = typeof MessageEventType.Type

export class Message extends Schema.Class<Message>("Message")({
  id: MessageId,
  organizationId: OrganizationId,
  subscriberId: SubscriberId,
  templateId: Schema.NullOr(TemplateId),
  /** The campaign the email is part of; null for a single send. */
  campaignId: Schema.NullOr(CampaignId),
  kind: MessageKind,
  to: Schema.String,
  from: Schema.String,
  subject: Schema.String,
  html: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String),
  /** Headers the email carries beyond the usual ones (`List-Unsubscribe`, ...). */
  headers: Schema.Record({ key: Schema.String, value: Schema.String }),
  status: MessageStatus,
  /** The provider's id of the email, once it took it. */
  providerId: Schema.NullOr(Schema.String),
  /** Why the last attempt failed, or why the message was not sent. */
  error: Schema.NullOr(Schema.String),
  attemptCount: Schema.Number,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
}) {}

export class MessageEvent extends Schema.Class<MessageEvent>("MessageEvent")({
  type: MessageEventType,
  occurredAt: Schema.DateFromSelf,
  detail: Schema.NullOr(Schema.String)
}) {}

/**
 * The first event of a single send's history: its creation, in the status it was made in (queued,
 * or held), at its creation time, with why it was held. A campaign's email has none.
 */
export const creationEvent = (message: Message): MessageEvent =>
  new MessageEvent({ type: message.status, occurredAt: message.createdAt, detail: message.error }, true)

/** Why a message is not handed to the provider, if it is not. */
export type Withheld =
  | { readonly status: "suppressed"; readonly reason: string }
  | { readonly status: "sandboxed"; readonly reason: string }

/**
 * Whether an email to a subscriber in `status` goes out. Bounced and complained addresses never
 * receive anything, nor does a subscriber whose erasure is under way; unsubscribed ones only
 * transactional mail. A test key's email goes nowhere.
 * Suppression is told first: it is what would happen with a live key too.
 */
export const withheld = (
  status: SubscriberStatus,
  kind: MessageKind,
  sandboxed: boolean,
  erasureRequested = false
): Withheld | null => {
  if (erasureRequested) return { status: "suppressed", reason: "the subscriber asked for their data to be erased" }
  if (status === "bounced") return { status: "suppressed", reason: "the address bounced; it receives no email" }
  if (status === "complained") {
    return { status: "suppressed", reason: "the subscriber marked email as spam; they receive no email" }
  }
  if (status === "unsubscribed" && kind === "marketing") {
    return { status: "suppressed", reason: "the subscriber unsubscribed; they receive transactional email only" }
  }
  if (sandboxed) return { status: "sandboxed", reason: "sent with a test key: recorded, not delivered" }
  return null
}

/** How far a message that reached the provider got; later news of an earlier step changes nothing. */
const progress: Partial<Record<MessageStatus, number>> = { sent: 1, delivered: 2, opened: 3, clicked: 4 }

/**
 * The status after the provider reports `event`. Delivery, opening and clicking only move a
 * message forward (reports arrive out of order); a bounce or a complaint is final whatever came
 * before; the provider's own failure ends a message it had not delivered yet; a delay changes
 * nothing. A message the provider never took stays as it is.
 */
export const statusAfter = (current: MessageStatus, event: MessageEventType): MessageStatus => {
  if (current === "queued" || current === "failed" || current === "suppressed" || current === "sandboxed") {
    return current
  }
  if (event === "bounced" || event === "complained") {
    return current === "bounced" || current === "complained" ? current : event
  }
  if (current === "bounced" || current === "complained") return current
  if (event === "failed") return current === "sent" ? "failed" : current
  const rank = progress[event as MessageStatus]
  return rank !== undefined && rank > (progress[current] ?? 0) ? event as MessageStatus : current
}

/** At most this many emails go to the provider in one call (Resend's batch limit). */
export const MAX_BATCH_SIZE = 100

/**
 * The waits before each attempt after a failure that may pass: a provider outage of up to about
 * a day holds messages queued, and they go out when it ends.
 */
export const MESSAGE_RETRY_DELAYS_MS: ReadonlyArray<number> = [
  10_000,
  30_000,
  2 * 60_000,
  10 * 60_000,
  30 * 60_000,
  60 * 60_000,
  2 * 3_600_000,
  4 * 3_600_000,
  8 * 3_600_000
]

/**
 * When the attempt after the `attempts`-th failed one may run, at least `retryAfterMs` later when
 * the provider asked for that; `null` when the message has had every attempt.
 */
export const nextAttemptAt = (attempts: number, failedAt: Date, retryAfterMs: number | null): Date | null => {
  const delay = MESSAGE_RETRY_DELAYS_MS[attempts - 1]
  if (delay === undefined) return null
  return new Date(failedAt.getTime() + Math.max(delay, retryAfterMs ?? 0))
}

/** The month an email counts in against the plan, `YYYY-MM` in UTC. */
export const usageMonth = (at: Date): string => at.toISOString().slice(0, 7)
