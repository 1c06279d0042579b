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
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"

export const CampaignListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam, ...campaignFilters })
  .annotations(strictInput)

const campaigns = campaignEndpoints("campaign_id")

export const CampaignsGroup = HttpApiGroup.make("campaigns")
  .add(problems.declare(campaigns.create).addSuccess(withStatus(CampaignView, 201, "CreatedCampaign")))
  .add(
    HttpApiEndpoint.get("list", "/campaigns")
      .setUrlParams(CampaignListParams)
      .addSuccess(Page(CampaignView, "CampaignList"))
      .pipe(problems.describe({
        ...campaigns.list,
        description: `One page of the organization's campaigns, newest first, each with its figures. ${campaignScopes.read}`
      }))
  )
  .add(problems.declare(campaigns.get).addSuccess(CampaignView))
  .add(
    HttpApiEndpoint.put("update", campaigns.address)
      .setPath(campaigns.path)
      .setPayload(UpdateCampaignRequest)
      .addSuccess(CampaignView)
      .pipe(problems.describe(campaigns.update))
  )
  .add(problems.declare(campaigns.send).addSuccess(CampaignView))
  .add(problems.declare(campaigns.cancel).addSuccess(CampaignView))
  .add(problems.declare(campaigns.retry).addSuccess(CampaignView))
  .add(problems.declare(campaigns.duplicate).addSuccess(withStatus(CampaignView, 201, "DuplicatedCampaign")))
  .add(problems.declare(campaigns.countRecipients).addSuccess(RecipientCount))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Campaigns")
  .annotate(OpenApi.Description, campaignRules)
