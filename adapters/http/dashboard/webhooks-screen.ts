import { HttpRouter, type HttpServerRequest } from "@effect/platform"
import { Webhooks } from "@roster/application"
import {
  allEventTypes,
  EventType,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  type WebhookDeliveryHistory,
  WebhookDeliveryId,
  WebhookDescription,
  type WebhookEndpoint,
  WebhookEndpointId,
  WebhookUrl
} from "@roster/domain"
import { Effect, Either, Option, Schema } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import type { DashboardAssets } from "./assets.js"
import { errorsOf, field, fill, type FormFields, page, redirect, refusalOf, type Workspace } from "./pages.js"
import type { Screen } from "./screen.js"
import type { DashboardTexts } from "./texts.js"

/**
 * Webhooks: the organization's endpoints, each added, changed, enabled or disabled and deleted
 * here through the same use case as the API; the signing secret shown once when it is made or
 * rotated; a test event sent at once; and each endpoint's delivery log, every attempt with the
 * request it made and the answer it got, a delivery sent again on request.
 */

/** Deliveries a page of an endpoint's log. */
const DELIVERIES_PER_PAGE = 20

/** How much of a request's body the log shows. */
const BODY_EXCERPT_LENGTH = 1_000

const endpointIdOf = Schema.decodeUnknownOption(WebhookEndpointId)
const deliveryIdOf = Schema.decodeUnknownOption(WebhookDeliveryId)
const urlOf = Schema.decodeUnknownEither(WebhookUrl)
const descriptionOf = Schema.decodeUnknownEither(WebhookDescription)
const isEventType = Schema.is(EventType)

type Texts = DashboardTexts["webhooks"]

/** The form's fields as typed, shown again beside a refusal. */
interface EndpointValues {
  readonly url: string
  readonly description: string
  readonly events: ReadonlyArray<string>
}

const valuesOf = (form: FormFields): EndpointValues => ({
  url: field(form, "url"),
  description: field(form, "description"),
  events: form.get("events") ?? []
})

const valuesOfEndpoint = (endpoint: WebhookEndpoint): EndpointValues => ({
  url: endpoint.url,
  description: endpoint.description ?? "",
  events: endpoint.events
})

const blankValues: EndpointValues = { url: "", description: "", events: [] }

/** The fields as the use case takes them, or each field's refusal in the person's words. */
const inputOf = (values: EndpointValues, t: Texts) => {
  const errors: Record<string, string> = {}
  const url = urlOf(values.url)
  if (Either.isLeft(url)) errors.url = t.invalidUrl
  const description = values.description === "" ? Either.right(null) : descriptionOf(values.description)
  if (Either.isLeft(description)) errors.description = fill(t.invalidDescription, { max: MAX_WEBHOOK_DESCRIPTION_LENGTH })
  const unknown = values.events.find((kind) => !isEventType(kind))
  if (unknown !== undefined) errors.events = fill(t.unknownEvent, { kind: unknown })
  else if (values.events.length === 0) errors.events = t.missingEvents
  if (Either.isLeft(url) || Either.isLeft(description) || Object.keys(errors).length > 0) return Either.left(errors)
  return Either.right({
    url: url.right,
    description: description.right,
    events: [...new Set(values.events.filter(isEventType))]
  })
}

const eventChoices = (chosen: ReadonlyArray<string>) => allEventTypes.map((kind) => ({ kind, checked: chosen.includes(kind) }))

const toRow = (endpoint: WebhookEndpoint) => ({
  id: endpoint.id,
  url: endpoint.url,
  description: endpoint.description ?? "",
  events: endpoint.events,
  status: endpoint.status,
  disabledReason: endpoint.disabledReason ?? ""
})

/** A delivery as its log shows it: what each attempt sent, and what came back. */
const toDeliveryRow = ({ attempts, delivery, payload }: WebhookDeliveryHistory & { readonly payload: string | null }) => ({
  id: delivery.id,
  body: payload === null ? "" : payload.length > BODY_EXCERPT_LENGTH ? `${payload.slice(0, BODY_EXCERPT_LENGTH)}…` : payload,
  eventId: delivery.eventId,
  eventType: delivery.eventType,
  test: delivery.test,
  status: delivery.status,
  createdAt: delivery.createdAt.toISOString(),
  nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? "",
  attempts: [...attempts].reverse().map((attempt) => ({
    number: attempt.number,
    attemptedAt: attempt.attemptedAt.toISOString(),
    timestamp: Math.floor(attempt.attemptedAt.getTime() / 1000),
    status: attempt.status,
    responseStatus: attempt.responseStatus ?? "",
    answered: attempt.responseStatus !== null,
    responseExcerpt: attempt.responseExcerpt ?? "",
    durationMs: attempt.durationMs,
    error: attempt.error ?? ""
  }))
})

const cursorOf = (request: HttpServerRequest.HttpServerRequest) =>
  new URL(request.url, "http://dashboard").searchParams.get("cursor") ?? undefined

