import { HttpApiEndpoint } from "@effect/platform"
import { FormId } from "@roster/domain"
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
