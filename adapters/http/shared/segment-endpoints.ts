import { HttpApiEndpoint } from "@effect/platform"
import { SegmentId } from "@roster/domain"
import { withoutBody } from "./action-body.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { CreateSegmentRequest, PreviewFilterRequest } from "./segment-schemas.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"
import { IdInput } from "./wire-fields.js"

const read = "Scope `segments:read`."
const write = "Scope `segments:write`."
const preview = "Scopes `segments:read` and `subscribers:read`."

/**
 * The segment endpoints as every wire form describes them, the segment's id named `key` in their
 * paths. Each form adds its own list, update and previews (their pages differ).
 */
export const segmentEndpoints = <const K extends string>(key: K) => {
  const segment = idParam(key, IdInput(SegmentId, "the segment's id"))
  const one = `/segments${segment.segment}` as const
  return {
    address: one,
    path: segment.path,
    create: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("create", "/segments").setPayload(CreateSegmentRequest),
      summary: "Create a segment",
      description: `Checks the filter (each tag it names must be one of the organization's) and keeps it. ${write}`,
      errors: POST_ERRORS
    }),
    list: endpointDescription({ summary: "List segments", errors: [] }),
    get: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("get", one).setPath(segment.path),
      summary: "Get a segment",
      description: `Another organization's segment is not found either. ${read}`,
      errors: ["not_found"]
    }),
    update: endpointDescription({
      summary: "Update a segment",
      description: `Fields left out stay; \`null\` removes the description. ${write}`,
      errors: ["not_found", ...BODY_ERRORS]
    }),
    delete: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("delete", one).setPath(segment.path).pipe(withoutBody),
      summary: "Delete a segment",
      description: "A segment that is the audience of a campaign not started yet (a draft, a scheduled one, or a failed " +
        "one that never started) or the condition of a trigger is kept: 409 `conflict` naming them. A sent campaign's " +
        `audience was fixed when it started: its segment may go. ${write}`,
      errors: ["not_found", "conflict", ...BODY_ERRORS]
    }),
    preview: {
      endpoint: HttpApiEndpoint.post("preview", `${one}/preview`).setPath(segment.path).pipe(withoutBody),
      description: endpointDescription({
        summary: "Preview a segment",
        description: `How many subscribers match the segment now, and the first page of them by id, each with their tags. ${preview}`,
        errors: ["not_found", ...POST_ERRORS]
      })
    },
    previewFilter: {
      endpoint: HttpApiEndpoint.post("previewFilter", "/segments/preview").setPayload(PreviewFilterRequest),
      description: endpointDescription({
        summary: "Preview a filter",
        description: `How many subscribers a filter not saved matches now, and the first page of them by id. ${preview}`,
        errors: POST_ERRORS
      })
    }
  }
}

export const segmentScopes = { read, write }
