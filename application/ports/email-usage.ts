import type { Limit, OrganizationId } from "@roster/domain"
import { Context, type Effect } from "effect"

/**
 * How many emails each organization handed to the provider per month. Counting is one atomic step
 * per acceptance, committed at once even inside a transaction: concurrent sends of one organization
 * never wait for each other's transactions, and never pass the limit together. What a transaction
 * counted stays counted if it rolls back, unless its caller gives it back.
 */
export class EmailUsage extends Context.Tag("roster/EmailUsage")<EmailUsage, {
  /** Counts `count` more emails in `month` if the total stays `withinLimit` of `max`; whether it did. */
  readonly reserve: (organizationId: OrganizationId, month: string, count: number, max: Limit) => Effect.Effect<boolean>
  /** Gives back emails counted for mail that was never accepted after all. */
  readonly release: (organizationId: OrganizationId, month: string, count: number) => Effect.Effect<void>
  readonly sentIn: (organizationId: OrganizationId, month: string) => Effect.Effect<number>
}>() {}