export const makeWebhooksScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks

    const listPath = (workspace: Workspace) => `${workspace.base}/webhooks`
    const endpointPath = (workspace: Workspace, id: string) => `${listPath(workspace)}/${id}`

    const refused = (workspace: Workspace, error: ApplicationError, back = listPath(workspace)) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back
      }, { status: refusal.status, menu: "webhooks" })
    }

    const listPage = (workspace: Workspace, values: EndpointValues, errors: object, status = 200) =>
      Effect.map(webhooks.list(workspace.principal), (endpoints) =>
        page(assets, workspace, "webhooks", {
          endpoints: endpoints.map(toRow),
          values,
          eventChoices: eventChoices(values.events),
          errors,
          action: listPath(workspace)
        }, { status, menu: "webhooks" }))

    const endpointPage = (
      workspace: Workspace,
      endpoint: WebhookEndpoint,
      request: HttpServerRequest.HttpServerRequest,
      scope: { readonly values: EndpointValues; readonly errors: object; readonly status?: number }
    ) =>
      Effect.gen(function*() {
        const cursor = cursorOf(request)
        const log = yield* webhooks.deliveryLog(workspace.principal, endpoint.id, { limit: DELIVERIES_PER_PAGE, cursor })
        const figures = yield* webhooks.stats(workspace.principal, endpoint.id)
        const number = new Intl.NumberFormat(workspace.locale)
        const path = endpointPath(workspace, endpoint.id)
        return page(assets, workspace, "webhook", {
          endpoint: toRow(endpoint),
          values: scope.values,
          eventChoices: eventChoices(scope.values.events),
          errors: scope.errors,
          action: path,
          deliveries: log.items.map(toDeliveryRow),
          stats: {
            attempts: number.format(figures.attempts),
            succeeded: number.format(figures.succeeded),
            failed: number.format(figures.failed),
            pending: number.format(figures.pending),
            p95: figures.p95Ms === null ? "" : number.format(Math.round(figures.p95Ms))
          },
          newest: cursor === undefined ? "" : path,
          older: log.nextCursor === null ? "" : `${path}?cursor=${encodeURIComponent(log.nextCursor)}`
        }, { status: scope.status ?? 200, menu: "webhooks" })
      })

    const secretPage = (workspace: Workspace, endpoint: WebhookEndpoint, rotated: boolean) =>
      page(assets, workspace, "webhook-secret", {
        endpoint: toRow(endpoint),
        secret: endpoint.signingSecret,
        rotated,
        back: endpointPath(workspace, endpoint.id)
      }, { menu: "webhooks" })

    /** The endpoint the path names, or the page that says it is not there. */
    const withEndpoint = (
      workspace: Workspace,
      f: (endpoint: WebhookEndpoint) => Effect.Effect<ReturnType<typeof page>, ApplicationError, HttpRouter.RouteContext>
    ) =>
      Effect.gen(function*() {
        const { webhook_id } = yield* HttpRouter.params
        const id = endpointIdOf(webhook_id)
        if (Option.isNone(id)) return page(assets, workspace, "not-found", {}, { status: 404, menu: "webhooks" })
        return yield* webhooks.get(workspace.principal, id.value).pipe(Effect.flatMap(f))
      }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))

    const confirmPage = (workspace: Workspace, endpoint: WebhookEndpoint, view: "webhook-rotate" | "webhook-delete") =>
      page(assets, workspace, view, {
        endpoint: toRow(endpoint),
        action: `${endpointPath(workspace, endpoint.id)}/${view === "webhook-rotate" ? "rotate" : "delete"}`,
        cancel: endpointPath(workspace, endpoint.id)
      }, { menu: "webhooks" })

    const urlFlash = (text: string, endpoint: WebhookEndpoint) => fill(text, { url: endpoint.url })

    return {
      routes: [
        {
          method: "GET",
          path: "/webhooks",
          handle: (workspace) =>
            listPage(workspace, blankValues, {}).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error, workspace.base))))
        },
        {
          method: "POST",
          path: "/webhooks",
          handle: (workspace, _request, form) =>
            Effect.gen(function*() {
              const values = valuesOf(form)
              const input = inputOf(values, workspace.t.webhooks)
              if (Either.isLeft(input)) return yield* listPage(workspace, values, input.left, 400)
              return yield* webhooks.create(workspace.principal, input.right).pipe(
                Effect.map((endpoint) => secretPage(workspace, endpoint, false)),
                Effect.catchAll((error) => {
                  const refusal = refusalOf(error, workspace.t, ["url", "events", "description"])
                  return refusal.status === 403 ? Effect.fail(error) : listPage(workspace, values, errorsOf(refusal), refusal.status)
                })
              )
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error, workspace.base))))
        },
        {
          method: "GET",
          path: "/webhooks/:webhook_id",
          handle: (workspace, request) =>
            withEndpoint(workspace, (endpoint) =>
              endpointPage(workspace, endpoint, request, { values: valuesOfEndpoint(endpoint), errors: {} }).pipe(
                Effect.catchAll((error) =>
                  error._tag === "InvalidInput" && error.field === "cursor"
                    ? Effect.succeed(page(assets, workspace, "refusal", {
                      message: workspace.t.webhooks.badCursor,
                      back: endpointPath(workspace, endpoint.id)
                    }, { status: 400, menu: "webhooks" }))
                    : Effect.fail(error)
                )
              ))
        },
        {
          method: "POST",
          path: "/webhooks/:webhook_id",
          handle: (workspace, request, form) =>
            withEndpoint(workspace, (endpoint) => {
              const values = valuesOf(form)
              const input = inputOf(values, workspace.t.webhooks)
              if (Either.isLeft(input)) return endpointPage(workspace, endpoint, request, { values, errors: input.left, status: 400 })
              return webhooks.update(workspace.principal, endpoint.id, input.right).pipe(
                Effect.map((saved) => redirect(endpointPath(workspace, saved.id), { kind: "ok", text: urlFlash(workspace.t.webhooks.saved, saved) })),
                Effect.catchAll((error) => {
                  const refusal = refusalOf(error, workspace.t, ["url", "events", "description"])
                  return refusal.status === 404 || refusal.status === 403
                    ? Effect.fail(error)
                    : endpointPage(workspace, endpoint, request, { values, errors: errorsOf(refusal), status: refusal.status })
                })
              )
            })
        },
        {
          method: "POST",
          path: "/webhooks/:webhook_id/status",
          handle: (workspace, _request, form) =>
            withEndpoint(workspace, (endpoint) => {
              const status = field(form, "status")
              if (status !== "active" && status !== "disabled") {
                return Effect.succeed(page(assets, workspace, "refusal", {
                  message: workspace.t.webhooks.invalidStatus,
                  back: endpointPath(workspace, endpoint.id)
                }, { status: 400, menu: "webhooks" }))
              }
              return Effect.map(webhooks.update(workspace.principal, endpoint.id, { status }), (saved) =>
                redirect(endpointPath(workspace, saved.id), {
                  kind: "ok",
                  text: urlFlash(status === "active" ? workspace.t.webhooks.enabled : workspace.t.webhooks.disabled, saved)
                }))
            })
        },
        {
          method: "POST",
          path: "/webhooks/:webhook_id/test",
          handle: (workspace) =>
            withEndpoint(workspace, (endpoint) =>
              Effect.map(webhooks.test(workspace.principal, endpoint.id), (result) =>
                redirect(endpointPath(workspace, endpoint.id), {
                  kind: result.success ? "ok" : "error",
                  text: result.success
                    ? fill(workspace.t.webhooks.testSucceeded, { status: result.statusCode, ms: result.responseTimeMs })
                    : fill(workspace.t.webhooks.testFailed, { ms: result.responseTimeMs, error: result.error ?? "" })
                })))
        },
        {
          method: "GET",
          path: "/webhooks/:webhook_id/rotate",
          handle: (workspace) => withEndpoint(workspace, (endpoint) => Effect.succeed(confirmPage(workspace, endpoint, "webhook-rotate")))
        },
        {
          method: "POST",
          path: "/webhooks/:webhook_id/rotate",
          handle: (workspace) =>
            withEndpoint(workspace, (endpoint) =>
              Effect.map(webhooks.regenerateSecret(workspace.principal, endpoint.id), (rotated) => secretPage(workspace, rotated, true)))
        },
        {
          method: "GET",
          path: "/webhooks/:webhook_id/delete",
          handle: (workspace) => withEndpoint(workspace, (endpoint) => Effect.succeed(confirmPage(workspace, endpoint, "webhook-delete")))
        },
        {
          method: "POST",
          path: "/webhooks/:webhook_id/delete",
          handle: (workspace) =>
            withEndpoint(workspace, (endpoint) =>
              webhooks.remove(workspace.principal, endpoint.id).pipe(
                Effect.as(redirect(listPath(workspace), { kind: "ok", text: urlFlash(workspace.t.webhooks.deleted, endpoint) }))
              ))
        },
        {
          method: "POST",
          path: "/webhooks/:webhook_id/deliveries/:delivery_id/redeliver",
          handle: (workspace) =>
            withEndpoint(workspace, (endpoint) =>
              Effect.gen(function*() {
                const { delivery_id } = yield* HttpRouter.params
                const id = deliveryIdOf(delivery_id)
                if (Option.isNone(id)) return page(assets, workspace, "not-found", {}, { status: 404, menu: "webhooks" })
                const retried = yield* webhooks.retryDelivery(workspace.principal, endpoint.id, id.value)
                const sent = retried.attempts.at(-1)
                if (retried.delivery.test && sent !== undefined) {
                  return redirect(endpointPath(workspace, endpoint.id), {
                    kind: sent.status === "succeeded" ? "ok" : "error",
                    text: sent.status === "succeeded"
                      ? fill(workspace.t.webhooks.testSucceeded, { status: sent.responseStatus ?? 0, ms: sent.durationMs })
                      : fill(workspace.t.webhooks.testFailed, { ms: sent.durationMs, error: sent.error ?? "" })
                  })
                }
                return redirect(endpointPath(workspace, endpoint.id), {
                  kind: "ok",
                  text: fill(workspace.t.webhooks.redelivered, { event: retried.delivery.eventType })
                })
              }))
        }
      ]
    } satisfies Screen
  })
