import type {
  Limit,
  OrganizationId,
  WebhookDisabledReason,
  WebhookEndpoint,
  WebhookEndpointId
} from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

export class WebhookEndpointRepository extends Context.Tag("roster/WebhookEndpointRepository")<
  WebhookEndpointRepository,
  {
    /**
     * Stores a new endpoint if its organization's endpoints stay `withinLimit` of `max`; whether it
     * was stored. Concurrent inserts of one organization never pass the limit together.
     */
    readonly insert: (endpoint: WebhookEndpoint, max: Limit) => Effect.Effect<boolean>
    /** Stores every field as given. */
    readonly update: (endpoint: WebhookEndpoint) => Effect.Effect<void>
    readonly findById: (
      organizationId: OrganizationId,
      id: WebhookEndpointId
    ) => Effect.Effect<Option.Option<WebhookEndpoint>>
    /** The organization's endpoints, oldest first. */
    readonly listByOrganization: (organizationId: OrganizationId) => Effect.Effect<ReadonlyArray<WebhookEndpoint>>
    readonly countByOrganization: (organizationId: OrganizationId) => Effect.Effect<number>
    /** Deletes the endpoint with its deliveries and their attempts; whether it existed. */
    readonly delete: (organizationId: OrganizationId, id: WebhookEndpointId) => Effect.Effect<boolean>
    /** The organization an endpoint id belongs to, whichever it is. */
    readonly organizationOf: (id: WebhookEndpointId) => Effect.Effect<Option.Option<OrganizationId>>
    /** The active endpoints of these organizations. */
    readonly activeOf: (organizationIds: ReadonlyArray<OrganizationId>) => Effect.Effect<ReadonlyArray<WebhookEndpoint>>
    /** The endpoint answered: its run of failures, if any, is over. */
    readonly markAnswered: (id: WebhookEndpointId) => Effect.Effect<void>
    /**
     * The endpoint failed at `at`: it is failing since then unless it already was. Answers since
     * when it has been failing (`None` when the endpoint is gone).
     */
    readonly markFailed: (id: WebhookEndpointId, at: Date) => Effect.Effect<Option.Option<Date>>
    /** Disables an active endpoint for `reason`; one already disabled keeps its reason. */
    readonly disable: (id: WebhookEndpointId, reason: WebhookDisabledReason, at: Date) => Effect.Effect<void>
  }
>() {}
