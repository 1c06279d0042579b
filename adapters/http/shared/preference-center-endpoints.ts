import { HttpApiEndpoint, OpenApi } from "@effect/platform"
import { withoutBody } from "./action-body.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { pageAnswers } from "./openapi-model.js"
import { PreferenceTagPath, PreferenceTokenParams } from "./preference-schemas.js"
import { BODY_ERRORS } from "./wire-errors.js"

/** What every route reached with a preference token may answer: no key, no session. */
export const PREFERENCE_ROUTE_ERRORS = ["invalid_token", "validation_error", "rate_limited", "service_unavailable"] as const

const tokenErrors = "401 `invalid_token` when the link's token is missing, broken, expired or revoked."

/** The subscriber's own preferences, as they see them. */
const viewDescription = "The subscriber's address and status, and every public tag of the organization with whether " +
  "they carry it; private tags are never shown."

/**
 * The preference center as every wire form describes it (the overview form in fewer words), and
 * the subscriber's own view of their preferences, which the overview form serves at a path of
 * its own too.
 */
export const preferenceCenterEndpoints = {
  view: sharedEndpoint({
    endpoint: HttpApiEndpoint.get("view", "/preference-center")
      .setUrlParams(PreferenceTokenParams)
      .annotate(OpenApi.Transform, pageAnswers({
        200: "the preference page, to a browser (`Accept: text/html`)",
        401: "to a browser, the page that says the link no longer works"
      })),
    summary: "See one's preferences",
    description: `${viewDescription} ${tokenErrors}`,
    errors: []
  }),
  subscribe: sharedEndpoint({
    endpoint: HttpApiEndpoint.put("subscribe", "/preference-center/tags/:tag_id")
      .setPath(PreferenceTagPath)
      .setUrlParams(PreferenceTokenParams)
      .pipe(withoutBody),
    summary: "Subscribe to a tag",
    description: "Answers the preferences afterwards. A subscriber who subscribes becomes `active` again, whatever " +
      "their status was: it is their own action. 404 for a tag the organization does not have or keeps private; " +
      `409 \`tag_limit_reached\` when the subscriber carries 200 tags already. ${tokenErrors}`,
    errors: ["not_found", "tag_limit_reached", ...BODY_ERRORS]
  }),
  unsubscribe: sharedEndpoint({
    endpoint: HttpApiEndpoint.del("unsubscribe", "/preference-center/tags/:tag_id")
      .setPath(PreferenceTagPath)
      .setUrlParams(PreferenceTokenParams)
      .pipe(withoutBody),
    summary: "Unsubscribe from a tag",
    description: `Answers the preferences afterwards. 404 for a tag the organization does not have or keeps private. ${tokenErrors}`,
    errors: ["not_found", ...BODY_ERRORS]
  }),
  dataExport: sharedEndpoint({
    endpoint: HttpApiEndpoint.get("dataExport", "/preference-center/data-export").setUrlParams(PreferenceTokenParams),
    summary: "Download one's data",
    description: "Everything stored about the subscriber as one JSON document, sent as a file " +
      `(\`Content-Disposition: attachment\`). ${tokenErrors}`,
    errors: []
  }),
  requestErasure: sharedEndpoint({
    endpoint: HttpApiEndpoint.del("requestErasure", "/preference-center/account")
      .setUrlParams(PreferenceTokenParams)
      .pipe(withoutBody),
    summary: "Delete one's data",
    description: "202: the subscriber, their tags and everything else stored about them are erased within a minute, " +
      "and `subscriber.deleted` goes to webhooks. The subscriber's links stop working at once; asking again " +
      `with the same link answers 202 again and changes nothing. ${tokenErrors}`,
    errors: BODY_ERRORS
  }),
  /** The overview form's `PATCH /v1/preferences/:token`. */
  change: endpointDescription({
    summary: "Change one's preferences",
    errors: ["not_found", "tag_limit_reached", ...BODY_ERRORS]
  })
}

export const preferenceViewDescription = viewDescription
