/**
 * The dashboard's import and export screen through the running server, in both deployments: a CSV
 * file uploaded, previewed (its first rows, how each column is read), started, run by the worker
 * (here its step, in the server's runtime) and followed on its page, its problems listed by line
 * and downloaded; the subscribers exported as CSV; and every refusal beside its field.
 */
import { ImportJobRepository, Organizations } from "@roster/application"
import { Effect } from "effect"
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { runImports } from "../../support/worker-steps.js"
import { freshEmail } from "../helpers.js"
import { type Browser, browser, csrfOf, fieldError, ownerWithOrganization, type Page, unescape } from "./dashboard-browser.js"

const forms = ["reference", "overview"] as const

/** The largest file this suite's server takes. */
const MAX_BYTES = 16 * 1024

const csv = (...lines: ReadonlyArray<string>) => lines.map((line) => `${line}\n`).join("")
const csvFile = (text: string | Uint8Array) => new Blob([text], { type: "text/csv" })

/** Where a page sends the browser. */
const locationOf = (page: Page) => page.headers.get("location") ?? ""


describe.each(forms)("the import and export screen in the %s deployment", (form) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form, adapters: UnlimitedRateLimiterLive, config: { IMPORT_MAX_BYTES: String(MAX_BYTES) } })
  })
  afterAll(() => server.close())

  /** Gives up every import of the server still receiving (a draft or an upload under way): how many there were. */
  const receivingLeft = () =>
    server.run(Effect.flatMap(ImportJobRepository, (jobs) => jobs.discardAbandoned(new Date(Date.UTC(2100, 0, 1)))))

  /** Uploads `file` from the imports page, with its form token: the answer. */
  const upload = async (b: Browser, base: string, file: Blob, fileName = "members.csv") => {
    const screen = await b.get(`${base}/imports`)
    return b.postMultipart(`${base}/imports`, [["csrf", csrfOf(screen)], ["file", file, fileName]])
  }

  /** Uploads and starts an import: the job's page address. */
  const imported = async (b: Browser, base: string, text: string) => {
    const uploaded = await upload(b, base, csvFile(text))
    expect(uploaded.status, uploaded.body).toBe(303)
    const preview = await b.get(locationOf(uploaded))
    const rows = /name="rows" value="(\d+)"/.exec(preview.body)?.[1] ?? ""
    const started = await b.post(locationOf(uploaded), { csrf: csrfOf(preview), rows })
    expect(started.status, started.body).toBe(303)
    await server.run(runImports)
    return locationOf(started)
  }

  it("previews an uploaded file, starts it, and follows it to its end with its problem rows by line, downloadable as CSV", async () => {
    const { b, base } = await ownerWithOrganization(server)
    const [ada, grace] = [freshEmail("ada"), freshEmail("grace")]
    const text = csv(
      "Email Address,First Name,status,tags,metadata.plan,Member Rating",
      `${ada},Ada,,Weekly,pro,5`,
      "not an address,Bob,,,,3",
      `${grace},Grace,sleeping,,,4`,
      `${ada.toUpperCase()},Ada again,,,,1`
    )
    const listed = await b.get(`${base}/imports`)
    expect(listed.status).toBe(200)
    expect(listed.body).toContain("enctype=\"multipart/form-data\"")
    expect(listed.body).toContain("accept=\".csv,text/csv\"")
    expect(listed.body).toMatch(new RegExp(`<a href="${base}/imports" aria-current="page">Import and export</a>`))

    const uploaded = await upload(b, base, csvFile(text))
    expect(uploaded.status, uploaded.body).toBe(303)
    expect(locationOf(uploaded)).toMatch(new RegExp(`^${base}/imports/uploads/[0-9a-f-]{36}$`))

    const preview = await b.get(locationOf(uploaded))
    expect(preview.status).toBe(200)
    expect(preview.body).toContain("Preview of members.csv")
    expect(preview.body).toContain("4 rows after the header line")
    // Each column as the import reads it; the unknown one named.
    expect(preview.body).toMatch(/<td>Email Address<\/td><td><code>email<\/code><\/td>/)
    expect(preview.body).toMatch(/<td>First Name<\/td><td><code>first_name<\/code><\/td>/)
    expect(preview.body).toMatch(/<td>metadata.plan<\/td><td><code>metadata.plan<\/code><\/td>/)
    expect(preview.body).toMatch(/<td>Member Rating<\/td><td><span class="badge">not imported<\/span><\/td>/)
    expect(preview.body).toContain("Not imported (unknown columns): Member Rating")
    // The first rows, with their lines.
    expect(preview.body).toContain(`<tr><td class="number">2</td><td>${ada}</td><td>Ada</td>`)
    expect(preview.body).toContain("<td>not an address</td>")
    // Nothing is imported before it is started.
    expect((await b.get(`${base}/imports`)).body).toContain("No imports yet.")

    const started = await b.post(locationOf(uploaded), { csrf: csrfOf(preview), rows: "4" })
    expect(started.status, started.body).toBe(303)
    const jobPage = locationOf(started)
    expect(jobPage).toMatch(new RegExp(`^${base}/imports/[0-9a-f-]{36}\\?rows=4$`))
    const waiting = await b.get(jobPage)
    expect(waiting.status).toBe(200)
    expect(waiting.body).toContain("The import has started.")
    expect(waiting.body).toContain("<label for=\"import-progress-bar\">Progress of the import</label>")
    expect(waiting.body).toMatch(/<progress id="import-progress-bar" max="4" value="0"/)
    expect(waiting.body).toContain("0 of 4 rows")
    expect(waiting.body).toContain("hx-trigger=\"every 1s\"")

    // The kept file is gone with its start.
    expect((await b.get(locationOf(uploaded))).status).toBe(303)

    await server.run(runImports)
    const fragment = await b.get(jobPage, { "hx-request": "true" })
    expect(fragment.status).toBe(200)
    expect(fragment.body).not.toContain("<html")
    expect(fragment.body).toMatch(/^<div id="import-progress">/)
    // Done: the polling stops.
    expect(fragment.body).not.toContain("hx-trigger")
    expect(fragment.body).toContain("4 of 4 rows")
    expect(fragment.body).toMatch(/<progress id="import-progress-bar" max="4" value="4"/)
    expect(fragment.body).toMatch(/<dt>Created<\/dt><dd>1<\/dd>/)
    expect(fragment.body).toMatch(/<dt>Failed<\/dt><dd>3<\/dd>/)
    expect(fragment.body).toContain("Columns passed over: Member Rating")
    expect(fragment.body).toMatch(/<tr><td class="number">3<\/td><td><code>email<\/code><\/td>/)
    expect(fragment.body).toMatch(/<tr><td class="number">4<\/td><td><code>status<\/code><\/td>/)
    expect(unescape(fragment.body)).toContain(`is also on line 2`)

    const done = await b.get(jobPage.split("?")[0]!)
    expect(done.body).toContain("Completed")
    const download = /<a href="([^"]+)" download>Download problems \(CSV\)<\/a>/.exec(done.body)?.[1]
    expect(download).toBe(`${jobPage.split("?")[0]}/problems.csv`)
    const problems = await b.get(download!)
    expect(problems.status).toBe(200)
    expect(problems.headers.get("content-type")).toBe("text/csv; charset=utf-8")
    expect(problems.headers.get("content-disposition")).toMatch(/^attachment; filename="import-[0-9a-f-]+-problems\.csv"$/)
    const lines = problems.body.trimEnd().split("\r\n")
    expect(lines[0]).toBe("line,field,problem,email")
    expect(lines.map((line) => line.split(",")[0])).toEqual(["line", "3", "4", "5"])
    expect(lines[2]).toContain(grace)

    const list = await b.get(`${base}/imports`)
    expect(list.body).toContain(`<a href="${jobPage.split("?")[0]}">members.csv</a>`)
    expect(list.body).toContain("<td>Completed</td>")
  })

  it("pages the problem rows of an import by 50", async () => {
    const { b, base } = await ownerWithOrganization(server)
    const text = csv("email", ...Array.from({ length: 60 }, (_, i) => `bad ${i}`))
    const jobPage = (await imported(b, base, text)).split("?")[0]!
    const first = await b.get(jobPage)
    expect(first.body).toContain("Page 1 of 2")
    expect(first.body).toMatch(/<td class="number">51<\/td>/)
    expect(first.body).not.toMatch(/<td class="number">52<\/td>/)
    const second = await b.get(`${jobPage}?page=2`)
    expect(second.body).toContain("Page 2 of 2")
    expect(second.body).toMatch(/<td class="number">52<\/td>/)
    expect(second.body).toMatch(/<td class="number">61<\/td>/)
  })

  it("exports the subscribers as a CSV download, narrowed by status and tag", async () => {
    const { b, base } = await ownerWithOrganization(server)
    const [ada, grace] = [freshEmail("ada"), freshEmail("grace")]
    await imported(b, base, csv("email,first_name,status,tags", `${ada},Ada,,VIP`, `${grace},=Grace,unsubscribed,`))

    const all = await b.get(`${base}/imports/export.csv`)
    expect(all.status).toBe(200)
    expect(all.headers.get("content-type")).toBe("text/csv; charset=utf-8")
    expect(all.headers.get("content-disposition")).toMatch(/^attachment; filename="subscribers-news-[a-z0-9]+-\d{4}-\d{2}-\d{2}\.csv"$/)
    const rows = all.body.trimEnd().split("\r\n")
    expect(rows[0]).toBe("email,first_name,last_name,status,tags,created_at")
    expect(rows.slice(1).map((row) => row.split(",").slice(0, 5))).toEqual([
      [ada, "Ada", "", "active", "VIP"],
      // A cell a spreadsheet would run as a formula is neutralised.
      [grace, "'=Grace", "", "unsubscribed", ""]
    ])

    const vip = await b.get(`${base}/imports/export.csv?status=&tag=vip`)
    expect(vip.body.trimEnd().split("\r\n").slice(1).map((row) => row.split(",")[0])).toEqual([ada])
    const gone = await b.get(`${base}/imports/export.csv?status=unsubscribed&tag=`)
    expect(gone.body.trimEnd().split("\r\n").slice(1).map((row) => row.split(",")[0])).toEqual([grace])
  })

  it("refuses an export by a tag the organization lacks, or a status there is not, beside its field", async () => {
    const { b, base } = await ownerWithOrganization(server)
    const noTag = await b.get(`${base}/imports/export.csv?status=&tag=Nobody`)
    expect(noTag.status).toBe(400)
    expect(noTag.headers.get("content-type")).toContain("text/html")
    expect(fieldError(noTag, "export-tag")).toBe("There is no tag named Nobody in this organization.")
    expect(noTag.body).toContain("value=\"Nobody\"")
    const noStatus = await b.get(`${base}/imports/export.csv?status=sleeping`)
    expect(noStatus.status).toBe(400)
    expect(fieldError(noStatus, "export-status")).toBe("Choose one of the statuses listed.")
  })

  it("refuses an empty file, a file that is not text, one without an email column, a missing file and one too large, beside the file field, keeping none", async () => {
    const { b, base } = await ownerWithOrganization(server)
    await receivingLeft()
    const refusals: ReadonlyArray<readonly [Blob, string, string]> = [
      [csvFile(""), "empty.csv", "The file is empty."],
      [new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d])], { type: "image/png" }), "logo.png", "not text"],
      [csvFile(csv("name,first_name", "Ada,Ada")), "names.csv", "one of them &#39;email&#39;; it names &#39;name&#39;, &#39;first_name&#39;"],
      [csvFile(csv("email", ...Array.from({ length: 1000 }, (_, i) => `someone-${i}@example.com`))), "big.csv", "larger than"]
    ]
    for (const [file, name, text] of refusals) {
      const refused = await upload(b, base, file, name)
      expect(refused.status, name).toBe(400)
      expect(fieldError(refused, "import-file"), name).toContain(text)
      expect(refused.body).toContain("aria-invalid=\"true\"")
    }
    const screen = await b.get(`${base}/imports`)
    const none = await b.postMultipart(`${base}/imports`, [["csrf", csrfOf(screen)]])
    expect(none.status).toBe(400)
    expect(fieldError(none, "import-file")).toBe("Choose a CSV file to import.")
    expect(await receivingLeft()).toBe(0)
    expect((await b.get(`${base}/imports`)).body).toContain("No imports yet.")
  })

  it("refuses an upload without the form token, or from another site, and keeps nothing", async () => {
    const { b, base } = await ownerWithOrganization(server)
    await receivingLeft()
    const forged = await b.postMultipart(`${base}/imports`, [["file", csvFile(csv("email", freshEmail())), "list.csv"]])
    expect(forged.status).toBe(403)
    expect(forged.body).toContain("nothing was changed")
    const wrong = await b.postMultipart(`${base}/imports`, [["csrf", "guess"], ["file", csvFile(csv("email", freshEmail())), "list.csv"]])
    expect(wrong.status).toBe(403)
    expect(await receivingLeft()).toBe(0)

    // Starting a previewed file needs the token too.
    const uploaded = await upload(b, base, csvFile(csv("email", freshEmail())))
    const start = await b.post(locationOf(uploaded), { rows: "1" })
    expect(start.status).toBe(403)
    expect((await b.get(`${base}/imports`)).body).toContain("No imports yet.")
    // Discarded, it is gone.
    const preview = await b.get(locationOf(uploaded))
    const discarded = await b.post(`${locationOf(uploaded)}/discard`, { csrf: csrfOf(preview) })
    expect(discarded.status).toBe(303)
    const gone = await b.get(locationOf(uploaded))
    expect(gone.status).toBe(303)
    expect(locationOf(gone)).toBe(`${base}/imports`)
    expect((await b.get(`${base}/imports`)).body).toContain("The uploaded file is no longer here")
    const startGone = await b.post(locationOf(uploaded), { csrf: csrfOf(preview), rows: "1" })
    expect(startGone.status).toBe(303)
    expect(locationOf(startGone)).toBe(`${base}/imports`)
    expect((await b.get(`${base}/imports`)).body).toContain("No imports yet.")
  })

  it("does not show another organization's import, its problems or another person's upload", async () => {
    const owner = await ownerWithOrganization(server)
    const jobPage = (await imported(owner.b, owner.base, csv("email", "not an address"))).split("?")[0]!
    const importId = jobPage.split("/").at(-1)!
    const uploaded = await upload(owner.b, owner.base, csvFile(csv("email", freshEmail())))

    const other = await ownerWithOrganization(server)
    expect((await other.b.get(`${other.base}/imports/${importId}`)).status).toBe(404)
    expect((await other.b.get(`${other.base}/imports/${importId}/problems.csv`)).status).toBe(404)
    expect((await other.b.get(`${owner.base}/imports/${importId}`)).status).toBe(404)
    const theirUpload = await other.b.get(locationOf(uploaded).replace(owner.base, other.base))
    expect(theirUpload.status).toBe(303)
    expect(locationOf(theirUpload)).toBe(`${other.base}/imports`)
    expect((await other.b.get(`${other.base}/imports/not-an-id`)).status).toBe(404)
    expect((await other.b.get(`${other.base}/imports/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10`)).status).toBe(404)
    // The owner still has theirs.
    expect((await owner.b.get(locationOf(uploaded))).status).toBe(200)
  })

  it("keeps an uploaded file as the uploader's draft: no worker runs it, no list shows it, another member cannot see, start or discard it", async () => {
    const owner = await ownerWithOrganization(server)
    const organization = await server.run(Effect.flatMap(Organizations, (organizations) => organizations.getBySlug(owner.slug)))
    const uploaded = await upload(owner.b, owner.base, csvFile(csv("email", freshEmail("draft"))))
    expect(uploaded.status, uploaded.body).toBe(303)
    const draft = locationOf(uploaded)

    // Workers pass it by; neither the dashboard's list nor the API's shows it.
    expect(await server.run(runImports)).toBe(0)
    expect((await owner.b.get(`${owner.base}/imports`)).body).toContain("No imports yet.")
    const key = await server.createApiKey(organization)
    /** The imports the API lists, in the deployment's wire form. */
    const apiList = async () => {
      const listed = await call(server, "GET", `${form === "reference" ? "/api" : ""}/v1/subscribers/imports`, { key })
      expect(listed.status, listed.text).toBe(200)
      return form === "reference" ? listed.body.items : listed.body.data
    }
    expect(await apiList()).toEqual([])

    const member = await server.signIn()
    await server.addMember(organization.id, member, "member")
    const theirs = browser(server, member.cookie)
    const seen = await theirs.get(draft)
    expect(seen.status).toBe(303)
    expect(locationOf(seen)).toBe(`${owner.base}/imports`)
    const screen = await theirs.get(`${owner.base}/imports`)
    expect(screen.body).toContain("The uploaded file is no longer here")
    const started = await theirs.post(draft, { csrf: csrfOf(screen), rows: "1" })
    expect(started.status).toBe(303)
    expect(locationOf(started)).toBe(`${owner.base}/imports`)
    expect((await theirs.post(`${draft}/discard`, { csrf: csrfOf(screen) })).status).toBe(303)

    // The uploader still has it, and starts it once; a second start finds it gone.
    const preview = await owner.b.get(draft)
    expect(preview.status).toBe(200)
    const first = await owner.b.post(draft, { csrf: csrfOf(preview), rows: "1" })
    expect(locationOf(first)).toMatch(new RegExp(`^${owner.base}/imports/[0-9a-f-]{36}\\?rows=1$`))
    const again = await owner.b.post(draft, { csrf: csrfOf(preview), rows: "1" })
    expect(locationOf(again)).toBe(`${owner.base}/imports`)
    expect(await server.run(runImports)).toBe(1)
    expect((await owner.b.get(`${owner.base}/imports`)).body).toContain("<td>Completed</td>")
    expect(await apiList()).toHaveLength(1)
  })

  it("keeps an uploaded file an hour for its start; then it is gone", async () => {
    const { b, base } = await ownerWithOrganization(server)
    const [kept, late] = [await upload(b, base, csvFile(csv("email", freshEmail()))), await upload(b, base, csvFile(csv("email", freshEmail())))]
    server.advanceClock("59 minutes")
    await server.run(runImports)
    const preview = await b.get(locationOf(kept))
    expect(preview.status).toBe(200)
    expect((await b.post(locationOf(kept), { csrf: csrfOf(preview), rows: "1" })).status).toBe(303)
    server.advanceClock("1 minute")
    const gone = await b.get(locationOf(late))
    expect(locationOf(gone)).toBe(`${base}/imports`)
    const start = await b.post(locationOf(late), { csrf: csrfOf(preview), rows: "1" })
    expect(locationOf(start)).toBe(`${base}/imports`)
    expect((await b.get(`${base}/imports`)).body).toContain("The uploaded file is no longer here")
  })

  it("lets a member import and export as well", async () => {
    const owner = await ownerWithOrganization(server)
    const member = await server.signIn()
    const organization = await server.run(Effect.flatMap(Organizations, (organizations) => organizations.getBySlug(owner.slug)))
    await server.addMember(organization.id, member, "member")
    const b = browser(server, member.cookie)
    const jobPage = await imported(b, owner.base, csv("email", freshEmail("member")))
    expect((await b.get(jobPage)).body).toMatch(/<dt>Created<\/dt><dd>1<\/dd>/)
    expect((await b.get(`${owner.base}/imports/export.csv`)).status).toBe(200)
  })
})

