/**
 * The dashboard's sequences screen through the running server, in both deployments: a sequence
 * built in the editor without a script (steps added, moved and removed by posting the form), saved
 * as the definition the API takes and shown in words; a branch's segment filter built with the
 * segment builder's controls, read back and told in words, a nested one kept as JSON, an
 * incomplete condition refused by its path; a bad definition refused naming its path, in
 * English and German; the use case's refusals (a template of nobody, activating a sequence whose
 * template was deleted, enrolling into a draft, an unknown email); activation, pause and resume;
 * who is where, enrolled by email and taken out; a new version when an active one's steps change;
 * a draft deleted; another organization's sequence, and forms posted without the session's token.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, freshAddress, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { type FormValues, personIn, unescape } from "./dashboard-browser.js"

const deployments = ["reference", "overview"] as const

/** The editor's fields for settings and steps, as the form posts them. */
const editor = (
  csrf: string,
  settings: Record<string, string>,
  steps: ReadonlyArray<Readonly<Record<string, string | ReadonlyArray<string> | undefined>>>,
  op = "save"
): FormValues => {
  const form: Record<string, string | ReadonlyArray<string>> = {
    csrf,
    op,
    name: "Welcome series",
    entry_event: "api",
    re_entry: "once",
    time_zone: "Europe/Berlin",
    goal_tag_id: "",
    step_count: String(steps.length),
    ...settings
  }
  steps.forEach((step, i) => {
    for (const [name, value] of Object.entries(step)) if (value !== undefined) form[`s${i}.${name}`] = value
  })
  return form
}

const sequenceIdIn = (location: string | null) => /\/sequences\/([0-9a-f-]{36})$/.exec(location ?? "")?.[1] ?? ""

