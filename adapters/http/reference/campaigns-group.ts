import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { CampaignId } from "@roster/domain"
import { Schema } from "effect"
import {
  campaignFilters,
  campaignRules,
  CampaignView,
  CreateCampaignRequest,
  RecipientCount,
  SendCampaignRequest,
  UpdateCampaignRequest
} from "../shared/campaign-schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"
import { API_ROUTE_ERRORS, BODY_ERRORS, POST_ERRORS } from "../shared/wire-errors.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"

export const CampaignPath = Schema.Struct({ campaign_id: IdInput(CampaignId, "the campaign's id") })
export const CampaignListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam, ...campaignFilters })
  .annotations(strictInput)

const read = "Scope `campaigns:read`."
const write = "Scope `campaigns:write`."

const action = <const Name extends string, S extends Schema.Schema.Any, P extends Schema.Schema.Any = typeof NoFields>(
  name: Name,
  path: string,
  summary: string,
  description: string,
  success: S,
  payload: P = NoFields as unknown as P
) =>
  HttpApiEndpoint.post(name, `/campaigns/:campaign_id/${path}`)
    .setPath(CampaignPath)
    .setPayload(payload)
    .addSuccess(success)
    .pipe(problems.endpoint("not_found", "conflict", "limit_exceeded", ...POST_ERRORS))
    .annotate(OpenApi.Transform, optionalBody)
    .annotateContext(OpenApi.annotations({ summary, description }))

export const CampaignsGroup = HttpApiGroup.make("campaigns")
  .add(
    HttpApiEndpoint.post("create", "/campaigns")
      .setPayload(CreateCampaignRequest)
      .addSuccess(withStatus(CampaignView, 201, "CreatedCampaign"))
      .pipe(problems.endpoint("not_found", ...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Create a campaign",
        description: "Keeps a draft. 404 for a template or tag the organization does not have; 400 for content that " +
          `is not a valid template or a schedule that has passed. ${write}`
      }))
  )
  .add(
    HttpApiEndpoint.get("list", "/campaigns")
      .setUrlParams(CampaignListParams)
      .addSuccess(Page(CampaignView, "CampaignList"))
      .annotateContext(OpenApi.annotations({
        summary: "List campaigns",
        description: `One page of the organization's campaigns, newest first, each with its figures. ${read}`
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/campaigns/:campaign_id")
      .setPath(CampaignPath)
      .addSuccess(CampaignView)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({ summary: "Get a campaign", description: `With its progress and figures. ${read}` }))
  )
  .add(
    HttpApiEndpoint.put("update", "/campaigns/:campaign_id")
      .setPath(CampaignPath)
      .setPayload(UpdateCampaignRequest)
      .addSuccess(CampaignView)
      .pipe(problems.endpoint("not_found", "conflict", ...BODY_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Update a campaign",
        description: "Changes a draft or a scheduled campaign (409 otherwise); fields left out stay. A scheduled " +
          `campaign whose \`scheduled_at\` is set to null goes back to draft. ${write}`
      }))
  )
  .add(action(
    "send",
    "send",
    "Send a campaign",
    "Sends a draft now, or schedules it: for the body's `scheduled_at` when it gives one (it replaces the " +
      "campaign's own), else for the campaign's `scheduled_at` when it has one. A scheduled campaign answers " +
      "`scheduled` and the worker sends it when its time comes. No body and `{}` are alike; any other field is a 400 " +
      "naming it, and nothing is sent. 400 when its content does not render, its audience holds no one, or the time " +
      "has passed or is more than a year ahead (`scheduled_at`: a time in the past is refused, not sent at once); " +
      "402 when the plan's monthly emails are spent; 409 when it is not a draft (a second send of one campaign is " +
      `refused). ${write}`,
    CampaignView,
    SendCampaignRequest
  ))
  .add(action(
    "cancel",
    "cancel",
    "Cancel a campaign",
    `Stops a scheduled or sending campaign: no email goes out from now on. ${write}`
,
    CampaignView
  ))
  .add(action(
    "retry",
    "retry",
    "Retry a failed campaign",
    `Sends a failed campaign's failed emails again, and the rest of its audience if the plan's limit stopped it. ${write}`
,
    CampaignView
  ))
  .add(action(
    "duplicate",
    "duplicate",
    "Duplicate a campaign",
    `A new draft with the campaign's content, audience and data, and no schedule. ${write}`,
    withStatus(CampaignView, 201, "DuplicatedCampaign")
  ))
  .add(action(
    "countRecipients",
    "count-recipients",
    "Count a campaign's recipients",
    `How many subscribers the campaign would reach if it were sent now, by the query the send uses. ${read}`,
    RecipientCount
  ))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Campaigns")
  .annotate(OpenApi.Description, campaignRules)
