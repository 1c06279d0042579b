import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { csvLines, ImportJobs, type ImportPreview, makeSubscriberLines, SubscriberExports, subscriberColumns } from "@roster/application"
import { ImportId, type ImportJob, ImportRefused, type Reason, ResourceNotFound, SubscriberStatus, UploadTooLarge } from "@roster/domain"
import { Effect, Option, Schema, Stream } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import { HttpSettings } from "../shared/http-settings.js"
import type { DashboardAssets } from "./assets.js"
import { field, fill, page, queryOf, reasonIn, redirect, refusalOf, type Workspace } from "./pages.js"
import type { Screen } from "./screen.js"
import { closingConnection, type UploadedFile } from "./upload.js"

/**
 * Import and export: the organization's imports, newest first; a CSV file uploaded, previewed
 * (its first rows, and which column the import reads as what) and then imported by the worker,
 * its progress followed live with its problem rows; and the subscribers exported as CSV. The
 * import and the export are the use cases the API and the CLI run. Between its preview and its
 * start, an uploaded file is a draft import in the database (`ImportJobs.draft`), so that any
 * instance of the service can show it and start it.
 */

const importIdOf = Schema.decodeUnknownOption(ImportId)
const statusOf = Schema.decodeUnknownOption(SubscriberStatus)

/** Rows of a file shown before it is imported. */
const PREVIEW_ROWS = 5
const IMPORTS_PER_PAGE = 20
const PROBLEMS_PER_PAGE = 50

const encoder = new TextEncoder()

const pageNumberOf = (request: HttpServerRequest.HttpServerRequest, name = "page") => {
  const value = Number(new URL(request.url, "http://dashboard").searchParams.get(name) ?? "1")
  return Number.isSafeInteger(value) && value >= 1 ? value : 1
}

const isRunning = (job: ImportJob) => job.status === "receiving" || job.status === "queued" || job.status === "running"

/** Rows of the file the import is done with (its header is a record too). */
const rowsDone = (job: ImportJob) => isRunning(job) ? Math.max(job.recordsDone - 1, 0) : job.counts.rows

const toRow = (workspace: Workspace, job: ImportJob) => ({
  id: job.id,
  href: `${workspace.base}/imports/${job.id}`,
  fileName: job.fileName ?? "",
  status: job.status,
  rows: rowsDone(job),
  created: job.counts.created,
  problems: job.problemCount,
  createdAt: job.createdAt.toISOString()
})

/** Which of the import's fields each column of the header is read as; `""`: not imported. */
const mappingOf = (preview: ImportPreview) =>
  preview.header.map((name, index) => {
    const { layout } = preview
    const metadata = layout.metadata.find(([, at]) => at === index)
    const target = layout.email === index
      ? "email"
      : layout.firstName === index
      ? "first_name"
      : layout.lastName === index
      ? "last_name"
      : layout.status === index
      ? "status"
      : layout.tags === index
      ? "tags"
      : metadata !== undefined
      ? `metadata.${metadata[0]}`
      : ""
    return { name: name.trim() === "" ? `(${index + 1})` : name, target }
  })

