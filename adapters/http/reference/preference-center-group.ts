import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  DataExport,
  ErasureRequested,
  PreferenceCenter,
  PreferenceTagPath,
  PreferenceTokenParams
} from "../shared/preference-schemas.js"
import { BODY_ERRORS } from "../shared/wire-errors.js"
import { pageAnswers } from "../shared/openapi-model.js"
import { problems } from "./problems.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

const tokenErrors = "401 `invalid_token` when the link's token is missing, broken, expired or revoked."

/** The subscriber's own page of preferences, reached with the token of their link: no key, no session. */
export const PreferenceCenterGroup = HttpApiGroup.make("preferenceCenter")
  .add(
    HttpApiEndpoint.get("view", "/preference-center")
      .setUrlParams(PreferenceTokenParams)
      .addSuccess(PreferenceCenter)
      .annotate(OpenApi.Transform, pageAnswers({
        200: "the preference page, to a browser (`Accept: text/html`)",
        401: "to a browser, the page that says the link no longer works"
      }))
      .annotateContext(OpenApi.annotations({
        summary: "See one's preferences",
        description: "The subscriber's address and status, and every public tag of the organization with whether they " +
          `carry it; private tags are never shown. ${tokenErrors}`
      }))
  )
  .add(
    HttpApiEndpoint.put("subscribe", "/preference-center/tags/:tag_id")
      .setPath(PreferenceTagPath)
      .setPayload(NoFields)
      .setUrlParams(PreferenceTokenParams)
      .addSuccess(PreferenceCenter)
      .pipe(problems.endpoint("not_found", "tag_limit_reached", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Subscribe to a tag",
        description: "Answers the preferences afterwards. A subscriber who subscribes becomes `active` again, whatever " +
          "their status was: it is their own action. 404 for a tag the organization does not have or keeps private; " +
          `409 \`tag_limit_reached\` when the subscriber carries 200 tags already. ${tokenErrors}`
      }))
  )
  .add(
    HttpApiEndpoint.del("unsubscribe", "/preference-center/tags/:tag_id")
      .setPath(PreferenceTagPath)
      .setPayload(NoFields)
      .setUrlParams(PreferenceTokenParams)
      .addSuccess(PreferenceCenter)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Unsubscribe from a tag",
        description: `Answers the preferences afterwards. 404 for a tag the organization does not have or keeps private. ${tokenErrors}`
      }))
  )
  .add(
    HttpApiEndpoint.get("dataExport", "/preference-center/data-export")
      .setUrlParams(PreferenceTokenParams)
      .addSuccess(DataExport)
      .annotateContext(OpenApi.annotations({
        summary: "Download one's data",
        description: "Everything stored about the subscriber as one JSON document, sent as a file " +
          `(\`Content-Disposition: attachment\`). ${tokenErrors}`
      }))
  )
  .add(
    HttpApiEndpoint.del("requestErasure", "/preference-center/account")
      .setPayload(NoFields)
      .setUrlParams(PreferenceTokenParams)
      .addSuccess(ErasureRequested, { status: 202 })
      .pipe(problems.endpoint(...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Delete one's data",
        description: "202: the subscriber, their tags and everything else stored about them are erased within a minute, " +
          "and `subscriber.deleted` goes to webhooks. The subscriber's links stop working at once; asking again " +
          `with the same link answers 202 again and changes nothing. ${tokenErrors}`
      }))
  )
  .pipe(problems.group("invalid_token", "validation_error", "rate_limited", "service_unavailable"))
  .annotate(OpenApi.Title, "Preference center")
  .annotate(
    OpenApi.Description,
    "A subscriber's own subscriptions, reached with the token of the link the organization sent them (`token` in the query)."
  )
