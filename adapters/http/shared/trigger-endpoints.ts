import { endpointDescription } from "./endpoint-description.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"

const read = "Scope `triggers:read`."
const write = "Scope `triggers:write`."

/** The trigger endpoints as every wire form describes them. */
export const triggerEndpoints = {
  create: endpointDescription({
    summary: "Create an email trigger",
    description: `404 for a template or tag the organization does not have. ${write}`,
    errors: ["not_found", ...POST_ERRORS]
  }),
  list: endpointDescription({
    summary: "List email triggers",
    description: `Oldest first. ${read}`,
    errors: []
  }),
  get: endpointDescription({
    summary: "Get an email trigger",
    description: `With its firings. ${read}`,
    errors: ["not_found"]
  }),
  update: endpointDescription({
    summary: "Update an email trigger",
    description: `Fields left out stay; \`status: paused\` stops it. ${write}`,
    errors: ["not_found", ...BODY_ERRORS]
  }),
  delete: endpointDescription({
    summary: "Delete an email trigger",
    description: `Its waiting emails are not sent; emails it sent stay. ${write}`,
    errors: ["not_found", ...BODY_ERRORS]
  })
}

export const triggerScopes = { read, write }
