import { HttpApiBuilder } from "@effect/platform"
import { SenderSettings } from "@roster/application"
import { Effect } from "effect"
import { toEmailSettings, toSenderChanges } from "../shared/email-settings-schemas.js"
import { respond } from "../shared/respond.js"
import { ReferenceApi } from "./api.js"

export const SettingsHandlersLive = HttpApiBuilder.group(ReferenceApi, "settings", (handlers) =>
  Effect.map(SenderSettings, (settings) =>
    handlers
      .handle("getEmail", () => respond(settings.get, toEmailSettings))
      .handle("updateEmail", ({ payload }) =>
        respond((caller) => settings.update(caller, toSenderChanges(payload)), toEmailSettings))))
