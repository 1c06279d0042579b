import { HttpApiBuilder } from "@effect/platform"
import { OrganizationSettings, SenderSettings, SendingDomains } from "@roster/application"
import { Effect } from "effect"
import { toEmailSettings, toSenderChanges, toSendingDomain } from "../shared/email-settings-schemas.js"
import { toOrganizationChanges, toOrganizationSettings } from "../shared/organization-settings-schemas.js"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf } from "./pages.js"

export const SettingsHandlersLive = HttpApiBuilder.group(OverviewApi, "settings", (handlers) =>
  Effect.map(Effect.all([SenderSettings, SendingDomains, OrganizationSettings]), ([settings, domains, organization]) =>
    handlers
      .handle("getEmail", () => respond(settings.get, (view) => dataOf(toEmailSettings(view))))
      .handle("updateEmail", ({ payload }) =>
        respond((caller) => settings.update(caller, toSenderChanges(payload)), (view) => dataOf(toEmailSettings(view))))
      .handle("addDomain", ({ payload }) =>
        respond((caller) => domains.add(caller, payload), (domain) => dataOf(toSendingDomain(domain))))
      .handle("checkDomain", () => respond(domains.check, (domain) => dataOf(toSendingDomain(domain))))
      .handle("removeDomain", () => respond(domains.remove))
      .handle("getOrganization", () => respond(organization.get, (view) => dataOf(toOrganizationSettings(view))))
      .handle("updateOrganization", ({ payload }) =>
        respond(
          (caller) => organization.update(caller, toOrganizationChanges(payload)),
          (view) => dataOf(toOrganizationSettings(view))
        ))))
