/**
 * The dashboard's segments screen through the running server, in both deployments: the builder
 * adding and removing conditions of every kind without a script, the preview (the whole page and
 * the part the script asks for), saving, renaming and deleting, the refusals of the use case (a
 * segment a campaign uses, a tag that is not the organization's) and of the filter beside the bad
 * condition, in English and German; a filter the API nested, another organization's segment, and
 * forms posted without the session's token.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, freshAddress, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { fieldError, ownerWithOrganization, personIn, unescape } from "./dashboard-browser.js"

const deployments = ["reference", "overview"] as const
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

const countOf = (body: string) => /<p id="segment-count"><strong>([^<]*)<\/strong>/.exec(body)?.[1]

describe.each(deployments)("the segments screen in the %s deployment", (deployment) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form: deployment, adapters: UnlimitedRateLimiterLive })
  })
  afterAll(() => server.close())
  const api = () => deployment === "overview" ? "/v1" : "/api/v1"
  const dataOf = (body: { readonly data?: Record<string, unknown> } & Record<string, unknown>) => body.data ?? body

  /** A person's organization with a tag and three subscribers: two on the pro plan, one of them tagged, at example.com and example.org. */
  const populated = async () => {
    const person = await personIn(server)
    const key = await server.createApiKey(person.organization)
    const tag = await call(server, "POST", `${api()}/tags`, { key, json: { name: "VIP <gold>" } })
    expect(tag.status, tag.text).toBe(201)
    const ada = freshAddress("ada").replace(/@.*/, "@example.com")
    const bob = freshAddress("bob").replace(/@.*/, "@example.com")
    const cyd = freshAddress("cyd").replace(/@.*/, "@example.org")
    const tagId = dataOf(tag.body).id as string
    // The reference form names tags by id, the overview form by name.
    const vip = deployment === "overview" ? "VIP <gold>" : tagId
    for (const [email, metadata, tags] of [[ada, { plan: "pro", seats: 5 }, [vip]], [bob, { plan: "pro", seats: 1 }, []], [cyd, { plan: "free" }, []]] as const) {
      const made = await call(server, "POST", `${api()}/subscribers`, { key, json: { email, metadata, tags } })
      expect(made.status, made.text).toBe(201)
    }
    return { ...person, key, tagId, ada, bob, cyd }
  }

  it("builds a filter without a script: adds conditions of every kind, previews who matches, removes one, saves and lists the count", async () => {
    const { b, base, csrf, tagId, ada, bob, cyd } = await populated()
    const empty = await b.get(`${base}/segments`)
    expect(empty.status).toBe(200)
    expect(empty.body).toContain("No segments yet.")
    expect(empty.body).toContain(`<a href="${base}/segments" aria-current="page">Segments</a>`)

    const fresh = await b.get(`${base}/segments/new`)
    expect(fresh.body).toContain("No conditions: every subscriber matches.")
    expect(countOf(fresh.body)).toBe("3 subscribers match.")
    expect(fresh.body).toContain(`hx-post="${base}/segments/preview"`)

    // Each kind of condition can be added; each comes with its own fields.
    let fields: Record<string, string | Array<string>> = { csrf, name: "Pro", description: "", match: "all" }
    const kinds = ["status", "tags", "metadata", "created_at", "email", "engagement"]
    for (const [i, kind] of kinds.entries()) {
      const added = await b.post(`${base}/segments/new`, { ...fields, intent: "add", add_kind: kind })
      expect(added.status).toBe(200)
      expect(added.body).toContain(`name="c${i}.kind" value="${kind}"`)
      // A condition just added is not yet told what it lacks, and who matches is shown without it.
      expect(added.body).not.toContain(`id="seg-c${i}-error"`)
      if (i === 0) expect(countOf(added.body)).toBe("3 subscribers match.")
      fields = { ...fields, [`c${i}.kind`]: kind }
    }
    const full = {
      ...fields,
      "c0.op": "in", "c0.statuses": ["active"],
      "c1.op": "has_none", "c1.tags": [tagId],
      "c2.op": "eq", "c2.path": "plan", "c2.type": "text", "c2.value": "pro",
      "c3.from": "2000-01-01", "c3.to": "",
      "c4.op": "domain", "c4.value": "Example.COM",
      "c5.op": "received_not_within", "c5.days": "30"
    }
    const previewed = await b.post(`${base}/segments/new`, { ...full, intent: "preview" })
    expect(previewed.status).toBe(200)
    expect(countOf(previewed.body)).toBe("1 subscriber matches.")
    expect(previewed.body).toContain(bob)
    expect(previewed.body).not.toContain(ada)
    // Without the tag condition, Ada matches too; negated, the domain condition matches Cyd alone of the free.
    const removed = await b.post(`${base}/segments/new`, { ...full, intent: "remove-1" })
    expect(removed.body).not.toContain("name=\"c5.kind\"")
    expect(removed.body).toContain("name=\"c4.kind\" value=\"engagement\"")
    expect(countOf(removed.body)).toBe("2 subscribers match.")
    const negated = await b.post(`${base}/segments/new`, {
      csrf, name: "Elsewhere", match: "all", intent: "preview", "c0.kind": "email", "c0.op": "domain", "c0.value": "example.com", "c0.not": "on"
    })
    expect(countOf(negated.body)).toBe("1 subscriber matches.")
    expect(negated.body).toContain(cyd)
    const either = await b.post(`${base}/segments/new`, {
      csrf, name: "Either", match: "any", intent: "preview",
      "c0.kind": "metadata", "c0.op": "gte", "c0.path": "seats", "c0.type": "number", "c0.value": "5",
      "c1.kind": "metadata", "c1.op": "eq", "c1.path": "plan", "c1.type": "text", "c1.value": "free"
    })
    expect(countOf(either.body)).toBe("2 subscribers match.")

    const saved = await b.post(`${base}/segments/new`, { ...full, intent: "save" })
    expect(saved.status, saved.body).toBe(303)
    const id = /\/segments\/([0-9a-f-]{36})$/.exec(saved.headers.get("location") ?? "")![1]!
    const edit = await b.get(`${base}/segments/${id}`)
    expect(edit.body).toContain("The segment Pro was created.")
    expect(edit.body).toContain(`value="${tagId}" checked`)
    expect(edit.body).toContain("name=\"c3.from\" type=\"date\" value=\"2000-01-01\"")
    expect(edit.body).toContain("value=\"example.com\"")
    expect(edit.body).toContain("<option value=\"received_not_within\" selected>")
    expect(countOf(edit.body)).toBe("1 subscriber matches.")

    const list = await b.get(`${base}/segments`)
    expect(list.body).toContain(`>Pro</a>`)
    expect(list.body).toMatch(/<td class="number">1<\/td>/)
  })

  it("answers the script's preview with who matches and each condition's problem, swapped in beside it", async () => {
    const { b, base, csrf } = await populated()
    const part = await b.post(`${base}/segments/preview`, {
      csrf, match: "all", "c0.kind": "metadata", "c0.op": "eq", "c0.path": "plan", "c0.type": "text", "c0.value": "pro"
    }, { "hx-request": "true" })
    expect(part.status).toBe(200)
    expect(part.body).not.toContain("<html")
    expect(countOf(part.body)).toBe("2 subscribers match.")
    expect(part.body).toContain("<div id=\"seg-c0-problem\" hx-swap-oob=\"true\"></div>")

    const bad = await b.post(`${base}/segments/preview`, {
      csrf, match: "all",
      "c0.kind": "engagement", "c0.op": "opened_within", "c0.days": "0",
      "c1.kind": "status", "c1.op": "in"
    }, { "hx-request": "true" })
    expect(bad.status).toBe(200)
    expect(countOf(bad.body)).toBeUndefined()
    expect(bad.body).toContain("The conditions are not complete")
    expect(bad.body).toContain("<p class=\"field-error\" id=\"seg-c0-error\">must be a whole number of days from 1 to 3650</p>")
    expect(bad.body).toContain("<p class=\"field-error\" id=\"seg-c1-error\">must not be empty</p>")
    // The preview of a form posted from elsewhere is refused like any form.
    expect((await b.post(`${base}/segments/preview`, { match: "all" })).status).toBe(403)
  })

  it("shows the filter's and the use case's refusals beside the bad condition, and the name's beside the name, in German too", async () => {
    const { b, base, csrf } = await populated()
    const wrong = await b.post(`${base}/segments/new`, {
      csrf, name: " ", match: "all", intent: "save",
      "c0.kind": "metadata", "c0.op": "gt", "c0.path": "1bad", "c0.type": "number", "c0.value": "x",
      "c1.kind": "created_at", "c1.from": "", "c1.to": "",
      "c2.kind": "tags", "c2.op": "has_any", "c2.tags": nothing
    })
    expect(wrong.status).toBe(400)
    expect(fieldError(wrong, "seg-name")).toBe("Give the segment a name of at most 200 characters, on one line.")
    expect(fieldError(wrong, "seg-c0")).toBe("Enter a number, such as 42 or 3.5.")
    expect(fieldError(wrong, "seg-c1")).toContain("must be a date (YYYY-MM-DD)")
    expect(wrong.body).toContain("value=\"1bad\"")
    // Who matches is not shown for conditions that are not complete; the preview says why.
    expect(countOf(wrong.body)).toBeUndefined()
    expect(wrong.body).toContain("<p class=\"note\">The conditions are not complete; see the messages beside them.</p>")
    // A tag that is not the organization's: the use case says so, beside its condition.
    const foreign = await b.post(`${base}/segments/new`, {
      csrf, name: "Foreign", match: "all", intent: "save", "c0.kind": "tags", "c0.op": "has_any", "c0.tags": nothing
    })
    expect(foreign.status).toBe(400)
    expect(fieldError(foreign, "seg-c0")).toBe(`names no tag of this organization (${nothing})`)
    const path = await b.post(`${base}/segments/new`, {
      csrf, name: "Path", match: "all", intent: "save", "c0.kind": "metadata", "c0.op": "eq", "c0.path": "1bad", "c0.type": "text", "c0.value": "x"
    })
    expect(unescape(fieldError(path, "seg-c0") ?? "")).toContain("metadata path key \"1bad\" must start with a letter")
    const notAnId = await b.post(`${base}/segments/new`, {
      csrf, name: "Not an id", match: "all", intent: "save", "c0.kind": "tags", "c0.op": "has_any", "c0.tags": "vip"
    })
    expect(notAnId.status).toBe(400)
    expect(fieldError(notAnId, "seg-c0")).toBe("must be a tag id (a UUID)")
    expect((await b.get(`${base}/segments`)).body).toContain("No segments yet.")

    await b.get("/app/locale/de?back=/app")
    const german = await b.post(`${base}/segments/new`, {
      csrf, name: "", match: "all", intent: "save",
      "c0.kind": "engagement", "c0.op": "opened_within", "c0.days": "9999",
      "c1.kind": "tags", "c1.op": "has_any", "c1.tags": nothing
    })
    expect(german.status).toBe(400)
    expect(fieldError(german, "seg-name")).toBe("Geben Sie dem Segment einen Namen mit höchstens 200 Zeichen in einer Zeile.")
    expect(fieldError(german, "seg-c0")).toBe("muss eine ganze Zahl von Tagen zwischen 1 und 3650 sein")
    const germanTag = await b.post(`${base}/segments/new`, {
      csrf, name: "Fremd", match: "all", intent: "save", "c0.kind": "tags", "c0.op": "has_any", "c0.tags": nothing
    })
    expect(fieldError(germanTag, "seg-c0")).toBe(`nennt keinen Tag dieser Organisation (${nothing})`)
    // A problem of the filter is worded from its reason, not from the English words.
    const germanId = await b.post(`${base}/segments/new`, {
      csrf, name: "Keine Kennung", match: "all", intent: "save", "c0.kind": "tags", "c0.op": "has_any", "c0.tags": "vip"
    })
    expect(germanId.status).toBe(400)
    expect(fieldError(germanId, "seg-c0")).toBe("muss die ID eines Tags sein (eine UUID)")
    const germanPath = await b.post(`${base}/segments/new`, {
      csrf, name: "Pfad", match: "all", intent: "save", "c0.kind": "metadata", "c0.op": "eq", "c0.path": "1bad", "c0.type": "text", "c0.value": "x"
    })
    expect(unescape(fieldError(germanPath, "seg-c0") ?? "")).toBe(
      "der Schlüssel \"1bad\" des Metadaten-Pfads muss mit einem Buchstaben oder _ beginnen und darf nur Buchstaben, Ziffern, _ und - enthalten"
    )
    const list = await b.get(`${base}/segments`)
    expect(list.body).toContain("Noch keine Segmente.")
    expect(list.body).toContain(">Segmente</a>")
  })

  it("renames a segment, keeps a filter the API nested as it is, and refuses to delete one a campaign uses, in the viewer's language", async () => {
    const { b, base, csrf, key, tagId } = await populated()
    const nested = await call(server, "POST", `${api()}/segments`, {
      key,
      json: { name: "Nested", filter: { any: [{ all: [{ field: "metadata.plan", op: "eq", value: "pro" }] }, { field: "status", op: "eq", value: "bounced" }] } }
    })
    expect(nested.status, nested.text).toBe(201)
    const id = dataOf(nested.body).id as string
    const edit = await b.get(`${base}/segments/${id}`)
    expect(edit.body).toContain("nests groups, which this screen does not edit")
    expect(unescape(edit.body)).toContain("\"field\": \"metadata.plan\"")
    expect(countOf(edit.body)).toBe("2 subscribers match.")
    const renamed = await b.post(`${base}/segments/${id}`, { csrf, name: "Pro (nested)", description: "Kept by the API", intent: "save" })
    expect(renamed.status).toBe(303)
    const read = await call(server, "GET", `${api()}/segments/${id}`, { key })
    expect(dataOf(read.body)).toMatchObject({ name: "Pro (nested)", description: "Kept by the API", filter: dataOf(nested.body).filter })

    const campaign = await call(server, "POST", `${api()}/campaigns`, {
      key, json: { name: "Pro news", subject: "News", text: "News", audience: { segment_id: id } }
    })
    expect(campaign.status, campaign.text).toBe(201)
    const confirm = await b.get(`${base}/segments/${id}/delete`)
    expect(confirm.body).toContain("Delete the segment Pro (nested)?")
    const refused = await b.post(`${base}/segments/${id}/delete`, { csrf })
    expect(refused.status).toBe(409)
    expect(refused.body).toContain("Campaigns, triggers or sequences still use this segment")
    await b.get("/app/locale/de?back=/app")
    const german = await b.post(`${base}/segments/${id}/delete`, { csrf })
    expect(german.status).toBe(409)
    expect(german.body).toContain("Kampagnen, Auslöser oder Sequenzen verwenden dieses Segment noch")
    expect((await b.get(`${base}/segments`)).body).toContain("Pro (nested)")

    // Once the campaign goes to a tag instead, the segment may go.
    const campaignId = (deployment === "overview" ? campaign.body.data.id : campaign.body.id) as string
    const moved = await call(server, deployment === "overview" ? "PATCH" : "PUT", `${api()}/campaigns/${campaignId}`, { key, json: { audience: { tag_ids: [tagId] } } })
    expect(moved.status, moved.text).toBe(200)
    const deleted = await b.post(`${base}/segments/${id}/delete`, { csrf })
    expect(deleted.status).toBe(303)
    const list = await b.get(`${base}/segments`)
    expect(list.body).toContain("Das Segment Pro (nested) wurde gelöscht.")
    expect((await b.get(`${base}/segments/${id}`)).status).toBe(404)
  })

  it("lists 50 segments a page, oldest first, with links between the pages", async () => {
    const { b, base, key } = await populated()
    for (let i = 1; i <= 51; i++) {
      const made = await call(server, "POST", `${api()}/segments`, { key, json: { name: `Segment ${String(i).padStart(2, "0")}`, filter: { all: [] } } })
      expect(made.status, made.text).toBe(201)
    }
    const first = await b.get(`${base}/segments`)
    expect(first.body).toContain(">Segment 50</a>")
    expect(first.body).not.toContain(">Segment 51</a>")
    expect(first.body).toContain("Page 1 of 2")
    expect(first.body).toContain(`<a href="${base}/segments?page=2">Next</a>`)
    const second = await b.get(`${base}/segments?page=2`)
    expect(second.body).toContain(">Segment 51</a>")
    expect(second.body).not.toContain(">Segment 01</a>")
    expect(second.body).toContain(`<a href="${base}/segments?page=1">Previous</a>`)
    expect(second.body).toMatch(/<td class="number">3<\/td>/)
  })

  it("reads the days of a created range in the viewer's time zone, and shows them back as the same days", async () => {
    const { b, base, csrf, key } = await populated()
    b.jar.set("roster_tz", encodeURIComponent("Europe/Berlin"))
    const made = await b.post(`${base}/segments/new`, {
      csrf, name: "Spring", match: "all", intent: "save", "c0.kind": "created_at", "c0.from": "2025-03-01", "c0.to": "2025-07-31"
    })
    expect(made.status, made.body).toBe(303)
    const id = /\/segments\/([0-9a-f-]{36})$/.exec(made.headers.get("location") ?? "")![1]!
    const read = await call(server, "GET", `${api()}/segments/${id}`, { key })
    // Midnight in Berlin: an hour before in winter, two in summer; the last day is included.
    expect(dataOf(read.body).filter).toEqual({
      all: [{ field: "created_at", op: "between", value: ["2025-02-28T23:00:00.000Z", "2025-07-31T22:00:00.000Z"] }]
    })
    const edit = await b.get(`${base}/segments/${id}`)
    expect(edit.body).toContain("name=\"c0.from\" type=\"date\" value=\"2025-03-01\"")
    expect(edit.body).toContain("name=\"c0.to\" type=\"date\" value=\"2025-07-31\"")
    expect(edit.body).toContain("Days are in the time zone Europe/Berlin.")
    // A zone the server does not know is read as UTC.
    b.jar.set("roster_tz", "Mars%2FOlympus")
    const utc = await b.get(`${base}/segments/${id}`)
    expect(utc.body).toContain("Days are in the time zone UTC.")
    expect(utc.body).toContain("name=\"c0.from\" type=\"date\" value=\"2025-02-28\"")
  })

  it("neither shows nor changes another organization's segment, and refuses forms without the session's token", async () => {
    const first = await ownerWithOrganization(server)
    const made = await first.b.post(`${first.base}/segments/new`, { csrf: first.csrf, name: "Mine", match: "all", intent: "save" })
    expect(made.status).toBe(303)
    const id = /\/segments\/([0-9a-f-]{36})$/.exec(made.headers.get("location") ?? "")![1]!
    const second = await ownerWithOrganization(server)
    expect((await second.b.get(`${second.base}/segments/${id}`)).status).toBe(404)
    expect((await second.b.post(`${second.base}/segments/${id}`, { csrf: second.csrf, name: "Taken", intent: "save" })).status).toBe(404)
    expect((await second.b.post(`${second.base}/segments/${id}/delete`, { csrf: second.csrf })).status).toBe(404)
    expect((await second.b.get(`${second.base}/segments/not-an-id`)).status).toBe(404)
    const attempts = [
      await first.b.post(`${first.base}/segments/new`, { name: "Forged", match: "all", intent: "save" }),
      await first.b.post(`${first.base}/segments/${id}`, { csrf: second.csrf, name: "Forged", intent: "save" }),
      await first.b.post(`${first.base}/segments/${id}/delete`, { csrf: first.csrf }, { origin: "https://evil.example" })
    ]
    for (const attempt of attempts) {
      expect(attempt.status).toBe(403)
      expect(unescape(attempt.body)).toContain("was not sent from Roster's own pages")
    }
    const list = await first.b.get(`${first.base}/segments`)
    expect(list.body).toContain(">Mine</a>")
    expect(list.body).not.toContain("Forged")
  })
})
