import { HttpApiBuilder } from "@effect/platform"
import { ImportJobs } from "@roster/application"
import { Effect } from "effect"
import { HttpSettings } from "../shared/http-settings.js"
import { toImport, toImportSummary } from "../shared/import-schemas.js"
import { startUploadedImport } from "../shared/import-upload.js"
import { respond } from "../shared/respond.js"
import { ReferenceApi } from "./api.js"
import { paged, pageOf } from "./pagination.js"

export const ImportsHandlersLive = HttpApiBuilder.group(ReferenceApi, "imports", (handlers) =>
  Effect.gen(function*() {
    const imports = yield* ImportJobs
    const { importMaxBytes } = yield* HttpSettings
    return handlers
      // The file streams from the request as the import keeps it: nothing decodes the body beforehand.
      .handleRaw("start", ({ request, urlParams }) =>
        Effect.map(startUploadedImport(imports, request, urlParams, importMaxBytes), toImport))
      .handle("list", ({ urlParams }) => respond((caller) => paged(imports.list(caller, urlParams)), pageOf(toImportSummary)))
      .handle("get", ({ path }) => respond((caller) => imports.get(caller, path.import_id), toImport))
  }))
