import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import {
  campaignFilters,
  campaignRules,
  CampaignView,
  RecipientCount,
  UpdateCampaignRequest
} from "../shared/campaign-schemas.js"
import { campaignEndpoints, campaignScopes } from "../shared/campaign-endpoints.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"

export const CampaignListParams = Schema.Struct({ ...pageParams, ...campaignFilters }).annotations(strictInput)

const campaigns = campaignEndpoints("id")
const CampaignData = Single(CampaignView, "CampaignData")
const { read, write } = campaignScopes

export const CampaignsGroup = HttpApiGroup.make("campaigns")
  .add(
    HttpApiEndpoint.get("list", "/campaigns")
      .setUrlParams(CampaignListParams)
      .addSuccess(NumberedList(CampaignView, "CampaignList"))
      .pipe(envelopes.describe({
        ...campaigns.list,
        description: `One numbered page of the organization's campaigns, newest first, each with its figures. ${read}`
      }))
  )
  .add(
    envelopes.declare({ ...campaigns.create, description: `Keeps a draft. ${write}` })
      .addSuccess(withStatus(CampaignData, 201, "CreatedCampaignData"))
  )
  .add(envelopes.declare(campaigns.get).addSuccess(CampaignData))
  .add(
    HttpApiEndpoint.patch("update", campaigns.address)
      .setPath(campaigns.path)
      .setPayload(UpdateCampaignRequest)
      .addSuccess(CampaignData)
      .pipe(envelopes.describe({
        ...campaigns.update,
        description: `Changes a draft or a scheduled campaign (409 otherwise); fields left out stay. ${write}`
      }))
  )
  .add(
    envelopes.declare({
      ...campaigns.send,
      description: "Sends a draft now, or schedules it: for the body's `scheduled_at` when it gives one (it replaces the " +
        "campaign's own), else for the campaign's `scheduled_at` when it has one; the worker sends a scheduled " +
        "campaign when its time comes. No body and `{}` are alike; any other field is a 400 naming it, and nothing is " +
        "sent. 400 for a time that has passed or is more than a year ahead; 409 when it is not a draft. " + write
    }).addSuccess(CampaignData)
  )
  .add(
    envelopes.declare({ ...campaigns.cancel, description: `Stops a scheduled or sending campaign. ${write}` })
      .addSuccess(CampaignData)
  )
  .add(envelopes.declare({ ...campaigns.retry, description: `Sends its failed emails again. ${write}` }).addSuccess(CampaignData))
  .add(
    envelopes.declare({ ...campaigns.duplicate, description: `A new draft with the campaign's content and audience. ${write}` })
      .addSuccess(withStatus(CampaignData, 201, "DuplicatedCampaignData"))
  )
  .add(
    envelopes.declare({
      ...campaigns.countRecipients,
      description: `How many subscribers the campaign would reach if it were sent now. ${read}`
    }).addSuccess(Single(RecipientCount, "CampaignRecipientCountData"))
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Campaigns")
  .annotate(OpenApi.Description, campaignRules)
