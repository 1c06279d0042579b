import { HttpApiBuilder } from "@effect/platform"
import { OrganizationSettings, SenderSettings, SendingDomains } from "@roster/application"
import { Effect } from "effect"
import { toEmailSettings, toSenderChanges, toSendingDomain } from "../shared/email-settings-schemas.js"
import { toOrganizationChanges, toOrganizationSettings } from "../shared/organization-settings-schemas.js"
import { respond } from "../shared/respond.js"
import { ReferenceApi } from "./api.js"

export const SettingsHandlersLive = HttpApiBuilder.group(ReferenceApi, "settings", (handlers) =>
  Effect.map(Effect.all([SenderSettings, SendingDomains, OrganizationSettings]), ([settings, domains, organization]) =>
    handlers
      .handle("getEmail", () => respond(settings.get, toEmailSettings))
      .handle("updateEmail", ({ payload }) =>
        respond((caller) => settings.update(caller, toSenderChanges(payload)), toEmailSettings))
      .handle("addDomain", ({ payload }) => respond((caller) => domains.add(caller, payload), toSendingDomain))
      .handle("checkDomain", () => respond(domains.check, toSendingDomain))
      .handle("removeDomain", () => respond(domains.remove))
      .handle("getOrganization", () => respond(organization.get, toOrganizationSettings))
      .handle("updateOrganization", ({ payload }) =>
        respond((caller) => organization.update(caller, toOrganizationChanges(payload)), toOrganizationSettings))))
