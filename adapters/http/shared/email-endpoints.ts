import { HttpApiEndpoint } from "@effect/platform"
import { MessageId } from "@roster/domain"
import { SendEmailRequest } from "./email-schemas.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { POST_ERRORS } from "./wire-errors.js"
import { IdInput } from "./wire-fields.js"

/**
 * The email endpoints as every wire form describes them (the overview form in fewer words), the
 * email's id named `key` in their paths.
 */
export const emailEndpoints = <const K extends string>(key: K) => {
  const email = idParam(key, IdInput(MessageId, "the email's id"))
  return {
    send: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("send", "/emails/send").setPayload(SendEmailRequest),
      summary: "Send an email",
      description: "Renders the email for the subscriber and queues it; answers 202 with the email's record. 400 " +
        "`validation_error` when `to` is no subscriber of the organization, when both or neither of `to` and " +
        "`subscriber_id` are given, or when the template cannot be rendered; 404 `not_found` for a template the " +
        "organization does not have; 403 for another organization's subscriber. Scope `emails:send`.",
      errors: ["not_found", "limit_exceeded", ...POST_ERRORS]
    }),
    list: endpointDescription({
      summary: "List emails",
      description: "One page of the organization's emails, newest first, each with its history; optionally of one " +
        "subscriber or status. Follow `next_cursor` for the next page. Scope `emails:read`.",
      errors: []
    }),
    get: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("get", `/emails${email.segment}`).setPath(email.path),
      summary: "Get an email",
      description: "The email as it was rendered, its status, the provider's id and its history. Scope `emails:read`.",
      errors: ["not_found"]
    })
  }
}
