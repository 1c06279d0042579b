import { HttpServerResponse } from "@effect/platform"
import { Subscribers } from "@roster/application"
import { Effect, Either, Schema } from "effect"
import { API_PREFIX } from "../shared/api-v1.js"
import { apiErrorOf } from "../shared/application-errors.js"
import { type DirectRoute, hasPlainJsonBody, readJsonBody } from "../shared/direct-lane.js"
import { CreateSubscriberRequest, SubscriberPath } from "./subscriber-schemas.js"
import { newSubscriber, toSubscriber } from "./subscribers-handlers.js"

const COLLECTION = `${API_PREFIX}/subscribers`
const ITEM_PREFIX = `${COLLECTION}/`

const decodePath = Schema.decodeUnknownEither(SubscriberPath)
const decodeCreate = Schema.decodeUnknownEither(CreateSubscriberRequest)

/**
 * `POST /api/v1/subscribers` and `GET /api/v1/subscribers/:subscriber_id` on the direct lane: the
 * same use cases, payload and path schemas and answers as their endpoints (subscribers-group.ts).
 */
export const makeSubscriberDirectRoutes = Effect.map(Subscribers, (subscribers): ReadonlyArray<DirectRoute> => {
  const get: DirectRoute = (request, path) => {
    if (request.method !== "GET" || !path.startsWith(ITEM_PREFIX)) return undefined
    // A path parameter that does not decode is the HttpApi's to answer.
    const decoded = decodePath({ subscriber_id: path.slice(ITEM_PREFIX.length) })
    if (Either.isLeft(decoded)) return undefined
    const id = decoded.right.subscriber_id
    return (principal) =>
      subscribers.get(principal, id).pipe(
        Effect.mapError((error) => apiErrorOf(error, principal.credential)),
        Effect.map((view) => HttpServerResponse.unsafeJson(toSubscriber(view)))
      )
  }

  const create: DirectRoute = (request, path) => {
    if (request.method !== "POST" || path !== COLLECTION || !hasPlainJsonBody(request)) return undefined
    return (principal) =>
      Effect.flatMap(readJsonBody(request, decodeCreate), (payload) =>
        subscribers.create(principal, newSubscriber(payload)).pipe(
          Effect.mapError((error) => apiErrorOf(error, principal.credential)),
          Effect.map((view) => HttpServerResponse.unsafeJson(toSubscriber(view), { status: 201 }))
        ))
  }

  return [get, create]
})
