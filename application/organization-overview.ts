import {
  allows,
  type Campaign,
  type PlanTier,
  type SubscriberStatus,
  subscriberStatuses,
  usageMonth,
  type WebhookEndpoint
} from "@roster/domain"
import { Effect, Option } from "effect"
import { CampaignRepository } from "./ports/campaign-repository.js"
import { EmailUsage } from "./ports/email-usage.js"
import { WebhookDeliveryRepository } from "./ports/webhook-delivery-repository.js"
import { SubscriberRepository } from "./ports/subscriber-repository.js"
import { WebhookEndpointRepository } from "./ports/webhook-endpoint-repository.js"
import { now } from "./support/clock.js"
import { Limits } from "./support/limits.js"
import { operations } from "./support/operation.js"
import { authorize, type Principal } from "./support/principal.js"
import { WEBHOOK_STATS_SPAN_MS } from "./webhooks.js"

/** How many days the growth of an overview spans, today included. */
export const OVERVIEW_DAYS = 30

/** At most this many sending campaigns are named. */
const SENDING_SHOWN = 20

/** One day of the growth series. */
export interface OverviewDay {
  /** `YYYY-MM-DD` in the overview's time zone. */
  readonly day: string
  readonly created: number
}

/** An endpoint whose deliveries fail, or that was stopped for failing. */
export interface FailingEndpoint {
  readonly endpoint: WebhookEndpoint
  /** When its current run of failures began; `null` for one disabled by the service after it. */
  readonly failingSince: Date | null
  /** Its failed attempts of the last seven days (as the webhook statistics count them). */
  readonly failedAttempts: number
}

/** What an organization's start page shows: figures of one moment, read for a principal. */
export interface OrganizationFigures {
  /** The IANA time zone the days are counted in: the one asked for, or UTC when it was none. */
  readonly timeZone: string
  readonly tier: PlanTier
  /** Every status, with how many subscribers are in it. */
  readonly byStatus: ReadonlyArray<{ readonly status: SubscriberStatus; readonly count: number }>
  readonly subscribers: number
  readonly subscriberLimit: number | null
  readonly emailsThisMonth: number
  readonly emailLimit: number | null
  /** The last {@link OVERVIEW_DAYS} days, oldest first, each with the subscribers created on it. */
  readonly days: ReadonlyArray<OverviewDay>
  readonly sending: ReadonlyArray<Campaign>
  /** The failing endpoints; `null` for a principal who may not see webhooks. */
  readonly failingEndpoints: ReadonlyArray<FailingEndpoint> | null
}

/** The zone as the runtime names it, if it knows it; else UTC. */
export const timeZoneOr = (asked: string | undefined): string => {
  if (asked === undefined || asked === "") return "UTC"
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: asked }).resolvedOptions().timeZone
  } catch {
    return "UTC"
  }
}

const calendarDayIn = (timeZone: string, at: Date) => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
      .formatToParts(at)
      .map((part) => [part.type, part.value])
  )
  return { year: Number(parts.year), month: Number(parts.month), day: Number(parts.day) }
}

/** The `count` calendar days ending with the one `at` falls on in `timeZone`, oldest first. */
export const lastDays = (at: Date, timeZone: string, count: number): ReadonlyArray<string> => {
  const today = calendarDayIn(timeZone, at)
  return Array.from({ length: count }, (_, i) =>
    new Date(Date.UTC(today.year, today.month - 1, today.day - (count - 1 - i))).toISOString().slice(0, 10))
}

/** A day and a little more: the first local day starts at most this long before `OVERVIEW_DAYS` days ago. */
const LEEWAY_MS = 26 * 60 * 60 * 1000
const DAY_MS = 24 * 60 * 60 * 1000

/**
 * The figures of an organization's start page (scope `subscribers:read`): its subscribers by
 * status, how many joined each of the last 30 days in the viewer's time zone, its plan and what it
 * uses of it this month, the campaigns sending now, and, for those who may manage webhooks, the
 * endpoints that fail.
 */
export class OrganizationOverviews extends Effect.Service<OrganizationOverviews>()("roster/OrganizationOverviews", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const subscribers = yield* SubscriberRepository
    const campaigns = yield* CampaignRepository
    const endpoints = yield* WebhookEndpointRepository
    const deliveries = yield* WebhookDeliveryRepository
    const usage = yield* EmailUsage
    const limits = yield* Limits

    const failingOf = (principal: Principal, at: Date) =>
      allows(principal.scopes, "webhooks:manage")
        ? Effect.flatMap(endpoints.listByOrganization(principal.organization.id), (all) =>
          Effect.forEach(
            all.filter((endpoint) =>
              endpoint.failingSince !== null || (endpoint.status === "disabled" && endpoint.disabledReason !== "by_user")
            ),
            (endpoint) =>
              Effect.map(
                deliveries.stats({
                  organizationId: principal.organization.id,
                  endpointId: Option.some(endpoint.id),
                  since: new Date(at.getTime() - WEBHOOK_STATS_SPAN_MS)
                }),
                (stats): FailingEndpoint => ({ endpoint, failingSince: endpoint.failingSince, failedAttempts: stats.failed })
              )
          ))
        : Effect.succeed(null)

    const show = operation("OrganizationOverviews.show")(function*(principal: Principal, asked: { readonly timeZone?: string | undefined }) {
      yield* authorize(principal, "subscribers:read")
      const organizationId = principal.organization.id
      const { tier } = principal.organization
      const timeZone = timeZoneOr(asked.timeZone)
      const at = yield* now
      const days = lastDays(at, timeZone, OVERVIEW_DAYS)
      const [counts, created, sent, sending, failingEndpoints] = yield* Effect.all([
        subscribers.countByStatus(organizationId),
        subscribers.createdPerDay(organizationId, {
          from: new Date(at.getTime() - (OVERVIEW_DAYS - 1) * DAY_MS - LEEWAY_MS),
          to: new Date(at.getTime() + DAY_MS),
          timeZone
        }),
        usage.sentIn(organizationId, usageMonth(at)),
        campaigns.list({ organizationId, status: "sending", limit: SENDING_SHOWN }),
        failingOf(principal, at)
      ], { concurrency: "unbounded" })
      const byDay = new Map(created.map(({ count, day }) => [day, count]))
      const byStatus = subscriberStatuses.map((status) => ({
        status,
        count: counts.find((c) => c.status === status)?.count ?? 0
      }))
      return {
        timeZone,
        tier,
        byStatus,
        subscribers: byStatus.reduce((sum, { count }) => sum + count, 0),
        subscriberLimit: limits.subscribers(tier),
        emailsThisMonth: sent,
        emailLimit: limits.emailsPerMonth(tier),
        days: days.map((day) => ({ day, created: byDay.get(day) ?? 0 })),
        sending,
        failingEndpoints
      } satisfies OrganizationFigures
    })

    return { show } as const
  })
}) {}
