import { HttpApiEndpoint } from "@effect/platform"
import { COUNT_CAP } from "@roster/application"
import { SubscriberId } from "@roster/domain"
import { withoutBody } from "./action-body.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { IdInput } from "./wire-fields.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"

/** What `double_opt_in` does, in every form's words. */
export const doubleOptIn = "With `double_opt_in: true` nothing is created yet: the address is sent a confirmation email " +
  "(from the organization's sender) and becomes a subscriber, with the tags, metadata and consent given, when it follows " +
  "the link within seven days; the answer is 202 `confirmation_sent` whether or not the address is known. An active " +
  "subscriber gets no second record but an email saying they are subscribed already (at most one in ten minutes); a " +
  "bounced or complained address is sent nothing; a `svc_test_` key's confirmation email never leaves."

/**
 * The subscriber endpoints as every wire form describes them (the overview form in fewer words),
 * the subscriber's id named `key` in their paths.
 */
export const subscriberEndpoints = <const K extends string>(key: K) => {
  const subscriber = idParam(key, IdInput(SubscriberId, "the subscriber's id"))
  const one = `/subscribers${subscriber.segment}` as const
  return {
    /** The address and path of one subscriber, for the form's own routes. */
    address: one,
    path: subscriber.path,
    create: endpointDescription({
      summary: "Create a subscriber",
      description: "Creates an `active` subscriber, optionally with tags (ids of the organization's tags) and metadata; " +
        "a `consent` given is kept as the subscriber's consent, naming the API key. " +
        "Scope `subscribers:write`. 409 `conflict` when the email exists in the organization (regardless of letter case); " +
        "402 `limit_exceeded` when the plan's subscriber limit is reached; 409 `tag_limit_reached` for more than 200 tags. " +
        `${doubleOptIn}`,
      errors: ["limit_exceeded", "conflict", "tag_limit_reached", ...POST_ERRORS]
    }),
    list: endpointDescription({
      summary: "List subscribers",
      description: "One page of the organization's subscribers, optionally filtered by status and tag and searched by " +
        "the start of the email (`search`, letter case ignored). Follow `next_cursor` (or the `Link` header) for the " +
        `next page with the same \`sort\` and \`order\`. With \`count=capped\`, \`total\` stops at ${COUNT_CAP} when rows must be ` +
        "counted (`total_capped` is then true). Scope `subscribers:read`.",
      errors: []
    }),
    getByEmail: endpointDescription({
      summary: "Find a subscriber by email",
      description: "The subscriber with this email address (URL-encoded in the path), compared regardless of letter case. " +
        "404 when there is none; 400 when the address is not valid. Scope `subscribers:read`.",
      errors: ["not_found"]
    }),
    get: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("get", one).setPath(subscriber.path),
      summary: "Get a subscriber",
      description: "Scope `subscribers:read`.",
      errors: ["not_found"]
    }),
    update: endpointDescription({
      summary: "Update a subscriber",
      description: "Changes the status and/or replaces the metadata; fields left out stay as they are. A status move the " +
        "API may not make is 409 `invalid_status_transition`. Scope `subscribers:write`.",
      errors: ["not_found", "invalid_status_transition", ...BODY_ERRORS]
    }),
    delete: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("delete", one)
        .setPath(subscriber.path)
        .pipe(withoutBody),
      summary: "Delete a subscriber",
      description: "Deletes the subscriber permanently, with its tag associations. Scope `subscribers:delete`.",
      errors: ["not_found", ...BODY_ERRORS]
    }),
    attachTags: endpointDescription({
      summary: "Attach tags to a subscriber",
      description: "Attaches the tags (ids of the organization's tags) and answers the updated subscriber. Tags already " +
        "attached stay as they are; an id of no tag of the organization is 400. 409 `tag_limit_reached` when the " +
        "subscriber would carry more than 200 tags (nothing is attached). Scope `subscribers:write`.",
      errors: ["not_found", "tag_limit_reached", ...POST_ERRORS]
    }),
    detachTag: endpointDescription({
      summary: "Detach a tag from a subscriber",
      description: "Answers 204 whether or not the subscriber carried the tag; 404 when the subscriber or the tag does not " +
        "exist. Scope `subscribers:write`.",
      errors: ["not_found", ...BODY_ERRORS]
    }),
    consents: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("consents", `${one}/consents`).setPath(subscriber.path),
      summary: "List a subscriber's consents",
      description: "What the subscriber agreed to, newest first, in one page: when, through which sign-up form or API " +
        "key, the text, the client's network (/24 or /48) and user agent, and when it was confirmed. Consents are kept " +
        "after the subscriber unsubscribes and erased with them. Scope `subscribers:read`; another organization's " +
        "subscriber is 404.",
      errors: ["not_found"]
    }),
    listTags: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("listTags", `${one}/tags`).setPath(subscriber.path),
      summary: "List a subscriber's tags",
      description: "Every tag the subscriber carries with the time it was attached, oldest first, in one page. Scope `subscribers:read`.",
      errors: ["not_found"]
    }),
    issuePreferenceLink: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("issuePreferenceLink", `${one}/token`)
        .setPath(subscriber.path)
        .pipe(withoutBody),
      summary: "Make a preference link",
      description: "A token, good for 30 days, with which the subscriber sees and changes their own subscriptions at " +
        "`url` (the preference center), exports their data or asks for its erasure, without an account. Scope " +
        "`subscribers:write`.",
      errors: ["not_found", ...POST_ERRORS]
    }),
    revokePreferenceLinks: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("revokePreferenceLinks", `${one}/token`)
        .setPath(subscriber.path)
        .pipe(withoutBody),
      summary: "Revoke a subscriber's preference links",
      description: "Every preference token issued for the subscriber so far stops working at once (401 " +
        "`invalid_token`); tokens made afterwards work. Scope `subscribers:write`.",
      errors: ["not_found", ...BODY_ERRORS]
    }),
    changeTags: endpointDescription({
      summary: "Change a subscriber's tags",
      description: "Attaches the tags named in `add` and detaches those named in `remove`, and answers the tags the " +
        "subscriber carries afterwards. Scope `subscribers:write`.",
      errors: ["not_found", "conflict", "tag_limit_reached", ...BODY_ERRORS]
    })
  }
}
