import { HttpApiEndpoint } from "@effect/platform"
import { FormId } from "@roster/domain"
import { EmbedParams } from "./form-schemas.js"
import { withoutBody } from "./action-body.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"
import { IdInput } from "./wire-fields.js"

const read = "Scope `forms:read`."
const write = "Scope `forms:write`."

/**
 * The form endpoints as every wire form describes them, the form's id named `key` in their paths.
 * Create and update take each form's own tags (ids in the reference form, names in the overview).
 */
export const formEndpoints = <const K extends string>(key: K) => {
  const form = idParam(key, IdInput(FormId, "the form's id"))
  const one = `/forms${form.segment}` as const
  return {
    address: one,
    path: form.path,
    create: endpointDescription({
      summary: "Create a sign-up form",
      description: `Keeps the form; its hosted page and snippet work at once. ${write}`,
      errors: POST_ERRORS
    }),
    list: endpointDescription({ summary: "List sign-up forms", errors: [] }),
    get: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("get", one).setPath(form.path),
      summary: "Get a sign-up form",
      description: read,
      errors: ["not_found"]
    }),
    update: endpointDescription({
      summary: "Update a sign-up form",
      description: `Fields left out stay; \`null\` removes an optional one. ${write}`,
      errors: ["not_found", ...BODY_ERRORS]
    }),
    embed: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("embed", `${one}/embed`).setPath(form.path).setUrlParams(EmbedParams),
      summary: "Get the HTML form a site embeds",
      description: "The form as HTML to paste into a page of another site: a plain `<form>` that posts to the form's " +
        "address at the service (`/f/{form_id}` under the service's public base URL), with an email field, the trap " +
        "field people never see, the form's consent text and a button; every value is escaped. It needs no script. " +
        "The site's origin must be one of the form's `allowed_origins`: a post from another site is refused with a page " +
        "that says so. The reader is answered with the service's pages (or sent to the form's `success_url`), in " +
        `\`locale\` (English unless told). Answered as JSON: \`html\`, and \`page_url\`, the form's hosted page. ${read}`,
      errors: ["not_found"]
    }),
    delete: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("delete", one).setPath(form.path).pipe(withoutBody),
      summary: "Delete a sign-up form",
      description: "Deletes the form; subscribers who joined through it stay, and sign-ups waiting for confirmation " +
        `through it can no longer be confirmed. ${write}`,
      errors: ["not_found", ...BODY_ERRORS]
    })
  }
}

export const formScopes = { read, write }
