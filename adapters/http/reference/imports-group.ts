import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { importEndpoints } from "../shared/import-endpoints.js"
import { importsDescription, SubscriberImport, SubscriberImportSummary } from "../shared/import-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, documentPageHeaders, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"

export const ImportListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)

const imports = importEndpoints("import_id")

export const ImportsGroup = HttpApiGroup.make("imports")
  .add(problems.declare(imports.start).addSuccess(withStatus(SubscriberImport, 202, "QueuedSubscriberImport")))
  .add(
    HttpApiEndpoint.get("list", "/subscribers/imports")
      .setUrlParams(ImportListParams)
      .addSuccess(Page(SubscriberImportSummary, "SubscriberImportList"))
      .annotate(OpenApi.Transform, documentPageHeaders)
      .pipe(problems.describe({
        ...imports.list,
        description: "One page of the organization's imports, newest first, without their problems (each import lists " +
          "its own). Scope `subscribers:read`."
      }))
  )
  .add(problems.declare(imports.get).addSuccess(SubscriberImport))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Subscriber imports")
  .annotate(OpenApi.Description, importsDescription)
