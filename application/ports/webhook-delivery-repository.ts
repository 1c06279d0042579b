import type {
  DomainEvent,
  OrganizationId,
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryHistory,
  WebhookDeliveryId,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEndpointId
} from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

/** A delivery a worker holds a lease on, with what it needs to send it. */
export interface LeasedDelivery {
  readonly delivery: WebhookDelivery
  readonly endpoint: WebhookEndpoint
  readonly event: DomainEvent
}

/** Attempts over a span of time, of one endpoint or of an organization. */
export interface WebhookAttemptStats {
  readonly attempts: number
  readonly succeeded: number
  readonly failed: number
  /** Durations of the attempts, in milliseconds; null without attempts. */
  readonly p50Ms: number | null
  readonly p95Ms: number | null
  readonly lastSuccessAt: Date | null
  readonly lastFailureAt: Date | null
  /** Deliveries still waiting for an attempt (not limited to the span). */
  readonly pending: number
}

export interface DeliveryPage {
  readonly items: ReadonlyArray<WebhookDeliveryHistory>
  readonly hasMore: boolean
}

export class WebhookDeliveryRepository extends Context.Tag("roster/WebhookDeliveryRepository")<
  WebhookDeliveryRepository,
  {
    /** Adds deliveries, skipping any whose endpoint already has one for the same event. */
    readonly insertMany: (deliveries: ReadonlyArray<WebhookDelivery>) => Effect.Effect<void>
    /**
     * Leases up to `limit` pending deliveries due at `now` whose endpoint is active, oldest due
     * first, skipping rows another worker is claiming (`FOR UPDATE SKIP LOCKED`). A leased delivery
     * is next due at `leasedUntil` and carries `leaseToken`: no other worker takes it while this one
     * sends, and if this one dies it comes due again when the lease runs out. Deliveries to the
     * endpoints in `skipEndpoints` (those the worker already sends enough to) are passed over.
     */
    readonly claimDue: (input: {
      readonly now: Date
      readonly limit: number
      readonly leaseToken: string
      readonly leasedUntil: Date
      readonly skipEndpoints?: ReadonlyArray<WebhookEndpointId> | undefined
    }) => Effect.Effect<ReadonlyArray<LeasedDelivery>>
    /**
     * Records an attempt and the delivery's new state, if `leaseToken` still holds the lease (the
     * lease ends either way). Whether it did.
     */
    readonly recordAttempt: (input: {
      readonly deliveryId: WebhookDeliveryId
      readonly leaseToken: string
      readonly attempt: WebhookAttempt
      readonly status: WebhookDeliveryStatus
      readonly nextAttemptAt: Date | null
    }) => Effect.Effect<boolean>
    /**
     * Records an attempt of a test delivery (`delivery.test`): the delivery is added on its first
     * attempt and takes the status, attempt count and time of each later one. Never pending, so no
     * worker claims it.
     */
    readonly recordTest: (input: {
      readonly delivery: WebhookDelivery
      readonly attempt: WebhookAttempt
    }) => Effect.Effect<void>
    /**
     * Holds the endpoint's pending deliveries while it is disabled: they keep their place but have
     * no next attempt, so claims never have to step over them.
     */
    readonly holdPending: (endpointId: WebhookEndpointId, at: Date) => Effect.Effect<void>
    /** Makes the endpoint's held deliveries due at `now`. */
    readonly resumeHeld: (endpointId: WebhookEndpointId, now: Date) => Effect.Effect<void>
    /**
     * Holds the lease of a delivery being sent until `leasedUntil`, while `leaseToken` still holds
     * it; whether it did.
     */
    readonly renewLease: (input: {
      readonly deliveryId: WebhookDeliveryId
      readonly leaseToken: string
      readonly leasedUntil: Date
    }) => Effect.Effect<boolean>
    /** Gives back leased deliveries unsent: due again at `now`. */
    readonly release: (leaseToken: string, ids: ReadonlyArray<WebhookDeliveryId>, now: Date) => Effect.Effect<void>
    readonly findById: (
      organizationId: OrganizationId,
      endpointId: WebhookEndpointId,
      id: WebhookDeliveryId
    ) => Effect.Effect<Option.Option<WebhookDeliveryHistory>>
    /** The endpoint's deliveries, newest first, after the cursor's delivery id, optionally of one status. */
    readonly listByEndpoint: (input: {
      readonly organizationId: OrganizationId
      readonly endpointId: WebhookEndpointId
      readonly limit: number
      readonly after: Option.Option<WebhookDeliveryId>
      readonly status: Option.Option<WebhookDeliveryStatus>
    }) => Effect.Effect<DeliveryPage>
    /**
     * Makes a delivery due at `now` again, whatever its state, keeping its attempts (and its
     * `webhook-id`). `None` when it does not exist.
     */
    readonly retryNow: (
      organizationId: OrganizationId,
      endpointId: WebhookEndpointId,
      id: WebhookDeliveryId,
      now: Date
    ) => Effect.Effect<Option.Option<WebhookDeliveryHistory>>
    /**
     * Deletes up to `limit` deliveries that succeeded or failed for good and last changed before
     * `before`, with their attempts; how many it deleted.
     */
    readonly pruneFinished: (before: Date, limit: number) => Effect.Effect<number>
    /** Attempts since `since` of one endpoint, or of every endpoint of the organization. */
    readonly stats: (input: {
      readonly organizationId: OrganizationId
      readonly endpointId: Option.Option<WebhookEndpointId>
      readonly since: Date
    }) => Effect.Effect<WebhookAttemptStats>
  }
>() {}
