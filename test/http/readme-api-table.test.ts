/**
 * The README's table of the API (its section "The API") against what the service serves: every
 * group (OpenAPI tag) of the document of each wire form names a row, every operation of either
 * form is in the table (an overview form's `PATCH` may stand as the reference form's `PUT`), and
 * every scope `GET /api-keys/scopes` lists is in the Scope column. The documents and the scopes are read from running servers, as a
 * reader of the README would meet them.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../support/http-server.js"

const readme = readFileSync(fileURLToPath(new URL("../../README.md", import.meta.url)), "utf8")

interface Row {
  readonly area: string
  /** `METHOD path` of each endpoint the row names, the API's base taken off and parameters as `{}`. */
  readonly endpoints: ReadonlySet<string>
  readonly scopes: ReadonlySet<string>
}

const METHOD = /^(GET|POST|PUT|PATCH|DELETE)$/

/** A path as the table and the documents are compared: without the API's base, parameters as `{}`. */
const normalized = (path: string) => path.replace(/^\/(api\/)?v1(?=\/)/, "").replace(/\{[^}]*\}|:[a-z_]+/g, "{}")

/**
 * The endpoints of a cell: each code span `METHOD /path`, with the methods of the spans right
 * before it that hold a method alone (`GET`/`PUT`/`DELETE /tags/{id}` is three endpoints).
 */
const endpointsOf = (cell: string): ReadonlySet<string> => {
  const found = new Set<string>()
  let pending: Array<string> = []
  for (const [, span] of cell.matchAll(/`([^`]+)`/g)) {
    const [first, second] = span!.split(" ")
    if (!METHOD.test(first!)) {
      pending = []
      continue
    }
    if (second === undefined) {
      pending.push(first!)
      continue
    }
    for (const method of [...pending, first!]) found.add(`${method} ${normalized(second)}`)
    pending = []
  }
  return found
}

/** The rows of the first table under `## The API`. */
const tableRows = (): ReadonlyArray<Row> => {
  const start = readme.indexOf("\n## The API\n")
  expect(start, "the README has a section ## The API").toBeGreaterThan(-1)
  const after = readme.slice(start).split("\n")
  const lines = after.slice(after.findIndex((line) => line.startsWith("|")))
  const table = lines.slice(0, lines.findIndex((line) => !line.startsWith("|")))
  expect(table[0]).toMatch(/^\| Area \| Endpoints .*\| Scope \|$/)
  return table.slice(2).map((line) => {
    // Cells split at `|` that is not escaped (`\|` stands in a cell for a bar).
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim())
    expect(cells, line).toHaveLength(3)
    return {
      area: cells[0]!,
      endpoints: endpointsOf(cells[1]!),
      scopes: new Set([...cells[2]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!))
    }
  })
}

interface Document {
  readonly tags?: ReadonlyArray<{ readonly name: string }>
  readonly paths: Record<string, Record<string, { readonly tags?: ReadonlyArray<string> }>>
}

const operationsOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHOD.test(method.toUpperCase()))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, group: operation.tags?.[0] ?? "(no tag)" }))
  )

/**
 * The row whose area names `group`: an area lists names separated by commas, a name in brackets
 * after another being one more (`Sign-in (auth)`).
 */
const rowOf = (rows: ReadonlyArray<Row>, group: string) =>
  rows.find((row) =>
    row.area.split(/,\s*|\s*\(|\)\s*/).some((name) => name.trim().toLowerCase() === group.toLowerCase())
  )

const deployments = [
  { form: "reference", api: "/api/v1" },
  { form: "overview", api: "/v1" }
] as const

const servers: Partial<Record<"reference" | "overview", TestHttpServer>> = {}

beforeAll(async () => {
  const [reference, overview] = await Promise.all([startHttpServer(), startHttpServer({ form: "overview" })])
  servers.reference = reference
  servers.overview = overview
}, 60_000)

afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()))
})

describe("the README's table of the API", () => {
  it("reads: every row has an area, endpoints and a scope", () => {
    const rows = tableRows()
    expect(rows.length).toBeGreaterThan(10)
    for (const row of rows) {
      expect(row.area, JSON.stringify(row)).not.toBe("")
      expect(row.endpoints.size, row.area).toBeGreaterThan(0)
    }
    expect(endpointsOf("`GET`/`PUT`/`DELETE /subscribers/{id}/notes/{note_id}`, `POST /tags` (`{name}`)")).toEqual(
      new Set(["GET /subscribers/{}/notes/{}", "PUT /subscribers/{}/notes/{}", "DELETE /subscribers/{}/notes/{}", "POST /tags"])
    )
    const areas = [{ area: "Sign-in (auth)" }, { area: "Provider events, payment events" }, { area: "Subscriber tags" }]
      .map((row) => ({ ...row, endpoints: new Set<string>(), scopes: new Set<string>() }))
    expect(rowOf(areas, "Auth")?.area).toBe("Sign-in (auth)")
    expect(rowOf(areas, "Payment events")?.area).toBe("Provider events, payment events")
    expect(rowOf(areas, "Tags")).toBeUndefined()
  })

  for (const { form, api } of deployments) {
    describe(`against the ${form} form`, () => {
      let document: Document

      beforeAll(async () => {
        const answer = await call(servers[form]!, "GET", "/openapi.json")
        expect(answer.status).toBe(200)
        document = answer.body as Document
      })

      it("has a row for every group of the OpenAPI document", () => {
        const rows = tableRows()
        const groups = [...new Set(operationsOf(document).map((operation) => operation.group))]
        expect(groups.length).toBeGreaterThan(15)
        expect(groups.filter((group) => rowOf(rows, group) === undefined)).toEqual([])
      })

      it("names every operation of the document", () => {
        const rows = tableRows()
        const everywhere = new Set(rows.flatMap((row) => [...row.endpoints]))
        const missing = operationsOf(document).filter(({ method, path }) => {
          if (everywhere.has(`${method} ${normalized(path)}`)) return false
          // The overview form's changes are PATCH where the reference form's are PUT.
          return !(form === "overview" && method === "PATCH" && everywhere.has(`PUT ${normalized(path)}`))
        })
        expect(missing.map(({ group, method, path }) => `${group}: ${method} ${path}`)).toEqual([])
      })

      it("names every scope GET /api-keys/scopes lists", async () => {
        const { key } = await servers[form]!.seedOrganization()
        const answer = await call(servers[form]!, "GET", `${api}/api-keys/scopes`, { key })
        expect(answer.status, answer.text).toBe(200)
        // The reference form lists them in `items`, the overview form in `data`.
        const listed = (form === "overview" ? answer.body.data : answer.body.items) as ReadonlyArray<{ scope: string }>
        const scopes = listed.map((entry) => entry.scope)
        expect(scopes).toContain("*")
        expect(scopes).toContain("subscribers:read")
        const inTable = new Set(tableRows().flatMap((row) => [...row.scopes]))
        expect(scopes.filter((scope) => !inTable.has(scope))).toEqual([])
      })
    })
  }
})
