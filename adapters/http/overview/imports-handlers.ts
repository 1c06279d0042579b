import { HttpApiBuilder } from "@effect/platform"
import { ImportJobs } from "@roster/application"
import { Effect } from "effect"
import { HttpSettings } from "../shared/http-settings.js"
import { toImport, toImportSummary } from "../shared/import-schemas.js"
import { startUploadedImport } from "../shared/import-upload.js"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf, pageRequestOf } from "./pages.js"

export const ImportsHandlersLive = HttpApiBuilder.group(OverviewApi, "imports", (handlers) =>
  Effect.gen(function*() {
    const imports = yield* ImportJobs
    const { importMaxBytes } = yield* HttpSettings
    return handlers
      // The file streams from the request as the import keeps it: nothing decodes the body beforehand.
      .handleRaw("start", ({ request, urlParams }) =>
        Effect.map(startUploadedImport(imports, request, urlParams, importMaxBytes), (job) => dataOf(toImport(job))))
      .handle("list", ({ urlParams }) =>
        respond((caller) => imports.listPage(caller, pageRequestOf(urlParams)), (page) => listOf(page, toImportSummary)))
      .handle("get", ({ path }) => respond((caller) => imports.get(caller, path.id), (job) => dataOf(toImport(job))))
  }))
