import { endpointDescription } from "./endpoint-description.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"

/** The note endpoints as every wire form describes them. */
export const noteEndpoints = {
  create: endpointDescription({
    summary: "Add a note",
    description: "Keeps a note on the subscriber, written by the caller; webhooks hear `subscriber.note_added`. " +
      "Scope `subscribers:write`.",
    errors: ["not_found", ...POST_ERRORS]
  }),
  list: endpointDescription({
    summary: "List a subscriber's notes",
    description: "One page of the subscriber's notes, newest first. Scope `subscribers:read`.",
    errors: ["not_found"]
  }),
  get: endpointDescription({
    summary: "Get a note",
    description: "Scope `subscribers:read`.",
    errors: ["not_found"]
  }),
  update: endpointDescription({
    summary: "Change a note",
    description: "Scope `subscribers:write`.",
    errors: ["not_found", ...BODY_ERRORS]
  }),
  delete: endpointDescription({
    summary: "Delete a note",
    description: "Scope `subscribers:write`.",
    errors: ["not_found", ...BODY_ERRORS]
  })
}
