import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import {
  PREFERENCE_ROUTE_ERRORS,
  preferenceCenterEndpoints as preferenceCenter,
  preferenceViewDescription
} from "../shared/preference-center-endpoints.js"
import { DataExport, ErasureRequested, PreferenceCenter } from "../shared/preference-schemas.js"
import { oneOf, strictInput } from "../shared/wire-fields.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { Single, TagNames } from "./schemas.js"
import { envelopes } from "./errors.js"

/** The preference center in this form: `{data}` answers and `{error}` errors. */

export const PreferenceCenterData = Single(PreferenceCenter, "PreferenceCenterData")

const PreferencesPath = Schema.Struct({
  token: Schema.String.annotations({ description: "the preference token of the subscriber's link" })
})

const MailStatus = Schema.Literal("unsubscribed", "active")

export const ChangePreferencesRequest = Schema.Struct({
  add: Schema.optionalWith(TagNames("names of the organization's tags to subscribe to"), { exact: true }),
  remove: Schema.optionalWith(TagNames("names of tags to unsubscribe from; a name no tag has is passed over"), {
    exact: true
  }),
  status: Schema.optionalWith(
    oneOf(MailStatus, "`unsubscribed` stops all mail from the organization; `active` starts it again"),
    { exact: true }
  )
}).annotations({ identifier: "ChangePreferencesRequest", ...strictInput })

const tokenErrors = "401 `invalid_token` when the token is missing, broken, expired or revoked."

/** `/v1/preferences/:token`: the subscriber's preferences, the token in the path. */
export const PreferencesGroup = HttpApiGroup.make("preferences")
  .add(
    HttpApiEndpoint.get("view", "/preferences/:token")
      .setPath(PreferencesPath)
      .addSuccess(PreferenceCenterData)
      .pipe(envelopes.describe({ ...preferenceCenter.view, description: `${preferenceViewDescription} ${tokenErrors}` }))
  )
  .add(
    HttpApiEndpoint.patch("change", "/preferences/:token")
      .setPath(PreferencesPath)
      .setPayload(ChangePreferencesRequest)
      .addSuccess(PreferenceCenterData)
      .pipe(envelopes.describe({
        ...preferenceCenter.change,
        description: "Subscribes to the tags named in `add` (each must be a public tag: a private one is refused as a name " +
          "no tag has), unsubscribes from those in `remove`, and " +
          "with `status` stops or starts all mail. Subscribing makes the subscriber `active` again, whatever their status " +
          "was, unless `status` says otherwise. Answers the preferences afterwards. 409 `tag_limit_reached` when the " +
          `subscriber would carry more than 200 tags. ${tokenErrors}`
      }))
  )
  .pipe(envelopes.group(...PREFERENCE_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Preferences")
  .annotate(OpenApi.Description, "A subscriber's own subscriptions, reached with the token of the link the organization sent them.")

/** `/preference-center`: the same, the token in the query, as in every form. */
export const PreferenceCenterGroup = HttpApiGroup.make("preferenceCenter")
  .add(envelopes.declare({ ...preferenceCenter.view, description: tokenErrors }).addSuccess(PreferenceCenterData))
  .add(
    envelopes.declare({
      ...preferenceCenter.subscribe,
      description: `Makes the subscriber \`active\` again, whatever their status was. 404 for a tag the organization does not have. ${tokenErrors}`
    }).addSuccess(PreferenceCenterData)
  )
  .add(
    envelopes.declare({
      ...preferenceCenter.unsubscribe,
      description: `404 for a tag the organization does not have. ${tokenErrors}`
    }).addSuccess(PreferenceCenterData)
  )
  .add(
    envelopes.declare({
      ...preferenceCenter.dataExport,
      description: "Everything stored about the subscriber as one JSON document in `data`, sent as a file " +
        `(\`Content-Disposition: attachment\`). ${tokenErrors}`
    }).addSuccess(Single(DataExport, "DataExportData"))
  )
  .add(
    envelopes.declare({
      ...preferenceCenter.requestErasure,
      description: "202: the subscriber and everything stored about them are erased within a minute. The subscriber's " +
        `links stop working at once; asking again answers 202 again and changes nothing. ${tokenErrors}`
    }).addSuccess(Single(ErasureRequested, "ErasureRequestedData"), { status: 202 })
  )
  .pipe(envelopes.group(...PREFERENCE_ROUTE_ERRORS))
  .annotate(OpenApi.Title, "Preference center")
  .annotate(OpenApi.Description, "The same preferences with the token in the query, at the address the links point to.")
