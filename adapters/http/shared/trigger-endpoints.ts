import { HttpApiEndpoint } from "@effect/platform"
import { TriggerId } from "@roster/domain"
import { withoutBody } from "./action-body.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { CreateTriggerRequest } from "./trigger-schemas.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"
import { IdInput } from "./wire-fields.js"

const read = "Scope `triggers:read`."
const write = "Scope `triggers:write`."

/**
 * The trigger endpoints as every wire form describes them (the overview form in fewer words), the
 * trigger's id named `key` in their paths.
 */
export const triggerEndpoints = <const K extends string>(key: K) => {
  const trigger = idParam(key, IdInput(TriggerId, "the trigger's id"))
  const one = `/email-triggers${trigger.segment}` as const
  return {
    /** The address and path of one trigger, for the form's own update. */
    address: one,
    path: trigger.path,
    create: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("create", "/email-triggers").setPayload(CreateTriggerRequest),
      summary: "Create an email trigger",
      description: `404 for a template or tag the organization does not have. ${write}`,
      errors: ["not_found", ...POST_ERRORS]
    }),
    list: endpointDescription({ summary: "List email triggers", description: `Oldest first. ${read}`, errors: [] }),
    get: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("get", one).setPath(trigger.path),
      summary: "Get an email trigger",
      description: `With its firings. ${read}`,
      errors: ["not_found"]
    }),
    update: endpointDescription({
      summary: "Update an email trigger",
      description: `Fields left out stay; \`status: paused\` stops it. ${write}`,
      errors: ["not_found", ...BODY_ERRORS]
    }),
    delete: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("delete", one)
        .setPath(trigger.path)
        .pipe(withoutBody),
      summary: "Delete an email trigger",
      description: `Its waiting emails are not sent; emails it sent stay. ${write}`,
      errors: ["not_found", ...BODY_ERRORS]
    })
  }
}

export const triggerScopes = { read, write }
