import { HttpApiBuilder } from "@effect/platform"
import { Campaigns } from "@roster/application"
import { Effect } from "effect"
import { toCampaignChanges, toCampaignView, toNewCampaign, toSendOptions } from "../shared/campaign-schemas.js"
import { respond } from "../shared/respond.js"
import { ReferenceApi } from "./api.js"
import { pageOf } from "./pagination.js"

export const CampaignsHandlersLive = HttpApiBuilder.group(ReferenceApi, "campaigns", (handlers) =>
  Effect.map(Campaigns, (campaigns) =>
    handlers
      .handle("create", ({ payload }) => respond((caller) => campaigns.create(caller, toNewCampaign(payload)), toCampaignView))
      .handle("list", ({ urlParams }) =>
        respond((caller) => campaigns.list(caller, urlParams), pageOf(toCampaignView)))
      .handle("get", ({ path }) => respond((caller) => campaigns.get(caller, path.campaign_id), toCampaignView))
      .handle("update", ({ path, payload }) =>
        respond((caller) => campaigns.update(caller, path.campaign_id, toCampaignChanges(payload)), toCampaignView))
      .handle("send", ({ path, payload }) =>
        respond((caller) => campaigns.send(caller, path.campaign_id, toSendOptions(payload)), toCampaignView))
      .handle("cancel", ({ path }) => respond((caller) => campaigns.cancel(caller, path.campaign_id), toCampaignView))
      .handle("retry", ({ path }) => respond((caller) => campaigns.retry(caller, path.campaign_id), toCampaignView))
      .handle("duplicate", ({ path }) => respond((caller) => campaigns.duplicate(caller, path.campaign_id), toCampaignView))
      .handle("countRecipients", ({ path }) =>
        respond((caller) => campaigns.countRecipients(caller, path.campaign_id), (recipients) => ({ recipients })))))