describe("an upload that stops sending, its connection left open", () => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ adapters: UnlimitedRateLimiterLive, config: { UPLOAD_IDLE_SECONDS: "2" } })
  })
  afterAll(() => server.close())

  /**
   * Sends the head of a multipart upload and `start` of its body (of a declared length far
   * longer), then nothing: everything the server answered by the time it closed the connection.
   */
  const stalled = (path: string, cookie: string, start: string) =>
    new Promise<string>((resolve, reject) => {
      const boundary = "stalled-upload-boundary"
      const socket = connect(Number(new URL(server.baseUrl).port), "127.0.0.1")
      let answer = ""
      // A hang deadline: an answer far later than the idle time is no answer.
      const hang = setTimeout(() => {
        socket.destroy()
        reject(new Error(`no answer, or the connection stayed open; so far: ${answer}`))
      }, 20_000)
      socket.setEncoding("utf8")
      socket.on("data", (chunk) => void (answer += chunk))
      socket.on("close", () => {
        clearTimeout(hang)
        resolve(answer)
      })
      socket.on("error", reject)
      socket.write(
        [
          `POST ${path} HTTP/1.1`,
          `Host: ${new URL(server.baseUrl).host}`,
          `Cookie: ${cookie}`,
          `Content-Type: multipart/form-data; boundary=${boundary}`,
          "Content-Length: 1000000",
          "",
          start.replaceAll("BOUNDARY", boundary)
        ].join("\r\n")
      )
    })

  it("is given up after the idle time: 408 beside the file field, the connection closed and no draft left", async () => {
    const { b, base } = await ownerWithOrganization(server)
    const screen = await b.get(`${base}/imports`)
    const cookie = [...b.jar].map(([name, value]) => `${name}=${value}`).join("; ")
    const receiving = () =>
      server.run(Effect.flatMap(ImportJobRepository, (jobs) => jobs.discardAbandoned(new Date(Date.UTC(2100, 0, 1)))))
    await receiving()

    const answer = await stalled(`${base}/imports`, cookie, [
      "--BOUNDARY",
      "Content-Disposition: form-data; name=\"csrf\"",
      "",
      csrfOf(screen),
      "--BOUNDARY",
      "Content-Disposition: form-data; name=\"file\"; filename=\"stalled.csv\"",
      "Content-Type: text/csv",
      "",
      `email\n${freshEmail()}\n${freshEmail()}\n`
    ].join("\r\n"))
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
    expect(answer).toMatch(/^connection: close$/im)
    expect(unescape(answer)).toContain("The upload stopped: nothing of the file came for 2 seconds, so nothing of it was kept. Try again.")
    expect(answer).toContain("id=\"import-file-error\"")
    expect(await receiving()).toBe(0)
    expect((await b.get(`${base}/imports`)).body).toContain("No imports yet.")

    // Stopped before the file: the form is given up too, nothing of it read.
    const early = await stalled(`${base}/imports`, cookie, "--BOUNDARY\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n")
    expect(early).toMatch(/^HTTP\/1\.1 408 /)
    expect(unescape(early)).toContain("The form stopped coming in: nothing arrived for 2 seconds, so nothing of it was kept. Try again.")
    expect(await receiving()).toBe(0)

    // The same upload sent whole is taken.
    const whole = await upload(b, base, csvFile(csv("email", freshEmail())))
    expect(whole.status, whole.body).toBe(303)
  }, 60_000)

  /** Uploads `file` from the imports page, with its form token: the answer. */
  const upload = async (b: Browser, base: string, file: Blob) => {
    const screen = await b.get(`${base}/imports`)
    return b.postMultipart(`${base}/imports`, [["csrf", csrfOf(screen)], ["file", file, "whole.csv"]])
  }
})
