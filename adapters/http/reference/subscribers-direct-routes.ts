import { Subscribers } from "@roster/application"
import { Effect } from "effect"
import { type DirectRoute, directRoute } from "../shared/direct-lane.js"
import { ReferenceApi } from "./api.js"
import { createOrRequest, toSubscriber } from "./subscribers-handlers.js"

/**
 * The endpoints `subscribers.create` and `subscribers.get` on the direct lane: the same use cases
 * and answers as their handlers (subscribers-handlers.ts), their wire read from their definitions
 * (subscribers-group.ts).
 */
export const makeSubscriberDirectRoutes = Effect.map(Subscribers, (subscribers): ReadonlyArray<DirectRoute> => [
  directRoute(ReferenceApi, "subscribers", "get", ({ path }, caller) =>
    Effect.map(subscribers.get(caller, path.subscriber_id), toSubscriber)),
  directRoute(ReferenceApi, "subscribers", "create", ({ payload }, caller) => createOrRequest(subscribers, payload, caller))
])
