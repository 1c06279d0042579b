import { HttpApiBuilder } from "@effect/platform"
import { Campaigns } from "@roster/application"
import { Effect } from "effect"
import { toCampaignChanges, toCampaignView, toNewCampaign, toSendOptions } from "../shared/campaign-schemas.js"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf, pageRequestOf } from "./pages.js"

const view = (record: Parameters<typeof toCampaignView>[0]) => dataOf(toCampaignView(record))

export const CampaignsHandlersLive = HttpApiBuilder.group(OverviewApi, "campaigns", (handlers) =>
  Effect.map(Campaigns, (campaigns) =>
    handlers
      .handle("list", ({ urlParams }) =>
        respond(
          (caller) => campaigns.listPage(caller, { ...pageRequestOf(urlParams), status: urlParams.status }),
          (page) => listOf(page, toCampaignView)
        ))
      .handle("create", ({ payload }) => respond((caller) => campaigns.create(caller, toNewCampaign(payload)), view))
      .handle("get", ({ path }) => respond((caller) => campaigns.get(caller, path.id), view))
      .handle("update", ({ path, payload }) =>
        respond((caller) => campaigns.update(caller, path.id, toCampaignChanges(payload)), view))
      .handle("send", ({ path, payload }) =>
        respond((caller) => campaigns.send(caller, path.id, toSendOptions(payload)), view))
      .handle("cancel", ({ path }) => respond((caller) => campaigns.cancel(caller, path.id), view))
      .handle("retry", ({ path }) => respond((caller) => campaigns.retry(caller, path.id), view))
      .handle("duplicate", ({ path }) => respond((caller) => campaigns.duplicate(caller, path.id), view))
      .handle("countRecipients", ({ path }) =>
        respond((caller) => campaigns.countRecipients(caller, path.id), (recipients) => dataOf({ recipients })))))
