import { HttpApiBuilder } from "@effect/platform"
import { Preferences, type PreferenceView } from "@roster/application"
import { Effect } from "effect"
import { asDownload, erasureRequested, toDataExport, toPreferenceCenter, withToken } from "../shared/preference-schemas.js"
import { preferencePage, wantsPage } from "../shared/preference-page.js"
import { answering } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf } from "./pages.js"

const preferencesData = (view: PreferenceView) => dataOf(toPreferenceCenter(view))

export const PreferencesHandlersLive = HttpApiBuilder.group(OverviewApi, "preferences", (handlers) =>
  Effect.gen(function*() {
    const preferences = yield* Preferences
    return handlers
      .handle("view", ({ path }) => answering(preferences.view(path.token)).pipe(Effect.map(preferencesData)))
      .handle("change", ({ path, payload }) => answering(preferences.change(path.token, payload)).pipe(Effect.map(preferencesData)))
  }))

export const PreferenceCenterHandlersLive = HttpApiBuilder.group(OverviewApi, "preferenceCenter", (handlers) =>
  Effect.gen(function*() {
    const preferences = yield* Preferences
    return handlers
      .handle("view", ({ request, urlParams }) =>
        wantsPage(request)
          ? preferencePage(preferences, urlParams, request)
          : withToken(urlParams, preferences.view).pipe(Effect.map(preferencesData)))
      .handle("subscribe", ({ path, urlParams }) =>
        withToken(urlParams, (token) => preferences.subscribe(token, path.tag_id)).pipe(Effect.map(preferencesData)))
      .handle("unsubscribe", ({ path, urlParams }) =>
        withToken(urlParams, (token) => preferences.unsubscribe(token, path.tag_id)).pipe(Effect.map(preferencesData)))
      .handle("dataExport", ({ urlParams }) =>
        withToken(urlParams, preferences.exportData).pipe(
          Effect.tap(asDownload),
          Effect.map((exported) => dataOf(toDataExport(exported)))
        ))
      .handle("requestErasure", ({ urlParams }) =>
        withToken(urlParams, preferences.requestErasure).pipe(Effect.as(dataOf(erasureRequested))))
  }))
