import { HttpApiEndpoint, OpenApi } from "@effect/platform"
import { CampaignId } from "@roster/domain"
import type { Schema } from "effect"
import { NoFields, optionalBody } from "./action-body.js"
import { CreateCampaignRequest, SendCampaignRequest } from "./campaign-schemas.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"
import { IdInput } from "./wire-fields.js"

const read = "Scope `campaigns:read`."
const write = "Scope `campaigns:write`."

/** What an action on one campaign (`POST /campaigns/:id/<action>`) can answer. */
const ACTION_ERRORS = ["not_found", "conflict", "limit_exceeded", ...POST_ERRORS] as const

/**
 * The campaign endpoints as every wire form describes them (the overview form in fewer words),
 * the campaign's id named `key` in their paths.
 */
export const campaignEndpoints = <const K extends string>(key: K) => {
  const campaign = idParam(key, IdInput(CampaignId, "the campaign's id"))
  const one = `/campaigns${campaign.segment}` as const
  /** An action on one campaign: `POST /campaigns/:id/<path>`, with no body unless it takes one. */
  const action = <const Name extends string, P extends Schema.Schema.Any = typeof NoFields>(
    name: Name,
    path: string,
    payload: P = NoFields as unknown as P
  ) =>
    HttpApiEndpoint.post(name, `${one}/${path}`)
      .setPath(campaign.path)
      .setPayload(payload)
      .annotate(OpenApi.Transform, optionalBody)
  return {
    /** The address and path of one campaign, for the form's own update. */
    address: one,
    path: campaign.path,
    create: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("create", "/campaigns").setPayload(CreateCampaignRequest),
      summary: "Create a campaign",
      description: "Keeps a draft. 404 for a template or tag the organization does not have; 400 for content that " +
        `is not a valid template or a schedule that has passed. ${write}`,
      errors: ["not_found", ...POST_ERRORS]
    }),
    list: endpointDescription({ summary: "List campaigns", errors: [] }),
    get: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("get", one).setPath(campaign.path),
      summary: "Get a campaign",
      description: `With its progress and figures. ${read}`,
      errors: ["not_found"]
    }),
    update: endpointDescription({
      summary: "Update a campaign",
      description: "Changes a draft or a scheduled campaign (409 otherwise); fields left out stay. A scheduled " +
        `campaign whose \`scheduled_at\` is set to null goes back to draft. ${write}`,
      errors: ["not_found", "conflict", ...BODY_ERRORS]
    }),
    send: sharedEndpoint({
      endpoint: action("send", "send", SendCampaignRequest),
      summary: "Send a campaign",
      description: "Sends a draft now, or schedules it: for the body's `scheduled_at` when it gives one (it replaces the " +
        "campaign's own), else for the campaign's `scheduled_at` when it has one. A scheduled campaign answers " +
        "`scheduled` and the worker sends it when its time comes. No body and `{}` are alike; any other field is a 400 " +
        "naming it, and nothing is sent. 400 when its content does not render, its audience holds no one, or the time " +
        "has passed or is more than a year ahead (`scheduled_at`: a time in the past is refused, not sent at once); " +
        "402 when the plan's monthly emails are spent; 409 when it is not a draft (a second send of one campaign is " +
        `refused). ${write}`,
      errors: ACTION_ERRORS
    }),
    cancel: sharedEndpoint({
      endpoint: action("cancel", "cancel"),
      summary: "Cancel a campaign",
      description: `Stops a scheduled or sending campaign: no email goes out from now on. ${write}`,
      errors: ACTION_ERRORS
    }),
    retry: sharedEndpoint({
      endpoint: action("retry", "retry"),
      summary: "Retry a failed campaign",
      description: `Sends a failed campaign's failed emails again, and the rest of its audience if the plan's limit stopped it. ${write}`,
      errors: ACTION_ERRORS
    }),
    duplicate: sharedEndpoint({
      endpoint: action("duplicate", "duplicate"),
      summary: "Duplicate a campaign",
      description: `A new draft with the campaign's content, audience and data, and no schedule. ${write}`,
      errors: ACTION_ERRORS
    }),
    countRecipients: sharedEndpoint({
      endpoint: action("countRecipients", "count-recipients"),
      summary: "Count a campaign's recipients",
      description: `How many subscribers the campaign would reach if it were sent now, by the query the send uses. ${read}`,
      errors: ACTION_ERRORS
    })
  }
}

export const campaignScopes = { read, write }