describe.each(deployments)("the sequences screen in the %s deployment", (deployment) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form: deployment, adapters: UnlimitedRateLimiterLive })
  })
  afterAll(() => server.close())
  const api = () => deployment === "overview" ? "/v1" : "/api/v1"
  const data = (body: Record<string, unknown>) => (body.data ?? body) as Record<string, unknown>

  /** An owner on the screen, with a key, two templates and a subscriber of the organization. */
  const setUp = async () => {
    const person = await personIn(server)
    const key = await server.createApiKey(person.organization)
    const template = async (name: string) => {
      const made = await call(server, "POST", `${api()}/templates`, { key, json: { name, subject: `${name}!`, text: "Hello {{ preferences_url }}" } })
      expect(made.status, made.text).toBe(201)
      return data(made.body).id as string
    }
    const welcome = await template("Welcome <1>")
    const tips = await template("Tips")
    const email = freshAddress("reader")
    const subscriber = await call(server, "POST", `${api()}/subscribers`, { key, json: { email } })
    expect(subscriber.status, subscriber.text).toBe(201)
    return { ...person, key, welcome, tips, email, subscriberId: data(subscriber.body).id as string }
  }

  it("builds send, wait, send in the editor without a script, and saves the definition the API shows", async () => {
    const { b, base, csrf, key, welcome, tips } = await setUp()
    const empty = await b.get(`${base}/sequences`)
    expect(empty.status).toBe(200)
    expect(empty.body).toContain("No sequences yet.")
    expect(empty.body).toContain(`<a href="${base}/sequences" aria-current="page">Sequences</a>`)

    const blank = await b.get(`${base}/sequences/new`)
    expect(blank.status).toBe(200)
    expect(blank.body).toContain("Step 1: Send an email (step_1)")
    expect(blank.body).toContain("Welcome &lt;1&gt;")

    // Adding a wait and a second email re-renders the editor with the steps, nothing saved yet.
    const first = { type: "send_email", name: "step_1", template_id: welcome, kind: "marketing" }
    const withWait = await b.post(`${base}/sequences/new`, { ...editor(csrf, {}, [first], "add"), add_type: "wait" })
    expect(withWait.status).toBe(200)
    expect(withWait.body).toContain("Step 2: Wait (step_2)")
    expect(withWait.body).toContain(`value="${welcome}" selected`)
    const wait = { type: "wait", name: "step_2", amount: "3", unit: "days" }
    const withSecond = await b.post(`${base}/sequences/new`, { ...editor(csrf, {}, [first, wait], "add"), add_type: "send_email" })
    expect(withSecond.body).toContain("Step 3: Send an email (step_3)")
    const list = await call(server, "GET", `${api()}/sequences`, { key })
    expect(JSON.stringify(list.body)).not.toContain("Welcome series")

    const second = { type: "send_email", name: "step_3", template_id: tips, kind: "transactional" }
    const saved = await b.post(`${base}/sequences/new`, editor(csrf, {}, [first, wait, second]))
    expect(saved.status, saved.body).toBe(303)
    const id = sequenceIdIn(saved.headers.get("location"))
    expect(id).not.toBe("")

    const shown = await b.get(`${base}/sequences/${id}`)
    expect(shown.body).toContain("The sequence Welcome series was created as a draft.")
    expect(shown.body).toContain("Send the email Welcome &lt;1&gt; (Marketing)")
    expect(shown.body).toContain("Wait 3 days")
    expect(shown.body).toContain("Send the email Tips (Transactional)")
    expect(shown.body).toContain("Only subscribers enrolled here or through the API enter.")
    expect(shown.body).toContain(">Draft</span>")

    const stored = await call(server, "GET", `${api()}/sequences/${id}`, { key })
    expect(stored.status, stored.text).toBe(200)
    expect(data(stored.body).steps).toEqual([
      { name: "step_1", send_email: { template_id: welcome, kind: "marketing", data: {} } },
      { name: "step_2", wait: "P3D" },
      { name: "step_3", send_email: { template_id: tips, kind: "transactional", data: {} } }
    ])
    expect(data(stored.body).time_zone).toBe("Europe/Berlin")

    // The editor shows it again as saved; a wait until 09:00 on weekdays and a branch read in words.
    const edit = await b.get(`${base}/sequences/${id}/edit`)
    expect(edit.body).toContain("name=\"s1.amount\" type=\"text\" inputmode=\"numeric\" maxlength=\"6\" value=\"3\"")
    const branched = await b.post(`${base}/sequences/${id}/edit`, editor(csrf, {}, [
      first,
      { type: "wait_until", name: "morning", until: "09:00", weekdays: ["mon", "fri"], time_zone_field: "tz" },
      { type: "branch", name: "opened", condition: "opened_previous_email", go_to: "tips", else_go_to: "" },
      { type: "end", name: "done" },
      { ...second, name: "tips" }
    ]))
    expect(branched.status, branched.body).toBe(303)
    const words = await b.get(`${base}/sequences/${id}`)
    expect(words.body).toContain("Wait until 09:00 on Monday and Friday, in the subscriber&#39;s time zone (metadata tz), else Europe/Berlin")
    expect(words.body).toContain("If they opened the previous email, go to tips; otherwise to the next step")
    await b.get("/app/locale/de?back=/app")
    const german = await b.get(`${base}/sequences/${id}`)
    expect(german.body).toContain("Die E-Mail Welcome &lt;1&gt; senden (Marketing)")
    expect(german.body).toContain("Bis 09:00 Uhr am Montag und Freitag warten, in der Zeitzone des Abonnenten (Metadaten tz), sonst Europe/Berlin")
    expect(german.body).toContain("Wenn er die vorige E-Mail geöffnet hat, weiter zu tips; sonst zu dem nächsten Schritt")
    const again = await call(server, "GET", `${api()}/sequences/${id}`, { key })
    expect((data(again.body).steps as Array<unknown>)[1]).toEqual({ name: "morning", wait: { until: "09:00", weekdays: ["mon", "fri"], time_zone_field: "tz" } })
  })

  it("builds a branch's segment filter with the segment builder's controls, saves the API's filter and tells it in words", async () => {
    const { b, base, csrf, key, welcome, tips } = await setUp()
    const tag = await call(server, "POST", `${api()}/tags`, { key, json: { name: "VIP" } })
    expect(tag.status, tag.text).toBe(201)
    const tagId = data(tag.body).id as string
    const first = { type: "send_email", name: "step_1", template_id: welcome, kind: "marketing" }

    // A branch added without a script comes with the filter's controls, conditions added and removed by posting.
    const withBranch = await b.post(`${base}/sequences/new`, { ...editor(csrf, {}, [first], "add"), add_type: "branch" })
    expect(withBranch.status).toBe(200)
    expect(withBranch.body).toContain("name=\"s1.filter_mode\" value=\"builder\"")
    expect(withBranch.body).toContain("<select id=\"seq-s1-add-kind\" name=\"s1.add_kind\">")
    const branch = { type: "branch", name: "check", condition: "filter", filter_mode: "builder", match: "all", go_to: "tips" }
    const withTags = await b.post(`${base}/sequences/new`, {
      ...editor(csrf, {}, [first, branch], "condition-add:1"),
      "s1.add_kind": "tags"
    })
    expect(withTags.status).toBe(200)
    expect(withTags.body).toContain("Condition 1: Tags")
    expect(withTags.body).toContain(`name="s1.c0.tags" value="${tagId}"`)
    expect(withTags.body).toContain(`formaction="${base}/sequences/new#seq-s1"`)
    // With the script, who matches follows the filter through the segment builder's preview, its problems beside each condition.
    expect(withTags.body).toContain(`<div id="seq-s1-filter-preview" aria-live="polite" hx-post="${base}/segments/preview"`)
    expect(withTags.body).toContain(`hx-vals='{"filter_prefix": "s1."}'`)
    const matching = await b.post(`${base}/segments/preview`, {
      csrf, filter_prefix: "s1.", "s1.match": "all", "s1.c0.kind": "status", "s1.c0.op": "in", "s1.c0.statuses": ["active"]
    }, { "hx-request": "true" })
    expect(matching.status).toBe(200)
    expect(matching.body).toContain("<p id=\"seq-s1-count\"><strong>1 subscriber matches.</strong>")
    expect(matching.body).toContain("<div id=\"seq-s1-c0-problem\" hx-swap-oob=\"true\"></div>")
    const lacking = await b.post(`${base}/segments/preview`, {
      csrf, filter_prefix: "s1.", "s1.match": "all", "s1.c0.kind": "engagement", "s1.c0.op": "opened_within", "s1.c0.days": "0"
    }, { "hx-request": "true" })
    expect(lacking.body).toContain("<p class=\"field-error\" id=\"seq-s1-c0-error\">must be a whole number of days from 1 to 3650</p>")
    const conditions = {
      "c0.kind": "tags",
      "c0.op": "has_any",
      "c0.tags": [tagId],
      "c1.kind": "status",
      "c1.op": "in",
      "c1.statuses": ["active"]
    }
    const removed = await b.post(`${base}/sequences/new`, editor(csrf, {}, [first, { ...branch, ...conditions }], "condition-remove:1:0"))
    expect(removed.body).toContain("Condition 1: Status")
    expect(removed.body).not.toContain("Condition 2:")

    const steps = [
      first,
      { type: "wait", name: "pause", amount: "1", unit: "days" },
      { ...branch, ...conditions },
      { type: "end", name: "done" },
      { type: "send_email", name: "tips", template_id: tips, kind: "marketing" }
    ]
    const saved = await b.post(`${base}/sequences/new`, editor(csrf, {}, steps))
    expect(saved.status, saved.body).toBe(303)
    const id = sequenceIdIn(saved.headers.get("location"))
    const stored = await call(server, "GET", `${api()}/sequences/${id}`, { key })
    expect((data(stored.body).steps as Array<unknown>)[2]).toEqual({
      name: "check",
      branch: {
        if: { filter: { all: [{ field: "tags", op: "has_any", value: [tagId] }, { field: "status", op: "in", value: ["active"] }] } },
        go_to: "tips"
      }
    })

    // Read back into the controls, and told in words in English and German.
    const edit = await b.get(`${base}/sequences/${id}/edit`)
    expect(edit.body).toContain(`name="s2.c0.tags" value="${tagId}" checked`)
    expect(edit.body).toContain("name=\"s2.c1.statuses\" value=\"active\" checked")
    const words = await b.get(`${base}/sequences/${id}`)
    expect(words.body).toContain("If they match (Tags has any of VIP and Status is one of Active), go to tips; otherwise to the next step")
    await b.get("/app/locale/de?back=/app")
    const german = await b.get(`${base}/sequences/${id}`)
    expect(german.body).toContain("Wenn er diese Bedingungen erfüllt (Tags hat eines von VIP und Status ist einer von Aktiv), weiter zu tips")
    await b.get("/app/locale/en?back=/app")

    // A filter that nests groups stays JSON, in the editor and in words.
    const nested = { any: [{ all: [{ field: "status", op: "eq", value: "active" }, { field: "email", op: "domain", value: "example.com" }] }, { field: "tags", op: "has_any", value: [tagId] }] }
    const made = await call(server, "POST", `${api()}/sequences`, {
      key,
      json: { name: "Nested", entry: { event: "api" }, steps: [{ name: "a", wait: "PT1H" }, { name: "b", branch: { if: { filter: nested }, go_to: "a" } }] }
    })
    expect(made.status, made.text).toBe(201)
    const nestedId = data(made.body).id as string
    const nestedEdit = await b.get(`${base}/sequences/${nestedId}/edit`)
    expect(nestedEdit.body).toContain("name=\"s1.filter_mode\" value=\"json\"")
    expect(nestedEdit.body).toContain("This filter nests groups, which the controls do not edit")
    expect(unescape(nestedEdit.body)).toContain("\"op\": \"domain\"")
    const nestedWords = await b.get(`${base}/sequences/${nestedId}`)
    expect(unescape(nestedWords.body)).toContain(`If they match the segment filter ${JSON.stringify(nested)}, go to a`)
  })

  it("tells who matches a branch's filter without the script, counted again on asking, in English and German", async () => {
    const { b, base, csrf, welcome } = await setUp()
    const first = { type: "send_email", name: "step_1", template_id: welcome, kind: "marketing" }
    const branch = { type: "branch", name: "check", condition: "filter", filter_mode: "builder", match: "all", go_to: "done" }
    const last = { type: "end", name: "done" }
    const active = { "c0.kind": "status", "c0.op": "in", "c0.statuses": ["active"] }
    const counted = await b.post(`${base}/sequences/new`, editor(csrf, {}, [first, { ...branch, ...active }, last], "count"))
    expect(counted.status).toBe(200)
    expect(counted.body).toContain(`<button type="submit" class="secondary" name="op" value="count" formaction="${base}/sequences/new#seq-s1">Count who matches</button>`)
    expect(counted.body).toContain("<p id=\"seq-s1-count\"><strong>1 subscriber matches.</strong>")
    const none = await b.post(`${base}/sequences/new`, editor(csrf, {}, [first, { ...branch, ...active, "c0.statuses": ["bounced"] }, last], "count"))
    expect(none.body).toContain("<p id=\"seq-s1-count\"><strong>0 subscribers match.</strong>")
    // A condition with a problem is told beside it, and nothing is counted.
    const lacking = { "c0.kind": "engagement", "c0.op": "opened_within", "c0.days": "0" }
    const refused = await b.post(`${base}/sequences/new`, editor(csrf, {}, [first, { ...branch, ...lacking }, last], "count"))
    expect(refused.status).toBe(200)
    expect(refused.body).not.toContain("id=\"seq-s1-count\"")
    // A tag that is not the organization's: the preview refuses it, and the page still answers, without a count.
    const foreign = { "c0.kind": "tags", "c0.op": "has_any", "c0.tags": ["0190f5a2-0000-7000-8000-000000000000"] }
    const unknownTag = await b.post(`${base}/sequences/new`, editor(csrf, {}, [first, { ...branch, ...foreign }, last], "count"))
    expect(unknownTag.status).toBe(200)
    expect(unknownTag.body).not.toContain("id=\"seq-s1-count\"")
    // Saved, the editor counts at once.
    const saved = await b.post(`${base}/sequences/new`, editor(csrf, {}, [first, { ...branch, ...active }, last]))
    expect(saved.status, saved.body).toBe(303)
    const id = sequenceIdIn(saved.headers.get("location"))
    expect((await b.get(`${base}/sequences/${id}/edit`)).body).toContain("<p id=\"seq-s1-count\"><strong>1 subscriber matches.</strong>")
    await b.get("/app/locale/de?back=/app")
    const german = await b.get(`${base}/sequences/${id}/edit`)
    expect(german.body).toContain(">Passende zählen</button>")
    expect(german.body).toContain("<p id=\"seq-s1-count\"><strong>1 Abonnent passt.</strong>")
    await b.get("/app/locale/en?back=/app")
  })

  it("refuses a branch's incomplete filter condition by the API's path, beside the condition, in English and German", async () => {
    const { b, base, csrf } = await setUp()
    const steps = [
      { type: "wait", name: "a", amount: "1", unit: "hours" },
      {
        type: "branch",
        name: "b",
        condition: "filter",
        filter_mode: "builder",
        match: "any",
        go_to: "a",
        "c0.kind": "metadata",
        "c0.op": "eq",
        "c0.path": "",
        "c0.type": "text",
        "c0.value": "gold",
        "c1.kind": "metadata",
        "c1.op": "gt",
        "c1.path": "score",
        "c1.type": "number",
        "c1.value": "lots"
      }
    ]
    const refused = await b.post(`${base}/sequences/new`, editor(csrf, {}, steps))
    expect(refused.status).toBe(400)
    const text = unescape(refused.body)
    expect(text).toMatch(/steps\[1\]\.branch\.if\.filter\.any\[0\]\.field: /)
    expect(text).toContain("steps[1].branch.if.filter.any[1].value: Enter a number, such as 42 or 3.5.")
    expect(text).not.toContain("steps[1].branch.if.filter.any[1].field")
    expect(refused.body).toContain("<p class=\"field-error\" id=\"seq-s1-c1-error\">steps[1].branch.if.filter.any[1].value:")
    expect(refused.body).toContain("aria-describedby=\"seq-s1-c0-error\"")
    // The conditions come back as posted.
    expect(refused.body).toContain("name=\"s1.c1.value\" type=\"text\" maxlength=\"254\" value=\"lots\"")
    // A filter written as JSON is refused condition by condition, in the words the API uses.
    const asJson = [
      steps[0]!,
      { type: "branch", name: "b", condition: "filter", filter: JSON.stringify({ any: [{ field: "tags", op: "has_any", value: "x" }] }), go_to: "a" }
    ]
    const json = await b.post(`${base}/sequences/new`, editor(csrf, {}, asJson))
    expect(json.status).toBe(400)
    expect(unescape(json.body)).toContain("steps[1].branch.if.filter.any[0].value: must be an array, not \"x\"")

    await b.get("/app/locale/de?back=/app")
    const german = await b.post(`${base}/sequences/new`, editor(csrf, {}, steps))
    expect(german.status).toBe(400)
    expect(unescape(german.body)).toContain("steps[1].branch.if.filter.any[1].value: Geben Sie eine Zahl ein, etwa 42 oder 3.5.")
    expect(unescape(german.body)).toContain(
      "steps[1].branch.if.filter.any[0].field: der Schlüssel \"\" des Metadaten-Pfads muss mit einem Buchstaben oder _ beginnen"
    )
    const germanJson = await b.post(`${base}/sequences/new`, editor(csrf, {}, asJson))
    expect(germanJson.status).toBe(400)
    expect(unescape(germanJson.body)).toContain("steps[1].branch.if.filter.any[0].value: muss eine Liste sein, nicht \"x\"")
  })

  it("moves and removes steps by posting, keeping their names so branches still find them", async () => {
    const { b, base, csrf, welcome } = await setUp()
    const steps: ReadonlyArray<Record<string, string>> = [
      { type: "send_email", name: "hello", template_id: welcome },
      { type: "wait", name: "pause", amount: "2", unit: "hours" },
      { type: "end", name: "done" }
    ]
    const moved = await b.post(`${base}/sequences/new`, editor(csrf, {}, steps, "up:1"))
    expect(moved.status).toBe(200)
    expect(moved.body.indexOf("Step 1: Wait (pause)")).toBeGreaterThan(-1)
    expect(moved.body.indexOf("Step 2: Send an email (hello)")).toBeGreaterThan(moved.body.indexOf("Step 1: Wait (pause)"))
    // Without the script, the page the buttons lead to is at the step they moved or added.
    expect(moved.body).toContain(`value="up:1" formaction="${base}/sequences/new#seq-s0"`)
    expect(moved.body).toContain(`value="add" formaction="${base}/sequences/new#seq-s3"`)
    const removed = await b.post(`${base}/sequences/new`, editor(csrf, {}, steps, "remove:2"))
    expect(removed.body).toContain("name=\"step_count\" value=\"2\"")
    expect(removed.body).not.toContain("(done)")
  })

  it("refuses a bad definition naming its path, beside the step, in English and German, keeping what was typed", async () => {
    const { b, base, csrf, welcome } = await setUp()
    const bad = editor(csrf, {}, [
      { type: "send_email", name: "step_1", template_id: "" },
      { type: "wait", name: "step_2", amount: "0", unit: "days" },
      { type: "branch", name: "step_3", condition: "has_tag", condition_tag: "", go_to: "step_1" }
    ])
    const refused = await b.post(`${base}/sequences/new`, bad)
    expect(refused.status).toBe(400)
    const text = unescape(refused.body)
    expect(text).toContain("steps[0].send_email.template_id: choose a template")
    expect(text).toContain("steps[1].wait: give a whole number of minutes, hours, days or weeks")
    expect(text).toContain("steps[2].branch.if.has_tag: choose the tag of the condition")
    expect(refused.body).toContain("<p class=\"field-error\" id=\"seq-s1-error\">steps[1].wait:")
    expect(refused.body).toContain("aria-describedby=\"seq-s1-error\"")
    expect(refused.body).toContain("value=\"0\"")

    // A branch to a step that is not there, once the steps themselves are whole; a loop with no wait.
    const nowhere = await b.post(`${base}/sequences/new`, editor(csrf, {}, [
      { type: "send_email", name: "a", template_id: welcome },
      { type: "branch", name: "b", condition: "opened_previous_email", go_to: "nowhere" }
    ]))
    expect(nowhere.status).toBe(400)
    expect(unescape(nowhere.body)).toContain("steps[1].branch.go_to: choose a step of this sequence")
    expect(nowhere.body).toContain("<option value=\"nowhere\" selected>nowhere</option>")
    const loop = await b.post(`${base}/sequences/new`, editor(csrf, {}, [
      { type: "send_email", name: "a", template_id: welcome },
      { type: "branch", name: "b", condition: "opened_previous_email", go_to: "a" }
    ]))
    expect(unescape(loop.body)).toContain("steps[1].branch.go_to: this makes a loop with no wait in it")
    const clock = await b.post(`${base}/sequences/new`, editor(csrf, { name: "" }, [
      { type: "wait_until", name: "a", until: "25:00" },
      { type: "end", name: "a" }
    ]))
    expect(unescape(clock.body)).toContain("steps[0].wait.until: give a time of day as HH:MM")
    expect(unescape(clock.body)).toContain("name: give the sequence a name")
    const filter = await b.post(`${base}/sequences/new`, editor(csrf, {}, [
      { type: "wait", name: "a", amount: "1", unit: "hours" },
      { type: "branch", name: "b", condition: "filter", filter: "{not json", go_to: "a" }
    ]))
    expect(filter.status).toBe(400)
    expect(unescape(filter.body)).toContain("steps[1].branch.if.filter: the filter must be a segment filter in JSON")
    expect(filter.body).toContain("{not json</textarea>")
    const twice = await b.post(`${base}/sequences/new`, editor(csrf, {}, [{ type: "end", name: "a" }, { type: "end", name: "a" }]))
    expect(unescape(twice.body)).toContain("steps[1].name: another step has this name")

    await b.get("/app/locale/de?back=/app")
    const german = await b.post(`${base}/sequences/new`, bad)
    expect(german.status).toBe(400)
    expect(unescape(german.body)).toContain("Die Sequenz wurde nicht gespeichert:")
    expect(unescape(german.body)).toContain("steps[1].wait: Geben Sie eine ganze Zahl von Minuten, Stunden, Tagen oder Wochen an")
    expect(unescape(german.body)).toContain("steps[0].send_email.template_id: Wählen Sie eine Vorlage")
  })

  it("shows the use case's refusals: a template of nobody, an unknown time zone, and activating one whose template was deleted", async () => {
    const { b, base, csrf, key, welcome, tips } = await setUp()
    const nobody = await b.post(`${base}/sequences/new`, editor(csrf, {}, [{ type: "send_email", name: "a", template_id: crypto.randomUUID() }]))
    expect(nobody.status).toBe(400)
    expect(unescape(nobody.body)).toMatch(/steps: .*template/)
    const zone = await b.post(`${base}/sequences/new`, editor(csrf, { time_zone: "Mars/Olympus" }, [{ type: "end", name: "a" }]))
    expect(zone.status).toBe(400)
    expect(unescape(zone.body)).toContain("time_zone: must be an IANA time zone")
    expect(zone.body).toContain("id=\"seq-zone-error\"")

    const made = await b.post(`${base}/sequences/new`, editor(csrf, {}, [{ type: "send_email", name: "a", template_id: tips }]))
    const id = sequenceIdIn(made.headers.get("location"))
    const deleted = await call(server, "DELETE", `${api()}/templates/${tips}`, { key })
    expect(deleted.status, deleted.text).toBeLessThan(300)
    const activated = await b.post(`${base}/sequences/${id}/activate`, { csrf })
    expect(activated.status).toBe(400)
    expect(unescape(activated.body)).toMatch(/<p class="field-error" role="alert" id="sequence-action-error">steps: .*template/)
    const still = await call(server, "GET", `${api()}/sequences/${id}`, { key })
    expect(data(still.body).status).toBe("draft")
    // Through the API too: the same use case refuses it.
    const byApi = await call(server, "POST", `${api()}/sequences/${id}/activate`, { key })
    expect(byApi.status).toBe(400)
    expect(welcome).not.toBe("")
  })

  it("activates, enrolls by email, shows who is where, pauses and resumes, takes a subscriber out", async () => {
    const { b, base, csrf, key, welcome, email, subscriberId } = await setUp()
    const made = await b.post(`${base}/sequences/new`, editor(csrf, {}, [
      { type: "send_email", name: "step_1", template_id: welcome },
      { type: "wait", name: "step_2", amount: "3", unit: "days" },
      { type: "end", name: "step_3" }
    ]))
    const id = sequenceIdIn(made.headers.get("location"))
    const path = `${base}/sequences/${id}`

    // Into a draft: refused, with the state in words.
    const early = await b.post(`${path}/enroll`, { csrf, email })
    expect(early.status).toBe(409)
    expect(early.body).toContain("The sequence is Draft now; this needs an active sequence.")

    const activated = await b.post(`${path}/activate`, { csrf })
    expect(activated.status).toBe(303)
    const active = await b.get(path)
    expect(active.body).toContain("The sequence Welcome series is active: it enrolls from now on.")
    expect(active.body).toContain(`action="${path}/pause"`)

    const invalid = await b.post(`${path}/enroll`, { csrf, email: "not an address" })
    expect(invalid.status).toBe(400)
    expect(invalid.body).toContain("<p class=\"field-error\" id=\"seq-enroll-email-error\">Enter an email address such as name@example.com.</p>")
    const unknown = freshAddress("stranger")
    const stranger = await b.post(`${path}/enroll`, { csrf, email: unknown })
    expect(stranger.status).toBe(400)
    expect(stranger.body).toContain(`No subscriber of this organization has the address ${unknown}.`)
    expect(stranger.body).toContain(`value="${unknown}"`)

    const enrolled = await b.post(`${path}/enroll`, { csrf, email })
    expect(enrolled.status).toBe(303)
    const who = await b.get(path)
    expect(who.body).toContain(`${email} entered the sequence.`)
    expect(who.body).toContain(`<a href="${base}/subscribers/${subscriberId}">${email}</a>`)
    expect(who.body).toContain("<td>In it</td>")
    expect(who.body).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+">/)
    expect(who.body).toContain("Times in your time zone, UTC.")
    const inApi = await call(server, "GET", `${api()}/sequences/${id}/enrollments`, { key })
    expect(JSON.stringify(inApi.body)).toContain(subscriberId)

    // Once: entering again is refused naming why.
    const twice = await b.post(`${path}/enroll`, { csrf, email })
    expect(twice.status).toBe(400)
    expect(twice.body).toContain("id=\"seq-enroll-email-error\"")

    // Times in the viewer's zone, as the script keeps it.
    b.jar.set("roster_tz", encodeURIComponent("Asia/Tokyo"))
    expect((await b.get(path)).body).toContain("Times in your time zone, Asia/Tokyo.")

    const paused = await b.post(`${path}/pause`, { csrf })
    expect(paused.status).toBe(303)
    const pausedPage = await b.get(path)
    expect(pausedPage.body).toContain(">Paused</span>")
    expect(pausedPage.body).toContain(">Resume</button>")
    expect(data((await call(server, "GET", `${api()}/sequences/${id}`, { key })).body).status).toBe("paused")
    const resumed = await b.post(`${path}/activate`, { csrf })
    expect(resumed.status).toBe(303)
    expect((await b.get(path)).body).toContain("The sequence Welcome series goes on")

    const list = await b.get(`${base}/sequences`)
    const row = list.body.split("<tr>").find((r) => r.includes(`/sequences/${id}"`)) ?? ""
    expect(row).toContain("<span class=\"badge\">Active</span>")
    expect(row).toMatch(/<td class="number">1<\/td>\s*<td class="number">1<\/td>\s*<td class="number">1<\/td>/)

    const out = await b.post(`${path}/enrollments/${subscriberId}/remove`, { csrf })
    expect(out.status).toBe(303)
    const after = await b.get(path)
    expect(after.body).toContain(`${email} was taken out of the sequence.`)
    expect(after.body).toContain("Left (removed)")
    // Taking out one who is not in it: the use case's 404.
    const none = await b.post(`${path}/enrollments/${subscriberId}/remove`, { csrf })
    expect(none.status).toBe(404)
  })

  it("shows who is where 25 at a time, with links between the pages", async () => {
    const { b, base, csrf, key, welcome } = await setUp()
    const made = await b.post(`${base}/sequences/new`, editor(csrf, {}, [
      { type: "wait", name: "a", amount: "1", unit: "days" },
      { type: "send_email", name: "b", template_id: welcome }
    ]))
    const id = sequenceIdIn(made.headers.get("location"))
    await b.post(`${base}/sequences/${id}/activate`, { csrf })
    for (let i = 0; i < 26; i++) {
      const subscriber = await call(server, "POST", `${api()}/subscribers`, { key, json: { email: freshAddress("many") } })
      const enrolled = await call(server, "POST", `${api()}/sequences/${id}/enrollments`, { key, json: { subscriber_id: data(subscriber.body).id } })
      expect(enrolled.status, enrolled.text).toBe(201)
    }
    const first = await b.get(`${base}/sequences/${id}`)
    expect(first.body.match(/>Take out</g)).toHaveLength(25)
    expect(first.body).toContain("Page 1 of 2")
    expect(first.body).toContain(`href="${base}/sequences/${id}?page=2"`)
    const second = await b.get(`${base}/sequences/${id}?page=2`)
    expect(second.body.match(/>Take out</g)).toHaveLength(1)
    expect(second.body).toContain("<nav class=\"actions pages\" aria-label=\"Pages of enrollments\">")
    const list = await b.get(`${base}/sequences`)
    const row = list.body.split("<tr>").find((r) => r.includes(`/sequences/${id}"`)) ?? ""
    expect(row).toMatch(/<td class="number">26<\/td>\s*<td class="number">26<\/td>/)
  })

  it("saves new steps of an active sequence as the next version", async () => {
    const { b, base, csrf, welcome, tips } = await setUp()
    const made = await b.post(`${base}/sequences/new`, editor(csrf, {}, [{ type: "send_email", name: "a", template_id: welcome }]))
    const id = sequenceIdIn(made.headers.get("location"))
    await b.post(`${base}/sequences/${id}/activate`, { csrf })
    const same = await b.post(`${base}/sequences/${id}/edit`, editor(csrf, { name: "Renamed" }, [{ type: "send_email", name: "a", template_id: welcome }]))
    expect(same.status).toBe(303)
    expect((await b.get(`${base}/sequences/${id}`)).body).toContain("The sequence Renamed was saved.")
    const changed = await b.post(`${base}/sequences/${id}/edit`, editor(csrf, { name: "Renamed" }, [{ type: "send_email", name: "a", template_id: tips }]))
    expect(changed.status).toBe(303)
    expect((await b.get(`${base}/sequences/${id}`)).body).toContain("The sequence Renamed was saved as version 2")
  })

  it("deletes a draft after a confirmation", async () => {
    const { b, base, csrf, key } = await setUp()
    const made = await b.post(`${base}/sequences/new`, editor(csrf, { name: "Draft <x>" }, [{ type: "end", name: "a" }]))
    const id = sequenceIdIn(made.headers.get("location"))
    expect((await b.get(`${base}/sequences/${id}`)).body).toContain(`href="${base}/sequences/${id}/delete"`)
    const confirm = await b.get(`${base}/sequences/${id}/delete`)
    expect(confirm.body).toContain("Delete the sequence Draft &lt;x&gt;?")
    const deleted = await b.post(`${base}/sequences/${id}/delete`, { csrf })
    expect(deleted.status).toBe(303)
    expect(deleted.headers.get("location")).toBe(`${base}/sequences`)
    expect((await b.get(`${base}/sequences`)).body).toContain("The sequence Draft &lt;x&gt; was deleted.")
    expect((await call(server, "GET", `${api()}/sequences/${id}`, { key })).status).toBe(404)
  })

  it("does not show another organization's sequence, and changes nothing for a form without the token", async () => {
    const { b, base, csrf } = await setUp()
    const made = await b.post(`${base}/sequences/new`, editor(csrf, {}, [{ type: "end", name: "a" }]))
    const id = sequenceIdIn(made.headers.get("location"))
    const other = await personIn(server)
    expect((await other.b.get(`${other.base}/sequences/${id}`)).status).toBe(404)
    expect((await other.b.post(`${other.base}/sequences/${id}/activate`, { csrf: other.csrf })).status).toBe(404)
    expect((await b.get(`${base}/sequences/not-an-id`)).status).toBe(404)
    const forged = await b.post(`${base}/sequences/${id}/activate`, {})
    expect(forged.status).toBe(403)
    expect((await b.get(`${base}/sequences/${id}`)).body).toContain(">Draft</span>")
  })
})
