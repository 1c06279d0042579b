import { endpointDescription } from "./endpoint-description.js"
import { POST_ERRORS } from "./wire-errors.js"

/** The email endpoints as every wire form describes them. */
export const emailEndpoints = {
  send: endpointDescription({
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
  get: endpointDescription({
    summary: "Get an email",
    description: "The email as it was rendered, its status, the provider's id and its history. Scope `emails:read`.",
    errors: ["not_found"]
  })
}
