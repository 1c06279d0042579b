import { HttpApiEndpoint } from "@effect/platform"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { CreateTemplateRequest } from "./template-schemas.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"

const read = "Scope `templates:read`."
const write = "Scope `templates:write`."

/** The template endpoints as every wire form describes them (the overview form in fewer words). */
export const templateEndpoints = {
  create: sharedEndpoint({
    endpoint: HttpApiEndpoint.post("create", "/templates").setPayload(CreateTemplateRequest),
    summary: "Create a template",
    description: `Checks the template and keeps it. ${write}`,
    errors: POST_ERRORS
  }),
  list: endpointDescription({ summary: "List templates", errors: [] }),
  get: endpointDescription({ summary: "Get a template", description: read, errors: ["not_found"] }),
  update: endpointDescription({
    summary: "Update a template",
    description: `Fields left out stay; \`null\` removes a body as long as one remains. The result is checked as a new template is. ${write}`,
    errors: ["not_found", ...BODY_ERRORS]
  }),
  delete: endpointDescription({
    summary: "Delete a template",
    description: `Deletes the template; emails sent with it keep what they were. ${write}`,
    errors: ["not_found", ...BODY_ERRORS]
  }),
  preview: endpointDescription({
    summary: "Preview a template",
    description: "Renders the template as a send would, for a subscriber of the organization (a sample one when " +
      "`subscriber_id` is left out) with `data`, and lists the variables that rendered empty. Its " +
      `\`unsubscribe_url\` and \`preferences_url\` carry the token \`preview\`, which opens nothing. ${read}`,
    errors: ["not_found", ...POST_ERRORS]
  })
}

export const templateScopes = { read, write }
