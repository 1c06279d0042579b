import type { BillingAccount, OrganizationId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

export class BillingAccountRepository extends Context.Tag("roster/BillingAccountRepository")<BillingAccountRepository, {
  /** The organization's account; `None` while it has none. */
  readonly find: (organizationId: OrganizationId) => Effect.Effect<Option.Option<BillingAccount>>
  /** The account of the provider's customer, if it is one of ours. */
  readonly findByCustomer: (customerId: string) => Effect.Effect<Option.Option<BillingAccount>>
  /**
   * The organization's account, made empty (as `empty`) if it has none, and held until the
   * transaction around the call ends: concurrent holders of one organization's account take turns.
   * `None` when the organization does not exist.
   */
  readonly hold: (empty: BillingAccount) => Effect.Effect<Option.Option<BillingAccount>>
  /** Stores the account, replacing the one before; nothing when its organization does not exist. */
  readonly save: (account: BillingAccount) => Effect.Effect<void>
  /**
   * Notes that the provider's event `eventId` was taken, and whether it is the first time. Inside a
   * transaction, a rollback forgets it again, so the provider's retry is taken.
   */
  readonly recordEvent: (eventId: string, receivedAt: Date) => Effect.Effect<boolean>
  /**
   * Organizations above the free plan whose subscription ended (canceled, unpaid, expired or
   * paused) with a period that has passed by `now`, not settled yet: up to `limit` of them.
   */
  readonly listEnded: (now: Date, limit: number) => Effect.Effect<ReadonlyArray<OrganizationId>>
}>() {}
