import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { CampaignId } from "@roster/domain"
import { Schema } from "effect"
import {
  campaignFilters,
  campaignRules,
  CampaignView,
  RecipientCount,
  SendCampaignRequest,
  UpdateCampaignRequest
} from "../shared/campaign-schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"
import { campaignEndpoints as campaigns, campaignScopes } from "../shared/campaign-endpoints.js"
import { type EndpointDescription } from "../shared/endpoint-description.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { type ErrorCode } from "../shared/error-catalog.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"

export const CampaignPath = Schema.Struct({ campaign_id: IdInput(CampaignId, "the campaign's id") })
export const CampaignListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam, ...campaignFilters })
  .annotations(strictInput)

const action = <
  const Name extends string,
  const Codes extends ReadonlyArray<ErrorCode>,
  S extends Schema.Schema.Any,
  P extends Schema.Schema.Any = typeof NoFields
>(
  name: Name,
  path: string,
  description: EndpointDescription<Codes>,
  success: S,
  payload: P = NoFields as unknown as P
) =>
  HttpApiEndpoint.post(name, `/campaigns/:campaign_id/${path}`)
    .setPath(CampaignPath)
    .setPayload(payload)
    .addSuccess(success)
    .annotate(OpenApi.Transform, optionalBody)
    .pipe(problems.describe(description))

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
  .add(
    HttpApiEndpoint.get("get", "/campaigns/:campaign_id")
      .setPath(CampaignPath)
      .addSuccess(CampaignView)
      .pipe(problems.describe(campaigns.get))
  )
  .add(
    HttpApiEndpoint.put("update", "/campaigns/:campaign_id")
      .setPath(CampaignPath)
      .setPayload(UpdateCampaignRequest)
      .addSuccess(CampaignView)
      .pipe(problems.describe(campaigns.update))
  )
  .add(action("send", "send", campaigns.send, CampaignView, SendCampaignRequest))
  .add(action("cancel", "cancel", campaigns.cancel, CampaignView))
  .add(action("retry", "retry", campaigns.retry, CampaignView))
  .add(action("duplicate", "duplicate", campaigns.duplicate, withStatus(CampaignView, 201, "DuplicatedCampaign")))
  .add(action("countRecipients", "count-recipients", campaigns.countRecipients, RecipientCount))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Campaigns")
  .annotate(OpenApi.Description, campaignRules)
