/**
 * The dashboard's campaigns screen through the running server, in both deployments: the list with
 * each campaign's state and figures, 50 a page; the composer (tags or a segment as the audience,
 * counted as it changes by the part the script asks for, a template or its own content, a time to
 * send read in the viewer's zone and shown back in it); the send after a confirmation naming how
 * many it reaches; the progress as JSON while it sends (the worker's steps run in the test
 * server); the figures afterwards, moved by signed provider events; cancel, retry and duplicate;
 * and every refusal (a bad or past schedule, an empty audience, a second send, cancelling a sent
 * campaign, a retry the plan refuses), in English and German, another organization's campaign and
 * forms without the session's token.
 */
import { CampaignSending, EmailUsage, MessageRepository } from "@roster/application"
import { OrganizationId, usageMonth } from "@roster/domain"
import { Effect } from "effect"
import { createHmac, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, freshAddress, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { deliverDue, fixAudiences } from "../../support/worker-steps.js"
import { csrfOf, fieldError, ownerWithOrganization, personIn, unescape } from "./dashboard-browser.js"

const deployments = ["reference", "overview"] as const
const secret = `whsec_${randomBytes(32).toString("base64")}`
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

const countOf = (body: string) => /<strong id="campaign-count-text">([^<]*)<\/strong>/.exec(body)?.[1]
const figureOf = (body: string, key: string) => new RegExp(`<dd id="figure-${key}">([^<]*)</dd>`).exec(body)?.[1]
const idOf = (location: string | null) => /\/campaigns\/([0-9a-f-]{36})$/.exec(location ?? "")![1]!

/** A date and time as a `datetime-local` field of `zone` shows it. */
const wallTime = (at: Date, zone: string) => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit"
    }).formatToParts(at).map((p) => [p.type, p.value])
  )
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`
}

describe.each(deployments)("the campaigns screen in the %s deployment", (deployment) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form: deployment, adapters: UnlimitedRateLimiterLive, config: { EMAIL_WEBHOOK_SECRET: secret } })
  })
  afterAll(() => server.close())
  const api = () => deployment === "overview" ? "/v1" : "/api/v1"
  const dataOf = (body: { readonly data?: Record<string, unknown> } & Record<string, unknown>) => body.data ?? body

  /** The worker's campaign job and email lanes, run to the end; how many emails went out. */
  const work = () =>
    server.run(Effect.gen(function*() {
      yield* Effect.flatMap(CampaignSending, (sending) => sending.startDue(100))
      yield* fixAudiences()
      return yield* deliverDue()
    }))

  /** A person's organization with a tag (on two of three subscribers) and a segment of those on the pro plan (two of them). */
  const populated = async () => {
    const person = await personIn(server)
    const key = await server.createApiKey(person.organization)
    const tag = await call(server, "POST", `${api()}/tags`, { key, json: { name: "Readers" } })
    expect(tag.status, tag.text).toBe(201)
    const tagId = dataOf(tag.body).id as string
    const named = deployment === "overview" ? "Readers" : tagId
    const readers = [freshAddress("ada"), freshAddress("bob"), freshAddress("cyd")]
    const ids: Array<string> = []
    for (const [i, email] of readers.entries()) {
      const made = await call(server, "POST", `${api()}/subscribers`, {
        key,
        json: { email, metadata: { plan: i < 2 ? "pro" : "free" }, tags: i === 0 ? [] : [named] }
      })
      expect(made.status, made.text).toBe(201)
      ids.push(dataOf(made.body).id as string)
    }
    const segment = await call(server, "POST", `${api()}/segments`, {
      key,
      json: { name: "Pro readers", filter: { field: "metadata.plan", op: "eq", value: "pro" } }
    })
    expect(segment.status, segment.text).toBe(201)
    return { ...person, key, tagId, readers, ids, segmentId: dataOf(segment.body).id as string }
  }

  const draftFields = (csrf: string, fields: Record<string, string | ReadonlyArray<string>> = {}) => ({
    csrf,
    name: "November issue",
    kind: "marketing",
    content: "own",
    subject: "Hello {{ subscriber.email }}",
    html: "",
    text: "The news. {{ unsubscribe_url }}",
    audience: "tags",
    scheduled_at: "",
    intent: "save",
    ...fields
  })

  it("composes a draft for a segment, counting who it reaches as the audience changes, and edits it", async () => {
    const { b, base, csrf, tagId, segmentId } = await populated()
    const empty = await b.get(`${base}/campaigns`)
    expect(empty.status).toBe(200)
    expect(empty.body).toContain("No campaigns yet.")
    expect(empty.body).toContain(`<a href="${base}/campaigns" aria-current="page">Campaigns</a>`)

    const fresh = await b.get(`${base}/campaigns/new`)
    expect(fresh.status).toBe(200)
    // Tags, none chosen: everyone active.
    expect(countOf(fresh.body)).toBe("3 subscribers would receive it now.")
    expect(fresh.body).toContain(`hx-post="${base}/campaigns/count"`)
    expect(fresh.body).toContain(`<option value="${segmentId}">Pro readers</option>`)

    // The part the script asks for as the audience changes.
    const byTag = await b.post(`${base}/campaigns/count`, { csrf, kind: "marketing", audience: "tags", tag_ids: [tagId] })
    expect(byTag.status).toBe(200)
    expect(countOf(byTag.body)).toBe("2 subscribers would receive it now.")
    expect(byTag.body).not.toContain("<html")
    const bySegment = await b.post(`${base}/campaigns/count`, { csrf, audience: "segment", segment_id: segmentId, exclude_tag_ids: [tagId] })
    expect(countOf(bySegment.body)).toBe("1 subscriber would receive it now.")
    const noSegment = await b.post(`${base}/campaigns/count`, { csrf, audience: "segment", segment_id: nothing })
    expect(noSegment.body).toContain(`no segment with id ${nothing} in this organization`)
    // Without the script, the Count button answers the whole page.
    const counted = await b.post(`${base}/campaigns/new`, draftFields(csrf, { audience: "segment", segment_id: segmentId, intent: "count" }))
    expect(counted.status).toBe(200)
    expect(countOf(counted.body)).toBe("2 subscribers would receive it now.")
    expect(counted.body).toContain(`<option value="${segmentId}" selected>`)

    const saved = await b.post(`${base}/campaigns/new`, draftFields(csrf, { audience: "segment", segment_id: segmentId }))
    expect(saved.status, saved.body).toBe(303)
    const id = idOf(saved.headers.get("location"))
    const page = await b.get(`${base}/campaigns/${id}`)
    expect(page.body).toContain("The campaign November issue was created.")
    expect(page.body).toContain("value=\"November issue\"")
    expect(page.body).toContain(`<option value="${segmentId}" selected>`)
    expect(page.body).toContain(">Draft</span>")
    expect(countOf(page.body)).toBe("2 subscribers would receive it now.")

    const edited = await b.post(`${base}/campaigns/${id}`, draftFields(csrf, { name: "December issue", audience: "tags", tag_ids: [tagId], kind: "transactional" }))
    expect(edited.status, edited.body).toBe(303)
    const again = await b.get(`${base}/campaigns/${id}`)
    expect(again.body).toContain("The campaign December issue was saved.")
    expect(again.body).toContain(`value="${tagId}" checked`)
    expect(again.body).toContain("value=\"transactional\" aria-describedby=\"campaign-kind-transactional-hint\" checked")

    const list = await b.get(`${base}/campaigns`)
    expect(list.body).toContain(`<a href="${base}/campaigns/${id}">December issue</a>`)
    expect(list.body).toContain("status-draft")
  })

  it("reads the time to send in the viewer's zone, keeps it in UTC, and shows it back in the zone", async () => {
    const { b, base, csrf, key } = await populated()
    b.jar.set("roster_tz", encodeURIComponent("America/New_York"))
    const at = new Date(Math.ceil((Date.now() + 2 * 86_400_000) / 60_000) * 60_000)
    const local = wallTime(at, "America/New_York")
    const saved = await b.post(`${base}/campaigns/new`, draftFields(csrf, { scheduled_at: local }))
    expect(saved.status, saved.body).toBe(303)
    const id = idOf(saved.headers.get("location"))
    const stored = await call(server, "GET", `${api()}/campaigns/${id}`, { key })
    // The reference form answers the campaign bare (its own `data` is the template's values), the overview form in an envelope.
    expect((deployment === "overview" ? stored.body.data : stored.body).scheduled_at).toBe(at.toISOString())
    const page = await b.get(`${base}/campaigns/${id}`)
    expect(page.body).toContain(`name="scheduled_at" type="datetime-local" value="${local}"`)
    expect(page.body).toContain("your time zone (America/New_York)")
    // In Berlin, the same instant reads otherwise.
    b.jar.set("roster_tz", "Europe%2FBerlin")
    expect((await b.get(`${base}/campaigns/${id}`)).body).toContain(`value="${wallTime(at, "Europe/Berlin")}"`)
  })

  it("refuses a composer's bad fields beside each, in English and German, keeping what was typed", async () => {
    const { b, base, csrf } = await populated()
    const blank = await b.post(`${base}/campaigns/new`, draftFields(csrf, { name: "", scheduled_at: "tomorrow", content: "template", template_id: "" }))
    expect(blank.status).toBe(400)
    expect(fieldError(blank, "campaign-name")).toBe("Give the campaign a name of at most 200 characters, on one line.")
    expect(fieldError(blank, "campaign-schedule")).toBe("Enter a date and time such as 2026-12-24 09:00.")
    expect(fieldError(blank, "campaign-template")).toBe("Choose a template, or write its own content.")
    expect(blank.body).toContain("value=\"tomorrow\"")

    const past = await b.post(`${base}/campaigns/new`, draftFields(csrf, { scheduled_at: "2020-01-01T09:00" }))
    expect(past.status).toBe(400)
    expect(fieldError(past, "campaign-schedule")).toBe("must be in the future")
    const far = await b.post(`${base}/campaigns/new`, draftFields(csrf, { scheduled_at: `${new Date().getUTCFullYear() + 3}-01-01T09:00` }))
    expect(far.status).toBe(400)
    expect(fieldError(far, "campaign-schedule")).toBe("must be within a year")
    const noBody = await b.post(`${base}/campaigns/new`, draftFields(csrf, { subject: "Hi", text: "", html: "" }))
    expect(noBody.status).toBe(400)
    expect(unescape(fieldError(noBody, "campaign-html") ?? "")).toContain("html, text or both")
    const noSegment = await b.post(`${base}/campaigns/new`, draftFields(csrf, { audience: "segment", segment_id: "" }))
    expect(fieldError(noSegment, "campaign-segment")).toBe("Choose a segment.")
    const goneSegment = await b.post(`${base}/campaigns/new`, draftFields(csrf, { audience: "segment", segment_id: nothing }))
    expect(goneSegment.status).toBe(400)
    expect(fieldError(goneSegment, "campaign-segment")).toBe(`no segment with id ${nothing} in this organization`)
    const goneTag = await b.post(`${base}/campaigns/new`, draftFields(csrf, { tag_ids: [nothing] }))
    expect(fieldError(goneTag, "campaign-tags")).toBe("One of the chosen tags no longer exists; choose again.")
    expect((await b.get(`${base}/campaigns`)).body).toContain("No campaigns yet.")

    b.jar.set("roster_locale", "de")
    const german = await b.post(`${base}/campaigns/new`, draftFields(csrf, { name: "", scheduled_at: "2020-01-01T09:00" }))
    expect(german.status).toBe(400)
    expect(fieldError(german, "campaign-name")).toBe("Geben Sie der Kampagne einen Namen mit höchstens 200 Zeichen in einer Zeile.")
    const pastGerman = await b.post(`${base}/campaigns/new`, draftFields(csrf, { scheduled_at: "2020-01-01T09:00" }))
    expect(fieldError(pastGerman, "campaign-schedule")).toBe("muss in der Zukunft liegen")
  })

  it("sends after a confirmation naming how many it reaches, shows its progress as JSON, and its figures as provider events come", async () => {
    const { b, base, csrf, key, tagId, ids, organization } = await populated()
    const saved = await b.post(`${base}/campaigns/new`, draftFields(csrf, { tag_ids: [tagId] }))
    const id = idOf(saved.headers.get("location"))
    const draftPage = await b.get(`${base}/campaigns/${id}`)
    expect(draftPage.body).toContain(`href="${base}/campaigns/${id}/send"`)
    const confirm = await b.get(`${base}/campaigns/${id}/send`)
    expect(confirm.status).toBe(200)
    expect(confirm.body).toContain("<strong>Send to 2 subscribers?</strong>")

    const sent = await b.post(`${base}/campaigns/${id}/send`, { csrf })
    expect(sent.status, sent.body).toBe(303)
    expect(sent.headers.get("location")).toBe(`${base}/campaigns/${id}`)
    const sending = await b.get(`${base}/campaigns/${id}`)
    expect(sending.body).toContain("The campaign November issue is sending.")
    expect(sending.body).toContain(`data-poll="${base}/campaigns/${id}/progress" data-status="sending"`)
    expect(sending.body).toContain(`<a href="${base}/campaigns/${id}" id="campaign-refresh">Refresh</a>`)
    const before = await b.get(`${base}/campaigns/${id}/progress`)
    expect(before.headers.get("content-type")).toContain("application/json")
    expect(JSON.parse(before.body)).toMatchObject({ status: "sending", ended: false, percent: 0 })

    // Sending twice: refused, naming the state.
    const twice = await b.post(`${base}/campaigns/${id}/send`, { csrf })
    expect(twice.status).toBe(409)
    expect(twice.body).toContain("The campaign is sending now, which does not allow this.")

    expect(await work()).toBe(2)
    const after = JSON.parse((await b.get(`${base}/campaigns/${id}/progress`)).body)
    expect(after).toMatchObject({ status: "sent", ended: true, percent: 100, sent: 2, failed: 0, recipients: 2 })
    expect(after.text).toBe("2 of 2 emails settled (100 %)")

    const report = await b.get(`${base}/campaigns/${id}`)
    expect(report.body).toContain(">Sent</span>")
    expect(figureOf(report.body, "delivered")).toBe("0")
    expect(figureOf(report.body, "opened")).toBe("0")
    expect(report.body).not.toContain("id=\"campaign-refresh\"")
    expect(report.body).toContain("<polyline class=\"line line-opened\"")

    // Signed provider events move the figures, and the chart's table with them.
    const messages = await server.run(Effect.flatMap(MessageRepository, (m) =>
      m.list({ organizationId: OrganizationId.make(organization.id), limit: 10 })))
    const provider = (subscriberId: string) => messages.find((m) => m.subscriberId === subscriberId)!.providerId!
    for (const [type, subscriberId] of [["email.delivered", ids[1]], ["email.delivered", ids[2]], ["email.opened", ids[1]], ["email.clicked", ids[1]], ["email.bounced", ids[2]]] as const) {
      const body = JSON.stringify({
        type,
        created_at: new Date().toISOString(),
        data: { created_at: new Date().toISOString(), email_id: provider(subscriberId), ...(type === "email.bounced" ? { bounce: { type: "Permanent", message: "gone" } } : {}) }
      })
      const answer = await call(server, "POST", "/webhooks/resend-events", {
        body,
        headers: { "content-type": "application/json", "X-EmailProvider-Signature": createHmac("sha256", secret).update(body).digest("hex") }
      })
      expect(answer.status, answer.text).toBeLessThan(300)
    }
    // Ada was not in the audience; Bob unsubscribes after his email.
    const unsubscribed = await call(server, deployment === "overview" ? "PATCH" : "PUT", `${api()}/subscribers/${ids[1]}`, { key, json: { status: "unsubscribed" } })
    expect(unsubscribed.status, unsubscribed.text).toBe(200)
    const figures = await b.get(`${base}/campaigns/${id}`)
    expect(figureOf(figures.body, "delivered")).toBe("1")
    expect(figureOf(figures.body, "opened")).toBe("1")
    expect(figureOf(figures.body, "clicked")).toBe("1")
    expect(figureOf(figures.body, "bounced")).toBe("1")
    expect(figureOf(figures.body, "complained")).toBe("0")
    expect(figureOf(figures.body, "unsubscribed")).toBe("1")
    expect(figures.body).toMatch(/<td class="number">2<\/td><td class="number">1<\/td><td class="number">1<\/td><\/tr><\/tbody>/)

    const list = await b.get(`${base}/campaigns`)
    expect(list.body).toMatch(/status-sent">Sent<\/span><\/td>\s*<td><time datetime="[^"]+">[^<]+<\/time><\/td>\s*<td class="number">2<\/td><td class="number">1<\/td><td class="number">1<\/td>/)

    // A sent campaign cannot be cancelled, nor sent again; a duplicate is a new draft.
    const cancel = await b.post(`${base}/campaigns/${id}/cancel`, { csrf })
    expect(cancel.status).toBe(409)
    expect(cancel.body).toContain("The campaign is sent now, which does not allow this.")
    const copy = await b.post(`${base}/campaigns/${id}/duplicate`, { csrf })
    expect(copy.status).toBe(303)
    const copyId = idOf(copy.headers.get("location"))
    expect(copyId).not.toBe(id)
    const copied = await b.get(`${base}/campaigns/${copyId}`)
    expect(copied.body).toContain("A copy was made as a draft: November issue (copy).")
    expect(copied.body).toContain(`value="${tagId}" checked`)
  })

  it("refuses to send to an empty audience, and says so on the confirmation", async () => {
    const { b, base, csrf, key } = await populated()
    const lonely = await call(server, "POST", `${api()}/tags`, { key, json: { name: "Nobody has it" } })
    const saved = await b.post(`${base}/campaigns/new`, draftFields(csrf, { tag_ids: [dataOf(lonely.body).id as string] }))
    const id = idOf(saved.headers.get("location"))
    const confirm = await b.get(`${base}/campaigns/${id}/send`)
    expect(confirm.body).toContain("<strong>Send to 0 subscribers?</strong>")
    const refused = await b.post(`${base}/campaigns/${id}/send`, { csrf })
    expect(refused.status).toBe(400)
    expect(refused.body).toContain("holds no subscriber who would receive this campaign")
    expect((await b.get(`${base}/campaigns/${id}`)).body).toContain(">Draft</span>")
  })

  it("schedules a campaign for its time, cancels it, and refuses to cancel it twice", async () => {
    const { b, base, csrf, tagId } = await populated()
    const at = new Date(Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000)
    const saved = await b.post(`${base}/campaigns/new`, draftFields(csrf, { tag_ids: [tagId], scheduled_at: wallTime(at, "UTC") }))
    const id = idOf(saved.headers.get("location"))
    const confirm = await b.get(`${base}/campaigns/${id}/send`)
    expect(confirm.body).toContain("(2 subscribers now)")
    expect(confirm.body).toContain(">Schedule</button>")
    const scheduled = await b.post(`${base}/campaigns/${id}/send`, { csrf })
    expect(scheduled.status).toBe(303)
    const page = await b.get(`${base}/campaigns/${id}`)
    expect(page.body).toContain("The campaign November issue is scheduled.")
    expect(page.body).toContain(">Scheduled</span>")
    expect(page.body).toContain(`action="${base}/campaigns/${id}/cancel"`)
    // The worker does not start it before its time.
    expect(await work()).toBe(0)
    const cancelled = await b.post(`${base}/campaigns/${id}/cancel`, { csrf })
    expect(cancelled.status).toBe(303)
    const after = await b.get(`${base}/campaigns/${id}`)
    expect(after.body).toContain("The campaign November issue was cancelled.")
    expect(after.body).toContain(">Cancelled</span>")
    const again = await b.post(`${base}/campaigns/${id}/cancel`, { csrf })
    expect(again.status).toBe(409)
    expect(again.body).toContain("The campaign is cancelled now, which does not allow this.")
    // Nor is it edited any more.
    const edit = await b.post(`${base}/campaigns/${id}`, draftFields(csrf, { name: "Changed" }))
    expect(edit.status).toBe(409)
  })

  it("retries a campaign the plan's limit stopped, once the plan allows, and refuses while it does not", async () => {
    const { b, base, csrf, organization } = await populated()
    const month = usageMonth(new Date())
    const id = OrganizationId.make(organization.id)
    await server.run(Effect.flatMap(EmailUsage, (usage) => usage.reserve(id, month, 9_999, null)))
    const saved = await b.post(`${base}/campaigns/new`, draftFields(csrf))
    const campaignId = idOf(saved.headers.get("location"))
    expect((await b.post(`${base}/campaigns/${campaignId}/send`, { csrf })).status).toBe(303)
    expect(await work()).toBe(3)
    const failed = await b.get(`${base}/campaigns/${campaignId}`)
    expect(failed.body).toContain(">Failed</span>")
    expect(failed.body).toContain("monthly email limit (10000)")
    expect(failed.body).toContain(`action="${base}/campaigns/${campaignId}/retry"`)
    // The month's emails are all used: a retry would exceed them.
    const used = await server.run(Effect.flatMap(EmailUsage, (usage) => usage.sentIn(id, month)))
    await server.run(Effect.flatMap(EmailUsage, (usage) => usage.reserve(id, month, 10_000 - used, null)))
    const refused = await b.post(`${base}/campaigns/${campaignId}/retry`, { csrf })
    expect(refused.status).toBe(402)
    expect(refused.body).toContain("The Free plan allows 10,000 emails a month.")
    await server.run(Effect.flatMap(EmailUsage, (usage) => usage.release(id, month, 10_000)))
    const retried = await b.post(`${base}/campaigns/${campaignId}/retry`, { csrf })
    expect(retried.status).toBe(303)
    expect((await b.get(`${base}/campaigns/${campaignId}`)).body).toContain("The failed emails of November issue are being sent again.")
    expect(await work()).toBeGreaterThan(0)
    expect(JSON.parse((await b.get(`${base}/campaigns/${campaignId}/progress`)).body)).toMatchObject({ status: "sent", sent: 3, failed: 0 })
    const twice = await b.post(`${base}/campaigns/${campaignId}/retry`, { csrf })
    expect(twice.status).toBe(409)
  })

  it("refuses to send a draft whose time has passed meanwhile, and sends it once the time is removed", async () => {
    const { b, base, csrf, tagId } = await populated()
    const soon = new Date(Math.ceil((Date.now() + 120_000) / 60_000) * 60_000)
    const saved = await b.post(`${base}/campaigns/new`, draftFields(csrf, { tag_ids: [tagId], scheduled_at: wallTime(soon, "UTC") }))
    expect(saved.status, saved.body).toBe(303)
    const id = idOf(saved.headers.get("location"))
    server.advanceClock("4 minutes")
    const refused = await b.post(`${base}/campaigns/${id}/send`, { csrf })
    expect(refused.status).toBe(400)
    expect(refused.body).toContain("has passed; set a time to come, or remove it to send now")
    const page = await b.get(`${base}/campaigns/${id}`)
    expect(page.body).toContain(">Draft</span>")
    // Saving it with that time is refused too; without one, it is sent on the confirmation.
    const stale = await b.post(`${base}/campaigns/${id}`, draftFields(csrf, { tag_ids: [tagId], scheduled_at: wallTime(soon, "UTC") }))
    expect(stale.status).toBe(400)
    expect(fieldError(stale, "campaign-schedule")).toBe("must be in the future")
    expect((await b.post(`${base}/campaigns/${id}`, draftFields(csrf, { tag_ids: [tagId] }))).status).toBe(303)
    expect((await b.get(`${base}/campaigns/${id}/send`)).body).toContain("<strong>Send to 2 subscribers?</strong>")
    expect((await b.post(`${base}/campaigns/${id}/send`, { csrf })).status).toBe(303)
    expect(await work()).toBe(2)
  })

  it("lists 50 campaigns a page, newest first, with links between the pages", async () => {
    const { b, base, organization } = await personIn(server)
    const key = await server.createApiKey(organization)
    for (let i = 1; i <= 51; i++) {
      const made = await call(server, "POST", `${api()}/campaigns`, { key, json: { name: `Issue ${String(i).padStart(2, "0")}`, subject: "S", text: "T" } })
      expect(made.status, made.text).toBe(201)
      server.advanceClock("1 second")
    }
    const first = await b.get(`${base}/campaigns`)
    expect(first.body).toContain(">Issue 51</a>")
    expect(first.body).not.toContain(">Issue 01</a>")
    expect(first.body).toContain(`<a href="${base}/campaigns?page=2">Next</a>`)
    const second = await b.get(`${base}/campaigns?page=2`)
    expect(second.body).toContain(">Issue 01</a>")
    expect(second.body).toContain("Page 2 of 2")
  })

  it("neither shows nor changes another organization's campaign, answers an id that is none with a page, and changes nothing without the form token", async () => {
    const first = await ownerWithOrganization(server)
    const made = await first.b.post(`${first.base}/campaigns/new`, draftFields(first.csrf, { name: "Mine" }))
    expect(made.status, made.body).toBe(303)
    const id = idOf(made.headers.get("location"))
    const second = await ownerWithOrganization(server)
    expect((await second.b.get(`${second.base}/campaigns/${id}`)).status).toBe(404)
    expect((await second.b.get(`${second.base}/campaigns/${id}/progress`)).status).toBe(404)
    expect((await second.b.get(`${second.base}/campaigns/${id}/send`)).status).toBe(404)
    for (const action of ["", "/send", "/cancel", "/retry", "/duplicate"]) {
      expect((await second.b.post(`${second.base}/campaigns/${id}${action}`, draftFields(second.csrf))).status).toBe(404)
    }
    expect((await second.b.get(`${second.base}/campaigns/not-an-id`)).status).toBe(404)
    const attempts = [
      await first.b.post(`${first.base}/campaigns/new`, { ...draftFields(""), name: "Forged" }),
      await first.b.post(`${first.base}/campaigns/${id}/send`, { csrf: second.csrf }),
      await first.b.post(`${first.base}/campaigns/${id}/duplicate`, { csrf: csrfOf(await second.b.get(second.base)) }),
      await first.b.post(`${first.base}/campaigns/${id}`, draftFields(first.csrf, { name: "Forged" }), { origin: "https://evil.example" })
    ]
    for (const attempt of attempts) {
      expect(attempt.status).toBe(403)
      expect(unescape(attempt.body)).toContain("was not sent from Roster's own pages")
    }
    const list = await first.b.get(`${first.base}/campaigns`)
    expect(list.body).toContain(">Mine</a>")
    expect(list.body).not.toContain("Forged")
    expect(list.body).not.toContain("(copy)")
  })
})
