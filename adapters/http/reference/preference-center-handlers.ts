import { HttpApiBuilder } from "@effect/platform"
import { Preferences } from "@roster/application"
import { Effect } from "effect"
import { asDownload, erasureRequested, toDataExport, toPreferenceCenter, withToken } from "../shared/preference-schemas.js"
import { preferencePage, wantsPage } from "../shared/preference-page.js"
import { ReferenceApi } from "./api.js"

export const PreferenceCenterHandlersLive = HttpApiBuilder.group(ReferenceApi, "preferenceCenter", (handlers) =>
  Effect.gen(function*() {
    const preferences = yield* Preferences
    return handlers
      .handle("view", ({ request, urlParams }) =>
        wantsPage(request)
          ? preferencePage(preferences, urlParams, request)
          : withToken(urlParams, preferences.view).pipe(Effect.map(toPreferenceCenter)))
      .handle("subscribe", ({ path, urlParams }) =>
        withToken(urlParams, (token) => preferences.subscribe(token, path.tag_id)).pipe(Effect.map(toPreferenceCenter)))
      .handle("unsubscribe", ({ path, urlParams }) =>
        withToken(urlParams, (token) => preferences.unsubscribe(token, path.tag_id)).pipe(Effect.map(toPreferenceCenter)))
      .handle("dataExport", ({ urlParams }) =>
        withToken(urlParams, preferences.exportData).pipe(Effect.tap(asDownload), Effect.map(toDataExport)))
      .handle("requestErasure", ({ urlParams }) =>
        withToken(urlParams, preferences.requestErasure).pipe(Effect.as(erasureRequested)))
  }))
