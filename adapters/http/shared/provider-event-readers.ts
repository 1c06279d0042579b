import type { PaymentEventReport, ProviderEventReport } from "@roster/application"
import { Context } from "effect"

/**
 * How the providers' own event bodies read as the service's reports. The HTTP adapter receives
 * the events; the providers' adapters know their shapes, and the composition root hands them over.
 */
export interface ProviderEventReadersShape {
  /** The payment provider's events. */
  readonly payment: {
    /**
     * The event, once its signature holds over the raw body; rejects otherwise, with a
     * `SyntaxError` when the body is not JSON.
     */
    readonly verify: (body: string, signature: string, secret: string) => Promise<unknown>
    readonly read: (event: unknown) => PaymentEventReport
  }
  /** The email provider's events, once their signature is checked: the event, its key, when it came. */
  readonly email: (event: unknown, key: string, receivedAt: Date) => ProviderEventReport
}

export class ProviderEventReaders extends Context.Tag("roster/http/ProviderEventReaders")<
  ProviderEventReaders,
  ProviderEventReadersShape
>() {}
