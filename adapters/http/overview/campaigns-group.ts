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
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { campaignEndpoints as campaigns, campaignScopes } from "../shared/campaign-endpoints.js"
import { type EndpointDescription } from "../shared/endpoint-description.js"
import { type ErrorCode } from "../shared/error-catalog.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"

export const CampaignPath = Schema.Struct({ id: IdInput(CampaignId, "the campaign's id") })
export const CampaignListParams = Schema.Struct({ ...pageParams, ...campaignFilters }).annotations(strictInput)

const CampaignData = Single(CampaignView, "CampaignData")
const { read, write } = campaignScopes

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
  HttpApiEndpoint.post(name, `/campaigns/:id/${path}`)
    .setPath(CampaignPath)
    .setPayload(payload)
    .addSuccess(success)
    .annotate(OpenApi.Transform, optionalBody)
    .pipe(envelopes.describe(description))

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
  .add(
    HttpApiEndpoint.get("get", "/campaigns/:id")
      .setPath(CampaignPath)
      .addSuccess(CampaignData)
      .pipe(envelopes.describe(campaigns.get))
  )
  .add(
    HttpApiEndpoint.patch("update", "/campaigns/:id")
      .setPath(CampaignPath)
      .setPayload(UpdateCampaignRequest)
      .addSuccess(CampaignData)
      .pipe(envelopes.describe({
        ...campaigns.update,
        description: `Changes a draft or a scheduled campaign (409 otherwise); fields left out stay. ${write}`
      }))
  )
  .add(action(
    "send",
    "send",
    {
      ...campaigns.send,
      description: "Sends a draft now, or schedules it: for the body's `scheduled_at` when it gives one (it replaces the " +
        "campaign's own), else for the campaign's `scheduled_at` when it has one; the worker sends a scheduled " +
        "campaign when its time comes. No body and `{}` are alike; any other field is a 400 naming it, and nothing is " +
        "sent. 400 for a time that has passed or is more than a year ahead; 409 when it is not a draft. " + write
    },
    CampaignData,
    SendCampaignRequest
  ))
  .add(action("cancel", "cancel", { ...campaigns.cancel, description: `Stops a scheduled or sending campaign. ${write}` }, CampaignData))
  .add(action("retry", "retry", { ...campaigns.retry, description: `Sends its failed emails again. ${write}` }, CampaignData))
  .add(action(
    "duplicate",
    "duplicate",
    { ...campaigns.duplicate, description: `A new draft with the campaign's content and audience. ${write}` },
    withStatus(CampaignData, 201, "DuplicatedCampaignData")
  ))
  .add(action(
    "countRecipients",
    "count-recipients",
    { ...campaigns.countRecipients, description: `How many subscribers the campaign would reach if it were sent now. ${read}` },
    Single(RecipientCount, "CampaignRecipientCountData")
  ))
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Campaigns")
  .annotate(OpenApi.Description, campaignRules)
