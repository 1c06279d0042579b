/**
 * Refusals of the use cases on the dashboard's screens, in the person's language: the reason
 * beside the field it names, in German for a German browser and in English for an English one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { runImports } from "../../support/worker-steps.js"
import { freshEmail } from "../helpers.js"
import { csrfOf, fieldError, personIn, unescape } from "./dashboard-browser.js"

const languages = [
  { locale: "de", tagName: "darf höchstens 100 Zeichen lang sein", sender: "muss genau ein @ enthalten; geben Sie die Adresse allein an, ohne Namen", domain: "muss ein Hostname allein sein, etwa news.example.com, ohne Schema, Port oder Pfad", header: "Diese Datei kann nicht importiert werden: Zeile 1: die erste Zeile muss die Spalten benennen, eine davon „email“; sie nennt 'name'", revoked: "der Schlüssel ist widerrufen und kann nicht erneuert werden; legen Sie einen neuen an", rows: ["muss genau ein @ enthalten", "muss einer dieser Werte sein: active, unsubscribed, bounced, complained", "steht auch in Zeile 3; nur die erste Zeile mit einer Adresse wird importiert"] },
  { locale: "en", tagName: "must be at most 100 characters", sender: "must contain exactly one @; give the address alone, without a name", domain: "must be a host name alone, such as news.example.com, without scheme, port or path", header: "This file cannot be imported: line 1: the first line must name the columns, one of them 'email'; it names 'name'", revoked: "the key is revoked and cannot be rotated; create a new one", rows: ["must contain exactly one @", "must be one of active, unsubscribed, bounced, complained", "is also on line 3; only the first row with an address is imported"] }
] as const

describe("refusals on the dashboard's screens", () => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form: "reference", adapters: UnlimitedRateLimiterLive })
  })
  afterAll(() => server.close())

  describe.each(languages)("in $locale", (language) => {
    const headers = { "accept-language": language.locale }

    it("says why a tag's name is refused beside the name", async () => {
      const owner = await personIn(server)
      const refused = await owner.b.post(`${owner.base}/tags`, { csrf: owner.csrf, name: "x".repeat(101), description: "" }, headers)
      expect(refused.status).toBe(400)
      expect(unescape(fieldError(refused, "tag-name") ?? "")).toBe(language.tagName)
    })

    it("says why a sender address is refused beside the address, built on the address's own problem", async () => {
      const owner = await personIn(server)
      const refused = await owner.b.post(`${owner.base}/settings/sender`, { csrf: owner.csrf, from_name: "News", from_address: "news.example.com" }, headers)
      expect(refused.status).toBe(400)
      expect(unescape(fieldError(refused, "from-address") ?? "")).toBe(language.sender)
    })

    it("says why a sending domain is refused beside the domain", async () => {
      const owner = await personIn(server, { tier: "enterprise" })
      const refused = await owner.b.post(`${owner.base}/settings/domain`, { csrf: owner.csrf, domain: "https://news.example.com/" }, headers)
      expect(refused.status).toBe(400)
      expect(unescape(fieldError(refused, "domain-name") ?? "")).toBe(language.domain)
    })

    it("says why an uploaded file cannot be imported beside the file, with its line", async () => {
      const owner = await personIn(server)
      const screen = await owner.b.get(`${owner.base}/imports`, headers)
      const file = new Blob(["name\nAda\n"], { type: "text/csv" })
      const refused = await owner.b.postMultipart(`${owner.base}/imports`, [["csrf", csrfOf(screen)], ["file", file, "people.csv"]], headers)
      expect(refused.status).toBe(400)
      expect(unescape(fieldError(refused, "import-file") ?? "")).toBe(language.header)
    })

    it("says why each row of an import was not taken, on the import's page and in its CSV of problems", async () => {
      const owner = await personIn(server)
      const screen = await owner.b.get(`${owner.base}/imports`, headers)
      const ada = freshEmail("ada")
      const file = new Blob([`email,status\nnot.an.address,\n${ada},\n${ada},\n${freshEmail("grace")},sleeping\n`], { type: "text/csv" })
      const uploaded = await owner.b.postMultipart(`${owner.base}/imports`, [["csrf", csrfOf(screen)], ["file", file, "people.csv"]], headers)
      expect(uploaded.status, uploaded.body).toBe(303)
      const preview = await owner.b.get(uploaded.headers.get("location")!, headers)
      const started = await owner.b.post(uploaded.headers.get("location")!, { csrf: csrfOf(preview), rows: "4" }, headers)
      expect(started.status, started.body).toBe(303)
      await server.run(runImports)
      const job = (started.headers.get("location") ?? "").split("?")[0]!
      const page = await owner.b.get(job, headers)
      const shown = [...page.body.matchAll(/<tr><td class="number">(\d+)<\/td><td><code>[^<]*<\/code><\/td><td>([^<]*)<\/td>/g)]
        .map(([, line, problem]) => [line, unescape(problem!)])
      expect(shown).toEqual([["2", language.rows[0]], ["4", language.rows[2]], ["5", language.rows[1]]])
      const csv = (await owner.b.get(`${job}/problems.csv`, headers)).body
      for (const problem of language.rows) expect(csv).toContain(problem)
    })

    it("says why a revoked key cannot be rotated", async () => {
      const owner = await personIn(server)
      const made = await owner.b.post(`${owner.base}/api-keys`, { csrf: owner.csrf, name: "CI", scopes: ["subscribers:read"], environment: "live" })
      expect(made.status).toBe(200)
      const id = /\/api-keys\/([^/"]+)\/rotate/.exec((await owner.b.get(`${owner.base}/api-keys`)).body)?.[1]
      expect(id).toBeDefined()
      expect((await owner.b.post(`${owner.base}/api-keys/${id}/revoke`, { csrf: owner.csrf })).status).toBe(303)
      const refused = await owner.b.post(`${owner.base}/api-keys/${id}/rotate`, { csrf: owner.csrf }, headers)
      expect(refused.status).toBe(400)
      expect(unescape(refused.body)).toContain(language.revoked)
    })
  })
})
