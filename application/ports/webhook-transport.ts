import type { InvalidInput, SendResult } from "@roster/domain"
import { Context, type Effect } from "effect"

/** One signed message, ready to POST. */
export interface WebhookMessage {
  readonly url: string
  /** `webhook-id`: the event's id, the same on every attempt. */
  readonly id: string
  /** `webhook-timestamp`: when this attempt is sent. */
  readonly timestamp: Date
  /** The exact JSON text that is signed and sent. */
  readonly body: string
  /** `whsec_` secrets; each one adds a signature to `webhook-signature`. */
  readonly secrets: ReadonlyArray<string>
}

/**
 * Sends webhook messages over HTTP. Private, loopback and metadata targets are refused on the
 * addresses the host resolves to (unless the operator allows private targets), redirects are
 * never followed and every send ends within the delivery time-out.
 */
export class WebhookTransport extends Context.Tag("roster/WebhookTransport")<WebhookTransport, {
  /** Refuses a URL that may not be called, as an `InvalidInput` on `field`, saying why. */
  readonly checkTarget: (url: string, field: string) => Effect.Effect<void, InvalidInput>
  /** Signs and POSTs a message. A refused target, a time-out or a refused connection is a result, not a failure. */
  readonly send: (message: WebhookMessage) => Effect.Effect<SendResult>
}>() {}
