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
import { API_ROUTE_ERRORS, BODY_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, documentPageHeaders, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"

export const ImportPath = Schema.Struct({ import_id: ImportPathId })
export const ImportListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)

export const ImportsGroup = HttpApiGroup.make("imports")
  .add(
    HttpApiEndpoint.post("start", "/subscribers/imports")
      .setUrlParams(ImportUploadParams)
      .setPayload(ImportUploadBody)
      .addSuccess(withStatus(SubscriberImport, 202, "QueuedSubscriberImport"))
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
      .pipe(problems.endpoint(...BODY_ERRORS))
      .annotateContext(OpenApi.annotations({ summary: "Import subscribers from a CSV file", description: uploadDescription }))
  )
  .add(
    HttpApiEndpoint.get("list", "/subscribers/imports")
      .setUrlParams(ImportListParams)
      .addSuccess(Page(SubscriberImportSummary, "SubscriberImportList"))
      .annotate(OpenApi.Transform, documentPageHeaders)
      .annotateContext(OpenApi.annotations({
        summary: "List imports",
        description: "One page of the organization's imports, newest first, without their problems (each import lists " +
          "its own). Scope `subscribers:read`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/subscribers/imports/:import_id")
      .setPath(ImportPath)
      .addSuccess(SubscriberImport)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "Follow an import",
        description: "Where the import stands: its status, what it did so far, its first problem rows with their line " +
          "and column, and why it failed if it did. Scope `subscribers:read`."
      }))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Subscriber imports")
  .annotate(OpenApi.Description, importsDescription)
