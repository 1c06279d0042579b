import { parse } from "csv-parse/sync"
import { describe, expect, it } from "vitest"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { postgresForProcesses as postgres } from "../support/servers.js"
import { run } from "../support/processes.js"

/**
 * `roster subscribers import`, run as `npm run cli` runs it, on the embedded database and on
 * PostgreSQL: a JSON report on stdout, problems and progress on stderr, and what it imported
 * read back by `subscribers export`.
 */

type Report = {
  readonly completed: boolean
  readonly rows: number
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly failed: number
  readonly kept_status: number
  readonly ignored_columns: ReadonlyArray<string>
  readonly problem_count: number
  readonly problems: ReadonlyArray<{ readonly line: number; readonly field: string; readonly problem: string; readonly email: string | null }>
  readonly failure: { readonly line: number | null; readonly problem: string } | null
}

const escapeCodes = /\u001b\[/

const importing = async (env: Record<string, string>, args: ReadonlyArray<string>) => {
  const result = await run("cli", ["subscribers", "import", ...args], env)
  expect(result.stderr).not.toMatch(escapeCodes)
  return { ...result, report: result.stdout === "" ? undefined : (JSON.parse(result.stdout) as Report) }
}

const imports = async (env: Record<string, string>, args: ReadonlyArray<string>) => {
  const result = await importing(env, args)
  expect(result.code, result.stderr).toBe(0)
  return result
}

const fails = async (env: Record<string, string>, args: ReadonlyArray<string>) => {
  const result = await importing(env, args)
  expect(result.code).toBe(1)
  expect(result.stdout).toBe("")
  const lines = result.stderr.trimEnd().split("\n")
  expect(lines, result.stderr).toHaveLength(1)
  return lines[0]!
}

const exported = async (env: Record<string, string>, slug: string) => {
  const result = await run("cli", ["subscribers", "export", "--org", slug], env)
  expect(result.code, result.stderr).toBe(0)
  return parse(result.stdout) as Array<Array<string>>
}

const organization = async (env: Record<string, string>, slug: string, tier = "pro") => {
  const result = await run("cli", ["org", "create", "--name", slug, "--slug", slug, "--tier", tier], env)
  expect(result.code, result.stderr).toBe(0)
}

/** A file a spreadsheet might save: a byte-order mark, CRLF, a line break inside a cell, a formula, and a few bad rows. */
const aFile = [
  "\uFEFFEmail Address,First Name,Last Name,status,tags,metadata.plan,metadata.note,Member Rating",
  "ada@example.com,Ada,Lovelace,,\"Weekly, VIP\",pro,\"line one\r\nline two\",5",
  "bob@example.com,=HYPERLINK(\"http://evil.example\"),,unsubscribed,,free,,1",
  "not an address,Nobody,,,,,,0",
  "",
  "cy@example.com,Cy,,sleeping,,,,2",
  "ADA@example.com,Ada again,,,,,,3",
  "dee@example.com,Dee,,,Weekly,,,4"
].join("\r\n") + "\r\n"

/**
 * Running a file again and `--resubscribe` depend on the import and the SQL both databases share,
 * not on which database runs it: they are checked once, on PostgreSQL when it is at hand, else on
 * the embedded database.
 */
const checkOnce = (database: "embedded" | "postgres") => database === "postgres" || !postgres.available

const importsAndExports = async (env: Record<string, string>, slug: string, dir: string, once: boolean) => {
  await organization(env, slug)
  const file = join(dir, "subscribers.csv")
  writeFileSync(file, aFile)
  const problemsFile = join(dir, "problems.csv")

  const first = await imports(env, [file, "--org", slug, "--problems", problemsFile])
  expect(first.report).toMatchObject({
    completed: true,
    rows: 6,
    created: 3,
    updated: 0,
    failed: 3,
    ignored_columns: ["Member Rating"],
    problem_count: 3,
    failure: null
  })
  expect(first.report!.problems).toEqual([
    { line: 5, field: "email", problem: "must not contain spaces or control characters", email: null },
    { line: 7, field: "status", problem: "must be one of active, unsubscribed, bounced, complained", email: "cy@example.com" },
    { line: 8, field: "email", problem: "is also on line 2; only the first row with an address is imported", email: "ADA@example.com" }
  ])
  expect(first.stderr).toContain("roster: line 5: email: must not contain spaces or control characters\n")
  expect(first.stderr).toContain("roster: imported 6 rows: 3 created, 0 updated, 0 unchanged, 3 with problems\n")
  expect(parse(readFileSync(problemsFile))).toEqual([
    ["line", "field", "problem", "email"],
    ["5", "email", "must not contain spaces or control characters", ""],
    ["7", "status", "must be one of active, unsubscribed, bounced, complained", "cy@example.com"],
    ["8", "email", "is also on line 2; only the first row with an address is imported", "ADA@example.com"]
  ])

  if (once) {
    const again = await imports(env, [file, "--org", slug])
    expect(again.report).toMatchObject({ rows: 6, created: 0, updated: 0, unchanged: 3, failed: 3 })
  }

  const rows = await exported(env, slug)
  expect(rows[0]).toEqual(["email", "first_name", "last_name", "status", "tags", "created_at", "metadata.note", "metadata.plan"])
  const byEmail = new Map(rows.slice(1).map((row) => [row[0], row]))
  expect(byEmail.get("ada@example.com")!.slice(1, 4)).toEqual(["Ada", "Lovelace", "active"])
  expect(byEmail.get("ada@example.com")![4]!.split(", ").sort()).toEqual(["VIP", "Weekly"])
  expect(byEmail.get("ada@example.com")!.slice(6)).toEqual(["line one\r\nline two", "pro"])
  // The export keeps a spreadsheet from running the formula; the import reads it back as it was.
  expect(byEmail.get("bob@example.com")!.slice(1, 4)).toEqual(["'=HYPERLINK(\"http://evil.example\")", "", "unsubscribed"])

  const exportFile = join(dir, "exported.csv")
  const exportRun = await run("cli", ["subscribers", "export", "--org", slug], env)
  writeFileSync(exportFile, exportRun.stdout)
  await organization(env, `${slug}-copy`)
  const copied = await imports(env, [exportFile, "--org", `${slug}-copy`])
  expect(copied.report).toMatchObject({ rows: 3, created: 3, failed: 0, ignored_columns: [] })
  const copy = await exported(env, `${slug}-copy`)
  expect(copy.map((row) => row.filter((_, i) => i !== 5))).toEqual(rows.map((row) => row.filter((_, i) => i !== 5)))

  if (!once) return
  // Bob unsubscribed; a file that has him active brings him back only with --resubscribe.
  const back = join(dir, "back.csv")
  writeFileSync(back, "email,status\nbob@example.com,active\n")
  expect((await imports(env, [back, "--org", slug])).report).toMatchObject({ unchanged: 1, kept_status: 1 })
  expect((await imports(env, [back, "--org", slug, "--resubscribe"])).report).toMatchObject({ updated: 1, kept_status: 0 })
  expect(new Map((await exported(env, slug)).map((row) => [row[0], row[3]])).get("bob@example.com")).toBe("active")
}

const refusals = async (env: Record<string, string>, slug: string, dir: string) => {
  await organization(env, slug)
  const missing = join(dir, "missing.csv")
  expect(await fails(env, [missing, "--org", slug])).toBe(`roster: ${missing}: cannot be read (no such file)`)
  const good = join(dir, "good.csv")
  writeFileSync(good, "email\nada@example.com\n")
  expect(await fails(env, [good, "--org", "no-such-org"])).toBe("roster: no organization no-such-org")
  expect(await fails(env, [good, "--org", slug, "--encoding", "klingon"]))
    .toBe("roster: --encoding: 'klingon' is not an encoding this service reads (utf-8, utf-16le, windows-1252, iso-8859-1, ...)")

  const noEmail = join(dir, "no-email.csv")
  writeFileSync(noEmail, "name,phone\nAda,123\n")
  const refused = await importing(env, [noEmail, "--org", slug])
  expect(refused.code).toBe(1)
  expect(refused.report).toMatchObject({ completed: false, rows: 0, failure: { line: 1 } })
  expect(refused.stderr.trimEnd().split("\n").at(-1)).toBe(
    `roster: ${noEmail}: line 1: the first line must name the columns, one of them 'email'; it names 'name', 'phone'; ` +
      "the rows before it were imported, and running the import again after a fix changes nothing they did"
  )

  const broken = join(dir, "broken.csv")
  writeFileSync(broken, "email,first_name\na@example.com,A\nb@example.com,\"B\nc@example.com,C\n")
  const stopped = await importing(env, [broken, "--org", slug])
  expect(stopped.code).toBe(1)
  expect(stopped.report).toMatchObject({ completed: false, rows: 1, created: 1, failure: { line: 3, problem: "a quoted cell starts on this line and is never closed" } })

  const latin1 = join(dir, "latin1.csv")
  writeFileSync(latin1, Buffer.from("email;first_name\nzoe@example.com;Zoë\n", "latin1"))
  expect((await importing(env, [latin1, "--org", slug])).report!.problems[0]).toMatchObject({ line: 2, field: "row" })
  expect((await imports(env, [latin1, "--org", slug, "--encoding", "windows-1252"])).report).toMatchObject({ created: 1, failed: 0 })

  const help = await run("cli", ["subscribers", "import", "--help"], env)
  expect(help.code).toBe(0)
  expect(help.stdout).not.toMatch(escapeCodes)
  for (const word of ["--org", "--resubscribe", "--encoding", "--problems", "metadata.KEY"]) expect(help.stdout).toContain(word)
}

describe("subscribers import on the embedded database", () => {
  it("imports a spreadsheet's file, reports its bad rows, and round-trips through export", async () => {
    const dir = mkdtempSync(join(tmpdir(), "roster-import-"))
    try {
      await importsAndExports({ DATA_DIR: join(dir, "data") }, "acme", dir, checkOnce("embedded"))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)

  it("writes the problem file with formula cells neutralised exactly as the export writes them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "roster-import-"))
    try {
      const env = { DATA_DIR: join(dir, "data") }
      await organization(env, "formulas")
      const file = join(dir, "formulas.csv")
      writeFileSync(file, [
        "email,first_name,status",
        "=9+9@csv.example.com,Nine,",
        "=9+9@csv.example.com,Again,",
        "+1@csv.example.com,Plus,sleeping",
        "-x@csv.example.com,Minus,sleeping"
      ].join("\n") + "\n")
      const problemsFile = join(dir, "problems.csv")
      const result = await imports(env, [file, "--org", "formulas", "--problems", problemsFile])
      expect(result.report).toMatchObject({ created: 1, failed: 3 })
      const problems = parse(readFileSync(problemsFile)) as Array<Array<string>>
      expect(problems.map((row) => [row[0], row[1], row[3]])).toEqual([
        ["line", "field", "email"],
        ["3", "email", "'=9+9@csv.example.com"],
        ["4", "status", "'+1@csv.example.com"],
        ["5", "status", "'-x@csv.example.com"]
      ])
      const rows = await exported(env, "formulas")
      expect(rows[1]![0]).toBe(problems[1]![3])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)
})

describe(`subscribers import's refusals, on ${postgres.available ? postgres.label : "the embedded database"}`, () => {
  it("refuses what it cannot read with one line, and stops at a broken line after the rows before it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "roster-import-"))
    try {
      const env: Record<string, string> = postgres.available
        ? { DATABASE_URL: await postgres.database("cli_import_refusals") }
        : { DATA_DIR: join(dir, "data") }
      await refusals(env, `refusals-${Date.now().toString(36)}`, dir)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)
})

describe.skipIf(!postgres.available)(`subscribers import on ${postgres.label}`, () => {
  it("imports a spreadsheet's file, reports its bad rows, and round-trips through export", async () => {
    const dir = mkdtempSync(join(tmpdir(), "roster-import-"))
    try {
      await importsAndExports({ DATABASE_URL: await postgres.database("cli_import") }, `import-${Date.now().toString(36)}`, dir, checkOnce("postgres"))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)
})
