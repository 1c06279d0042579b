import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { TemplateId } from "@roster/domain"
import { Schema } from "effect"
import {
  CreateTemplateRequest,
  PreviewTemplateRequest,
  Template,
  TemplatePreview,
  templateRules,
  UpdateTemplateRequest
} from "../shared/template-schemas.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

export const TemplatePath = Schema.Struct({ id: IdInput(TemplateId, "the template's id") })
export const TemplateListParams = Schema.Struct(pageParams).annotations(strictInput)

const TemplateData = Single(Template, "TemplateData")
const read = "Scope `templates:read`."
const write = "Scope `templates:write`."

export const TemplatesGroup = HttpApiGroup.make("templates")
  .add(
    HttpApiEndpoint.get("list", "/templates")
      .setUrlParams(TemplateListParams)
      .addSuccess(NumberedList(Template, "TemplateList"))
      .annotateContext(OpenApi.annotations({
        summary: "List templates",
        description: `One numbered page of the organization's templates, oldest first. ${read}`
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/templates")
      .setPayload(CreateTemplateRequest)
      .addSuccess(withStatus(TemplateData, 201, "CreatedTemplateData"))
      .annotateContext(OpenApi.annotations({ summary: "Create a template", description: `Checks the template and keeps it. ${write}` }))
  )
  .add(
    HttpApiEndpoint.get("get", "/templates/:id")
      .setPath(TemplatePath)
      .addSuccess(TemplateData)
      .annotateContext(OpenApi.annotations({ summary: "Get a template", description: read }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/templates/:id")
      .setPath(TemplatePath)
      .setPayload(UpdateTemplateRequest)
      .addSuccess(TemplateData)
      .annotateContext(OpenApi.annotations({
        summary: "Update a template",
        description: `Fields left out stay; \`null\` removes a body as long as one remains. ${write}`
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/templates/:id")
      .setPath(TemplatePath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Delete a template",
        description: `Deletes the template; emails sent with it keep what they were. ${write}`
      }))
  )
  .add(
    HttpApiEndpoint.post("preview", "/templates/:id/preview")
      .setPath(TemplatePath)
      .setPayload(PreviewTemplateRequest)
      .addSuccess(Single(TemplatePreview, "TemplatePreviewData"))
      .annotateContext(OpenApi.annotations({
        summary: "Preview a template",
        description: "Renders the template for a subscriber (a sample one when `subscriber_id` is left out) with " +
          `\`data\`, and lists the variables that rendered empty. ${read}`
      }))
  )
  .middleware(OverviewAuthentication)
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Templates")
  .annotate(OpenApi.Description, templateRules)