const csvDownload = (body: Stream.Stream<string>, fileName: string) =>
  HttpServerResponse.stream(Stream.map(body, (text) => encoder.encode(text)), {
    contentType: "text/csv; charset=utf-8",
    headers: {
      "Content-Disposition": `attachment; filename="${fileName}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff"
    }
  })

export const makeImportsScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const imports = yield* ImportJobs
    const exports = yield* SubscriberExports
    const { importMaxBytes, uploadIdleSeconds } = yield* HttpSettings

    const numbers = (workspace: Workspace) => new Intl.NumberFormat(workspace.locale === "de" ? "de-DE" : "en-US")

    /**
     * Why a file cannot be imported, or an import stopped, at which line if one is to blame, in
     * the person's words.
     */
    const fileRefusal = (workspace: Workspace, failure: { readonly line: number | null; readonly reason: Reason }) => {
      const problem = reasonIn(workspace.t, failure.reason)
      return failure.line === null
        ? problem
        : fill(workspace.t.imports.failureAt, { line: numbers(workspace).format(failure.line), problem })
    }

    /** The largest file an import takes, as the page names it. */
    const megabytes = (workspace: Workspace) => `${numbers(workspace).format(Math.floor(importMaxBytes / (1024 * 1024)))} MB`

    const refused = (workspace: Workspace, error: ApplicationError) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: `${workspace.base}/imports`
      }, { status: refusal.status, menu: "imports" })
    }

    const notFound = (workspace: Workspace) => page(assets, workspace, "not-found", {}, { status: 404, menu: "imports" })

    /** The list of imports with the upload and export forms; `errors` beside their fields. */
    const listPage = (
      workspace: Workspace,
      request: HttpServerRequest.HttpServerRequest,
      form: { readonly errors: Readonly<Record<string, string>>; readonly values?: object },
      status = 200
    ) =>
      imports.listPage(workspace.principal, { page: pageNumberOf(request), perPage: IMPORTS_PER_PAGE }).pipe(
        Effect.map((found) => {
          const format = numbers(workspace)
          return page(assets, workspace, "imports", {
            imports: found.items.map((job) => {
              const row = toRow(workspace, job)
              return { ...row, rows: format.format(row.rows), created: format.format(row.created), problems: format.format(row.problems) }
            }),
            total: found.total,
            pageNumber: found.page,
            totalPages: found.totalPages,
            previous: found.page > 1 ? `${workspace.base}/imports?page=${found.page - 1}` : "",
            next: found.page < found.totalPages ? `${workspace.base}/imports?page=${found.page + 1}` : "",
            uploadAction: `${workspace.base}/imports`,
            exportAction: `${workspace.base}/imports/export.csv`,
            statuses: SubscriberStatus.literals,
            maxSize: megabytes(workspace),
            values: form.values ?? {},
            errors: form.errors
          }, { status, menu: "imports" })
        }),
        Effect.catchAll((error) => Effect.succeed(refused(workspace, error)))
      )

    /**
     * Keeps an uploaded file as a draft and checks it as the import will read it: the draft's id,
     * or the refusal beside the file field (with its status), or a refusal of the page. A file
     * refused leaves no draft behind.
     */
    const upload = (workspace: Workspace, file: UploadedFile | undefined) =>
      Effect.gen(function*() {
        const t = workspace.t.imports
        if (file === undefined || file.name === "") return { error: t.chooseFile, status: 400 }
        const kept = yield* Effect.either(imports.draft(workspace.principal, {
          fileName: file.name.trim().slice(0, 255) || null,
          bytes: file.content,
          maxBytes: importMaxBytes
        }))
        if (kept._tag === "Left") {
          const error = kept.left
          if (error === "stalled") return { error: fill(t.stalled, { seconds: uploadIdleSeconds }), status: 408 }
          if (error === "broken") return { error: t.brokenOff, status: 400 }
          if (error instanceof UploadTooLarge) return { error: fill(t.tooLarge, { size: megabytes(workspace) }), status: 400 }
          return { refusal: error }
        }
        const draft = kept.right
        const discard = imports.discardDraft(workspace.principal, draft.id).pipe(Effect.orDie)
        if (draft.byteSize === 0) {
          yield* discard
          return { error: t.empty, status: 400 }
        }
        const checked = yield* Effect.either(imports.previewDraft(workspace.principal, draft.id, PREVIEW_ROWS))
        if (checked._tag === "Left") {
          yield* discard
          const error = checked.left
          if (error instanceof ImportRefused) return { error: fill(t.refusedFile, { problem: fileRefusal(workspace, error) }), status: 400 }
          return { refusal: error }
        }
        return { id: draft.id }
      })

    /** The id of the draft the path names; none when it names no import. */
    const draftIdOf = Effect.map(HttpRouter.params, ({ upload_id }) => importIdOf(upload_id))

    /** Back to the list, saying the file is gone (given up, started, older than an hour, or never this person's). */
    const uploadGone = (workspace: Workspace) =>
      redirect(`${workspace.base}/imports`, { kind: "error", text: workspace.t.imports.uploadGone })

    /** The job the path names, or the page that says it is not there. */
    const withJob = (
      workspace: Workspace,
      f: (job: ImportJob) => Effect.Effect<HttpServerResponse.HttpServerResponse, ApplicationError>
    ) =>
      Effect.gen(function*() {
        const { import_id } = yield* HttpRouter.params
        const id = importIdOf(import_id)
        if (Option.isNone(id)) return notFound(workspace)
        return yield* imports.get(workspace.principal, id.value).pipe(Effect.flatMap(f))
      }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))

    /** An import as its page shows it, with one page of its problem rows. */
    const jobValues = (workspace: Workspace, request: HttpServerRequest.HttpServerRequest, job: ImportJob) => {
      const format = numbers(workspace)
      const declared = Number(queryOf(request, "rows"))
      const done = rowsDone(job)
      const running = isRunning(job)
      // The rows counted when the file was previewed; an import's own count once it is done.
      const total = !running ? done : Number.isSafeInteger(declared) && declared > 0 ? Math.max(declared, done) : undefined
      const problemPages = Math.max(1, Math.ceil(job.problems.length / PROBLEMS_PER_PAGE))
      const problemPage = Math.min(pageNumberOf(request), problemPages)
      const here = `${workspace.base}/imports/${job.id}`
      const query = (pageNumber: number) => `?page=${pageNumber}${total === undefined || !running ? "" : `&rows=${total}`}`
      return {
        job: {
          ...toRow(workspace, job),
          title: job.fileName ?? workspace.t.imports.unnamed,
          running,
          failure: job.failure === null ? "" : fileRefusal(workspace, job.failure),
          done,
          // Indeterminate while the end is not known.
          bar: total === undefined ? undefined : total === 0 ? { max: 1, value: running ? 0 : 1 } : { max: total, value: Math.min(done, total) },
          progressText: total === undefined
            ? fill(workspace.t.imports.rowsSoFar, { done: format.format(done) })
            : fill(workspace.t.imports.rowsOf, { done: format.format(done), total: format.format(total) }),
          counts: {
            created: format.format(job.counts.created),
            updated: format.format(job.counts.updated),
            unchanged: format.format(job.counts.unchanged),
            failed: format.format(job.counts.failed)
          },
          problemCount: job.problemCount,
          problemsKept: job.problems.length,
          problemCountText: format.format(job.problemCount),
          problemsKeptText: format.format(job.problems.length),
          ignoredColumns: job.ignoredColumns.join(", ")
        },
        problems: job.problems.slice((problemPage - 1) * PROBLEMS_PER_PAGE, problemPage * PROBLEMS_PER_PAGE)
          .map((p) => ({
            line: p.line,
            lineText: format.format(p.line),
            field: p.field,
            problem: reasonIn(workspace.t, p.reason),
            email: p.email ?? ""
          })),
        problemPage,
        problemPages,
        previousProblems: problemPage > 1 ? `${here}${query(problemPage - 1)}` : "",
        nextProblems: problemPage < problemPages ? `${here}${query(problemPage + 1)}` : "",
        poll: `${here}${query(problemPage)}`,
        problemsDownload: `${here}/problems.csv`,
        back: `${workspace.base}/imports`
      }
    }

    return {
      routes: [
        {
          method: "GET",
          path: "/imports",
          handle: (workspace, request) => listPage(workspace, request, { errors: {} })
        },
        {
          method: "POST",
          path: "/imports",
          body: "file",
          handle: (workspace, request, _form, file) =>
            upload(workspace, file).pipe(
              Effect.flatMap((outcome) =>
                outcome.id !== undefined
                  ? Effect.succeed(redirect(`${workspace.base}/imports/uploads/${outcome.id}`))
                  : outcome.refusal !== undefined
                  ? Effect.succeed(refused(workspace, outcome.refusal))
                  : listPage(workspace, request, { errors: { file: outcome.error } }, outcome.status).pipe(
                    // The rest of a stalled body is not waited for.
                    Effect.map((answer) => outcome.status === 408 ? closingConnection(answer) : answer)
                  )
              )
            )
        },
        {
          method: "GET",
          path: "/imports/export.csv",
          handle: (workspace, request) => {
            const values = { status: queryOf(request, "status"), tag: queryOf(request, "tag") }
            const status = values.status === "" ? Option.some(undefined) : statusOf(values.status)
            if (Option.isNone(status)) {
              return listPage(workspace, request, { values, errors: { status: workspace.t.imports.unknownStatus } }, 400)
            }
            return exports.openFor(workspace.principal, {
              status: status.value,
              tagName: values.tag === "" ? undefined : values.tag
            }).pipe(
              Effect.map((exported) => {
                const lines = makeSubscriberLines(exported.metadataKeys)
                const day = new Date().toISOString().slice(0, 10)
                return csvDownload(
                  Stream.concat(Stream.make(csvLines([subscriberColumns(exported.metadataKeys)])), Stream.map(exported.pages, lines)),
                  `subscribers-${workspace.organization.slug}-${day}.csv`
                )
              }),
              Effect.catchAll((error) => {
                const refusal = refusalOf(error, workspace.t, ["tag"])
                return refusal.field === "tag"
                  ? listPage(workspace, request, { values, errors: { tag: fill(workspace.t.imports.unknownTag, { name: values.tag }) } }, refusal.status)
                  : Effect.succeed(refused(workspace, error))
              })
            )
          }
        },
        {
          method: "GET",
          path: "/imports/uploads/:upload_id",
          handle: (workspace) =>
            Effect.gen(function*() {
              const id = yield* draftIdOf
              if (Option.isNone(id)) return uploadGone(workspace)
              const { job, preview } = yield* imports.previewDraft(workspace.principal, id.value, PREVIEW_ROWS)
              const format = numbers(workspace)
              const mapping = mappingOf(preview)
              return page(assets, workspace, "import-preview", {
                fileName: job.fileName ?? workspace.t.imports.unnamed,
                size: format.format(job.byteSize),
                rowCount: preview.rowCount,
                rowCountText: format.format(preview.rowCount),
                failure: preview.failure === null ? "" : fileRefusal(workspace, preview.failure),
                columns: mapping,
                rows: preview.rows.map((record) => ({
                  line: record.line,
                  cells: mapping.map((_, index) => record.cells[index] ?? "")
                })),
                unknown: mapping.filter((column) => column.target === "").map((column) => column.name).join(", "),
                action: `${workspace.base}/imports/uploads/${job.id}`,
                discard: `${workspace.base}/imports/uploads/${job.id}/discard`,
                back: `${workspace.base}/imports`
              }, { menu: "imports" })
            }).pipe(Effect.catchAll((error) =>
              Effect.succeed(
                error instanceof ResourceNotFound
                  ? uploadGone(workspace)
                  : error instanceof ImportRefused
                  ? redirect(`${workspace.base}/imports`, { kind: "error", text: fill(workspace.t.imports.refusedFile, { problem: fileRefusal(workspace, error) }) })
                  : refused(workspace, error)
              )
            ))
        },
        {
          method: "POST",
          path: "/imports/uploads/:upload_id",
          handle: (workspace, _request, form) =>
            Effect.gen(function*() {
              const id = yield* draftIdOf
              if (Option.isNone(id)) return uploadGone(workspace)
              const job = yield* imports.startDraft(workspace.principal, id.value, { resubscribe: field(form, "resubscribe") === "true" })
              // The rows counted in the preview: the progress bar's end while the import runs.
              const rows = Number(field(form, "rows"))
              const query = Number.isSafeInteger(rows) && rows > 0 ? `?rows=${rows}` : ""
              return redirect(`${workspace.base}/imports/${job.id}${query}`, { kind: "ok", text: workspace.t.imports.started })
            }).pipe(Effect.catchAll((error) => Effect.succeed(error instanceof ResourceNotFound ? uploadGone(workspace) : refused(workspace, error))))
        },
        {
          method: "POST",
          path: "/imports/uploads/:upload_id/discard",
          handle: (workspace) =>
            Effect.gen(function*() {
              const id = yield* draftIdOf
              if (Option.isSome(id)) yield* imports.discardDraft(workspace.principal, id.value)
              return redirect(`${workspace.base}/imports`, { kind: "ok", text: workspace.t.imports.discarded })
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/imports/:import_id",
          handle: (workspace, request) =>
            withJob(workspace, (job) => {
              const values = jobValues(workspace, request, job)
              // htmx asks for the progress alone while the import runs.
              return Effect.succeed(
                request.headers["hx-request"] === "true"
                  ? page(assets, workspace, "import-progress", values, { menu: "imports" })
                  : page(assets, workspace, "import", values, { menu: "imports" })
              )
            })
        },
        {
          method: "GET",
          path: "/imports/:import_id/problems.csv",
          handle: (workspace) =>
            withJob(workspace, (job) =>
              Effect.succeed(csvDownload(
                Stream.make(csvLines([
                  ["line", "field", "problem", "email"],
                  ...job.problems.map((p) => [String(p.line), p.field, reasonIn(workspace.t, p.reason), p.email ?? ""])
                ])),
                `import-${job.id}-problems.csv`
              )))
        }
      ]
    } satisfies Screen
  })
