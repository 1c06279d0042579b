import { HttpApiBuilder } from "@effect/platform"
import { SenderSettings } from "@roster/application"
import { Effect } from "effect"
import { toEmailSettings, toSenderChanges } from "../shared/email-settings-schemas.js"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf } from "./pages.js"

export const SettingsHandlersLive = HttpApiBuilder.group(OverviewApi, "settings", (handlers) =>
  Effect.map(SenderSettings, (settings) =>
    handlers
      .handle("getEmail", () => respond(settings.get, (view) => dataOf(toEmailSettings(view))))
      .handle("updateEmail", ({ payload }) =>
        respond((caller) => settings.update(caller, toSenderChanges(payload)), (view) => dataOf(toEmailSettings(view))))))
