import { type OrganizationFigures, OrganizationOverviews, Organizations } from "@roster/application"
import type { Locale } from "@roster/domain"
import { Effect } from "effect"
import type { DashboardAssets } from "./assets.js"
import { page, refusalOf } from "./pages.js"
import type { Screen } from "./screen.js"

/**
 * The organization's start: its subscribers by status, its plan and what it uses of it, a chart of
 * the last 30 days drawn here from the figures (with a table of them for screen readers), the
 * campaigns sending and the webhook endpoints failing.
 */

/** The cookie the dashboard's script keeps the viewer's time zone in. */
const TIME_ZONE_COOKIE = "roster_tz"

const CHART = { width: 600, height: 160, baseline: 150, top: 10, step: 20, bar: 14 } as const

const zoneOf = (value: string | undefined) => {
  if (value === undefined) return undefined
  try {
    return decodeURIComponent(value)
  } catch {
    return undefined
  }
}

/** The bars of the growth chart, in the viewBox's units; a day without any keeps a hairline. */
export const chartOf = (days: OrganizationFigures["days"], locale: Locale, number: (n: number) => string) => {
  const max = Math.max(0, ...days.map((d) => d.created))
  const dayLabel = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", timeZone: "UTC" })
  const room = CHART.baseline - CHART.top
  return {
    width: CHART.width,
    height: CHART.height,
    baseline: CHART.baseline,
    max: number(max),
    bars: days.map((d, i) => {
      const height = max === 0 ? 1 : Math.max(1, Math.round((d.created / max) * room))
      return {
        x: i * CHART.step + (CHART.step - CHART.bar) / 2,
        y: CHART.baseline - height,
        width: CHART.bar,
        height,
        label: dayLabel.format(new Date(`${d.day}T12:00:00Z`)),
        count: number(d.created)
      }
    })
  }
}

/** A limit's meter: its figures, formatted; a meter that tells high from low at 80 and 100 percent. */
const usageOf = (key: string, label: string, used: number, limit: number | null, number: (n: number) => string) => ({
  key,
  label,
  used: number(used),
  limit: limit === null ? null : number(limit),
  value: limit === null ? used : Math.min(used, limit),
  max: limit ?? 0,
  low: limit === null ? 0 : Math.round(limit * 0.8),
  high: limit === null ? 0 : Math.round(limit * 0.95)
})

export const makeOverviewScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const overviews = yield* OrganizationOverviews
    return {
      routes: [{
        method: "GET",
        path: "",
        handle: (workspace, request) =>
          Effect.all([
            organizations.overview(workspace.organization),
            overviews.show(workspace.principal, { timeZone: zoneOf(request.cookies[TIME_ZONE_COOKIE]) })
          ]).pipe(
            Effect.map(([organization, figures]) => {
              const format = new Intl.NumberFormat(workspace.locale)
              const number = (n: number) => format.format(n)
              const t = workspace.t.overview
              return page(assets, workspace, "overview", {
                figures: {
                  tier: figures.tier,
                  members: number(organization.memberCount),
                  subscribers: number(figures.subscribers),
                  timeZone: figures.timeZone,
                  byStatus: figures.byStatus.map((s) => ({ status: s.status, count: number(s.count) })),
                  usage: [
                    usageOf("subscribers", t.subscribers, figures.subscribers, figures.subscriberLimit, number),
                    usageOf("emails", t.emails, figures.emailsThisMonth, figures.emailLimit, number)
                  ],
                  sending: figures.sending.map((c) => ({ name: c.name, startedAt: c.startedAt?.toISOString() ?? null })),
                  failing: figures.failingEndpoints?.map(({ endpoint, failedAttempts, failingSince }) => ({
                    url: endpoint.url,
                    failures: number(failedAttempts),
                    failingSince: failingSince?.toISOString() ?? null
                  })) ?? null
                },
                chart: chartOf(figures.days, workspace.locale, number)
              }, { menu: "overview" })
            }),
            Effect.catchAll((error) => {
              const refusal = refusalOf(error, workspace.t)
              return Effect.succeed(page(assets, workspace, "refusal", { message: refusal.text, back: "/app" }, { status: refusal.status }))
            })
          )
      }]
    } satisfies Screen
  })
