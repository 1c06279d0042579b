import type pg from "pg"
import { encodeCursor } from "@roster/domain"
import type { LoggingApi } from "./lists.js"
import { measure, type RunFigures } from "./stats.js"

/**
 * The dashboard's own subscriber list (part of BENCH_SUITE=list): GET /app/o/{slug}/subscribers
 * through the running API with the session cookie of its owner, who signed in with the emailed
 * link, on the organization the list suite seeded. Each case is BENCH_LIST_REQUESTS requests one
 * after another, after ten to warm up: the whole page as a visit or a followed link loads it, and
 * the results alone (`HX-Request: true`) as the filter form asks for them while someone types or
 * picks a status or a tag. The page has no way to jump: a deep page is reached by its links, so
 * the one measured is the page the "next" link of the page before it leads to.
 */

/** One timed case of the dashboard's list. */
export interface DashboardRun {
  readonly client: RunFigures
  readonly server: ReadonlyArray<number>
  /** The rows on its pages: one number, or the fewest and the most. */
  readonly rows: string
}

export interface DashboardListContext {
  readonly api: LoggingApi
  readonly pool: pg.Pool
  readonly organizationId: string
  readonly slug: string
  /** The owner's `svc_session=...` cookie. */
  readonly cookie: string
  readonly tags: ReadonlyArray<{ readonly id: string; readonly name: string }>
  readonly requests: number
  readonly page: number
  /** How deep (in rows, newest first) the deep page starts. */
  readonly deepRow: number
}

/** A person signs in as the dashboard's tests do: a link by email, then `GET /auth/verify`; the session cookie. */
export const signInByEmail = async (api: LoggingApi, email: string): Promise<string> => {
  const seen = api.signInTokenCount()
  const asked = await fetch(`${api.base}/auth/magic-link`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email })
  })
  if (asked.status !== 200) throw new Error(`POST /auth/magic-link answered ${asked.status}: ${await asked.text()}`)
  const token = await api.nextSignInToken(seen)
  const verified = await fetch(`${api.base}/auth/verify?token=${encodeURIComponent(token)}`)
  const cookie = verified.headers.getSetCookie().find((c) => c.startsWith("svc_session="))?.split(";")[0]
  if (verified.status !== 200 || cookie === undefined) throw new Error(`GET /auth/verify answered ${verified.status} without a session`)
  return cookie
}

/** The rows of a list page or of its results: one checkbox each. */
const rowsIn = (html: string) => html.match(/<input type="checkbox" name="id" value="/g)?.length ?? 0

/** Where the page's "next" link leads. */
const nextLinkOf = (html: string) => /<a href="([^"]+)">[^<]*<\/a>\s*<\/nav>/.exec(html)?.[1]?.replaceAll("&amp;", "&")

export const runDashboardListPages = async (context: DashboardListContext): Promise<ReadonlyArray<DashboardRun>> => {
  const { api, cookie, organizationId, pool } = context
  const list = `/app/o/${context.slug}/subscribers`
  const get = async (path: string, fragment: boolean, requestId?: string) => {
    const res = await fetch(`${api.base}${path}`, {
      headers: {
        cookie,
        accept: "text/html",
        ...(fragment ? { "hx-request": "true", "hx-current-url": `${api.base}${list}` } : {}),
        ...(requestId === undefined ? {} : { "x-request-id": requestId })
      }
    })
    const html = await res.text()
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${html.slice(0, 300)}`)
    return html
  }

  /** `paths(i)` is the address of the i-th request of the case. */
  const run = async (label: string, fragment: boolean, paths: (i: number) => string): Promise<DashboardRun> => {
    const ids: Array<string> = []
    const rows = new Set<number>()
    for (let i = 0; i < 10; i++) await get(paths(i), fragment)
    const client = await measure(label, context.requests, 1, async (i) => {
      const id = `dashboard-${label.replace(/\W+/g, "-")}-${i}`
      ids.push(id)
      const shown = rowsIn(await get(paths(i), fragment, id))
      if (shown === 0) throw new Error(`${paths(i)} shows no subscribers`)
      rows.add(shown)
    })
    const [fewest, most] = [Math.min(...rows), Math.max(...rows)]
    return {
      client,
      server: [...await api.serverTimes(ids)].sort((a, b) => a - b),
      rows: fewest === most ? String(most) : `${fewest}-${most}`
    }
  }

  // The page before the deep one, by the cursor its own "next" link would hold; that link leads deep.
  const rowAt = async (position: number) =>
    (await pool.query<{ created_at: Date; id: string; email: string }>(
      "SELECT created_at, id, email FROM subscribers WHERE organization_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1",
      [organizationId, position]
    )).rows[0]!
  const before = await rowAt(context.deepRow - context.page - 1)
  const cursor = encodeCursor({ sort: "created_at", order: "desc", value: before.created_at.toISOString(), id: before.id })
  const deepLink = nextLinkOf(await get(`${list}?cursor=${encodeURIComponent(cursor)}`, false))
  if (deepLink === undefined) throw new Error("the page before the deep one has no next link")
  const deepFirst = await rowAt(context.deepRow)
  if (!(await get(deepLink, false)).includes(`>${deepFirst.email}</a>`)) {
    throw new Error(`the next link does not lead to row ${context.deepRow}`)
  }

  // Typing an address a letter at a time: each prefix is a request of the form (after its pause).
  const typed = (await pool.query<{ email: string }>(
    "SELECT email FROM subscribers WHERE organization_id = $1 AND email_key LIKE 'mary.%' ORDER BY created_at DESC LIMIT 1",
    [organizationId]
  )).rows[0]!.email
  const prefixes = Array.from({ length: typed.length }, (_, n) => typed.slice(0, n + 1))
  // What the filter form sends: every field, the empty ones too.
  const form = (fields: { search?: string; status?: string; tag?: string }) =>
    `${list}?${new URLSearchParams({ search: fields.search ?? "", status: fields.status ?? "", tag: fields.tag ?? "" })}`
  const [tag] = context.tags

  return [
    await run("first page", false, () => list),
    await run(`page at row ${context.deepRow} (next link)`, false, () => deepLink),
    await run(`typing ${typed} (${prefixes.length} prefixes)`, true, (i) => form({ search: prefixes[i % prefixes.length]! })),
    await run("search m", true, () => form({ search: "m" })),
    await run("search mar", true, () => form({ search: "mar" })),
    await run("status unsubscribed", true, () => form({ status: "unsubscribed" })),
    await run("status complained", true, () => form({ status: "complained" })),
    await run(`tag ${tag!.name}`, true, () => form({ tag: tag!.id })),
    await run(`tag ${tag!.name}, status complained`, true, () => form({ status: "complained", tag: tag!.id }))
  ]
}
