import { HttpApiGroup, OpenApi } from "@effect/platform"
import { DataExport, ErasureRequested, PreferenceCenter } from "../shared/preference-schemas.js"
import {
  PREFERENCE_ROUTE_ERRORS,
  preferenceCenterEndpoints as preferenceCenter
} from "../shared/preference-center-endpoints.js"
import { problems } from "./problems.js"

/** The subscriber's own page of preferences, reached with the token of their link: no key, no session. */
export const PreferenceCenterGroup = HttpApiGroup.make("preferenceCenter")
  .add(problems.declare(preferenceCenter.view).addSuccess(PreferenceCenter))
  .add(problems.declare(preferenceCenter.subscribe).addSuccess(PreferenceCenter))
  .add(problems.declare(preferenceCenter.unsubscribe).addSuccess(PreferenceCenter))
  .add(problems.declare(preferenceCenter.dataExport).addSuccess(DataExport))
  .add(problems.declare(preferenceCenter.requestErasure).addSuccess(ErasureRequested, { status: 202 }))
  .pipe(problems.group(...PREFERENCE_ROUTE_ERRORS))
  .annotate(OpenApi.Title, "Preference center")
  .annotate(
    OpenApi.Description,
    "A subscriber's own subscriptions, reached with the token of the link the organization sent them (`token` in the query)."
  )
