import { HttpApiEndpoint, OpenApi } from "@effect/platform"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { ImportPathId, ImportUploadBody, ImportUploadParams, uploadDescription } from "./import-schemas.js"
import { FileBody } from "./route-table.js"
import { BODY_ERRORS } from "./wire-errors.js"

/** The import endpoints as every wire form describes them, the import's id named `key` in their paths. */
export const importEndpoints = <const K extends string>(key: K) => {
  const subscriberImport = idParam(key, ImportPathId)
  return {
    start: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("start", "/subscribers/imports")
        .setUrlParams(ImportUploadParams)
        .setPayload(ImportUploadBody)
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
        })),
      summary: "Import subscribers from a CSV file",
      description: uploadDescription,
      errors: BODY_ERRORS
    }),
    list: endpointDescription({ summary: "List imports", errors: [] }),
    get: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("get", `/subscribers/imports${subscriberImport.segment}`).setPath(subscriberImport.path),
      summary: "Follow an import",
      description: "Where the import stands: its status, what it did so far, its first problem rows with their line " +
        "and column, and why it failed if it did. Scope `subscribers:read`.",
      errors: ["not_found"]
    })
  }
}
