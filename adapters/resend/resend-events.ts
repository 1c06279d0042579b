import type { ProviderEventReport } from "@roster/application"
import type { MessageEventType } from "@roster/domain"

/**
 * Resend's webhook events (`{type, created_at, data: {email_id, to, ...}}`) as the reports the
 * service applies. Kinds the service does not track (`email.sent`, `email.scheduled`, `contact.*`,
 * `domain.*`, kinds yet to come) read as reports of no type, acknowledged and ignored; so does a
 * body of a shape Resend never sends, as providers' events are never refused for their content.
 */

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const text = (u: unknown): string | null => typeof u === "string" && u.trim() !== "" ? u : null

const kindOf = (type: string, data: Record<string, unknown>): { type: MessageEventType; detail: string | null } | null => {
  switch (type) {
    case "email.delivered":
      return { type: "delivered", detail: null }
    case "email.delivery_delayed":
      return { type: "delayed", detail: "the receiving server has not accepted it yet" }
    case "email.opened":
      return { type: "opened", detail: null }
    case "email.clicked": {
      const click = isRecord(data.click) ? data.click : {}
      return { type: "clicked", detail: text(click.link) }
    }
    case "email.complained":
      return { type: "complained", detail: "the recipient marked it as spam" }
    case "email.failed": {
      const failed = isRecord(data.failed) ? data.failed : {}
      return { type: "failed", detail: text(failed.reason) ?? "the provider could not send it" }
    }
    case "email.bounced": {
      const bounce = isRecord(data.bounce) ? data.bounce : {}
      const message = text(bounce.message)
      // Only a permanent bounce stops mail to the address; a transient one is a delay.
      const transient = bounce.type === "Transient" || bounce.type === "Undetermined"
      return transient
        ? { type: "delayed", detail: `soft bounce${message === null ? "" : `: ${message}`}` }
        : { type: "bounced", detail: message ?? "hard bounce" }
    }
    default:
      return null
  }
}

/** The report of a Resend event; `key` names the delivery (Svix's message id, or a digest of the body). */
export const readResendEvent = (body: unknown, key: string, receivedAt: Date): ProviderEventReport => {
  const event = isRecord(body) ? body : {}
  const data = isRecord(event.data) ? event.data : {}
  const kind = typeof event.type === "string" ? kindOf(event.type, data) : null
  const at = typeof event.created_at === "string" ? new Date(event.created_at) : receivedAt
  const to = Array.isArray(data.to) ? data.to : [data.to]
  return {
    key,
    type: kind?.type ?? null,
    providerId: text(data.email_id),
    recipients: to.flatMap((r) => {
      const address = text(r)
      return address === null ? [] : [address.replace(/^.*<([^<>]+)>\s*$/, "$1").trim()]
    }),
    occurredAt: Number.isNaN(at.getTime()) ? receivedAt : at,
    detail: kind?.detail ?? null
  }
}
