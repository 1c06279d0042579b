import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import {
  ImportPathId,
  ImportUploadBody,
  ImportUploadParams,
  importsDescription,
  SubscriberImport,
  SubscriberImportSummary,
  uploadDescription
} from "../shared/import-schemas.js"
import { FileBody } from "../shared/route-table.js"
import { withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, PageListParams, Single } from "./schemas.js"

export const ImportPath = Schema.Struct({ id: ImportPathId })

const SubscriberImportData = Single(SubscriberImport, "SubscriberImportData")

export const ImportsGroup = HttpApiGroup.make("imports")
  .add(
    HttpApiEndpoint.post("start", "/subscribers/imports")
      .setUrlParams(ImportUploadParams)
      .setPayload(ImportUploadBody)
      .addSuccess(withStatus(SubscriberImportData, 202, "QueuedSubscriberImportData"))
      .annotate(FileBody, true)
      .annotate(OpenApi.Transform, (operation) => ({
        ...operation,
        responses: {
          ...operation.responses,
          202: {
            ...operation.responses[202],
            headers: { Location: { description: "the import's address, to follow it", schema: { type: "string" } } }
          }
        }
      }))
      .annotateContext(OpenApi.annotations({ summary: "Import subscribers from a CSV file", description: uploadDescription }))
  )
  .add(
    HttpApiEndpoint.get("list", "/subscribers/imports")
      .setUrlParams(PageListParams)
      .addSuccess(NumberedList(SubscriberImportSummary, "SubscriberImportList"))
      .annotateContext(OpenApi.annotations({
        summary: "List imports",
        description: "One numbered page of the organization's imports, newest first, without their problems (each " +
          "import lists its own). Scope `subscribers:read`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/subscribers/imports/:id")
      .setPath(ImportPath)
      .addSuccess(SubscriberImportData)
      .annotateContext(OpenApi.annotations({
        summary: "Follow an import",
        description: "Where the import stands: its status, what it did so far, its first problem rows with their line " +
          "and column, and why it failed if it did. Scope `subscribers:read`."
      }))
  )
  .middleware(OverviewAuthentication)
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Subscriber imports")
  .annotate(OpenApi.Description, importsDescription)
