import { HttpApiEndpoint } from "@effect/platform"
import { TemplateId } from "@roster/domain"
import { withoutBody } from "./action-body.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { CreateTemplateRequest, PreviewTemplateRequest } from "./template-schemas.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"
import { IdInput } from "./wire-fields.js"

const read = "Scope `templates:read`."
const write = "Scope `templates:write`."

/**
 * The template endpoints as every wire form describes them (the overview form in fewer words),
 * the template's id named `key` in their paths.
 */
export const templateEndpoints = <const K extends string>(key: K) => {
  const template = idParam(key, IdInput(TemplateId, "the template's id"))
  const one = `/templates${template.segment}` as const
  return {
    /** The address and path of one template, for the form's own update. */
    address: one,
    path: template.path,
    create: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("create", "/templates").setPayload(CreateTemplateRequest),
      summary: "Create a template",
      description: `Checks the template and keeps it. ${write}`,
      errors: POST_ERRORS
    }),
    list: endpointDescription({ summary: "List templates", errors: [] }),
    get: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("get", one).setPath(template.path),
      summary: "Get a template",
      description: read,
      errors: ["not_found"]
    }),
    update: endpointDescription({
      summary: "Update a template",
      description: "Fields left out stay; `null` removes a body as long as one remains. The result is checked as a new " +
        `template is. ${write}`,
      errors: ["not_found", ...BODY_ERRORS]
    }),
    delete: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("delete", one)
        .setPath(template.path)
        .pipe(withoutBody),
      summary: "Delete a template",
      description: `Deletes the template; emails sent with it keep what they were. ${write}`,
      errors: ["not_found", ...BODY_ERRORS]
    }),
    preview: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("preview", `${one}/preview`)
        .setPath(template.path)
        .setPayload(PreviewTemplateRequest),
      summary: "Preview a template",
      description: "Renders the template as a send would, for a subscriber of the organization (a sample one when " +
        "`subscriber_id` is left out) with `data`, and lists the variables that rendered empty. Its " +
        `\`unsubscribe_url\` and \`preferences_url\` carry the token \`preview\`, which opens nothing. ${read}`,
      errors: ["not_found", ...POST_ERRORS]
    })
  }
}

export const templateScopes = { read, write }
