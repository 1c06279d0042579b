import { Context } from "effect"

/** What every outgoing email of the service shares, as the operator configured it. */
export class OutgoingMailConfig extends Context.Tag("roster/OutgoingMailConfig")<OutgoingMailConfig, {
  /** The sender of email (`Name <address>`) whose organization set no address of its own. */
  readonly defaultFrom: string
  /** The base of links in emails (preference center, one-click unsubscribe). */
  readonly publicBaseUrl: string
  /** A `mailto:` target for `List-Unsubscribe` beside the one-click URL; `null` for none. */
  readonly unsubscribeMailto: string | null
}>() {}
