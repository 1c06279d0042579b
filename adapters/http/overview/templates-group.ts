import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { TemplateId } from "@roster/domain"
import { Schema } from "effect"
import {
  PreviewTemplateRequest,
  Template,
  TemplatePreview,
  templateRules,
  UpdateTemplateRequest
} from "../shared/template-schemas.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { templateEndpoints as templates, templateScopes } from "../shared/template-endpoints.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

export const TemplatePath = Schema.Struct({ id: IdInput(TemplateId, "the template's id") })
export const TemplateListParams = Schema.Struct(pageParams).annotations(strictInput)

const TemplateData = Single(Template, "TemplateData")

export const TemplatesGroup = HttpApiGroup.make("templates")
  .add(
    HttpApiEndpoint.get("list", "/templates")
      .setUrlParams(TemplateListParams)
      .addSuccess(NumberedList(Template, "TemplateList"))
      .pipe(envelopes.describe({
        ...templates.list,
        description: `One numbered page of the organization's templates, oldest first. ${templateScopes.read}`
      }))
  )
  .add(envelopes.declare(templates.create).addSuccess(withStatus(TemplateData, 201, "CreatedTemplateData")))
  .add(
    HttpApiEndpoint.get("get", "/templates/:id")
      .setPath(TemplatePath)
      .addSuccess(TemplateData)
      .pipe(envelopes.describe(templates.get))
  )
  .add(
    HttpApiEndpoint.patch("update", "/templates/:id")
      .setPath(TemplatePath)
      .setPayload(UpdateTemplateRequest)
      .addSuccess(TemplateData)
      .pipe(envelopes.describe({
        ...templates.update,
        description: `Fields left out stay; \`null\` removes a body as long as one remains. ${templateScopes.write}`
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/templates/:id")
      .setPath(TemplatePath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(envelopes.describe(templates.delete))
  )
  .add(
    HttpApiEndpoint.post("preview", "/templates/:id/preview")
      .setPath(TemplatePath)
      .setPayload(PreviewTemplateRequest)
      .addSuccess(Single(TemplatePreview, "TemplatePreviewData"))
      .pipe(envelopes.describe({
        ...templates.preview,
        description: "Renders the template for a subscriber (a sample one when `subscriber_id` is left out) with " +
          `\`data\`, and lists the variables that rendered empty. ${templateScopes.read}`
      }))
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Templates")
  .annotate(OpenApi.Description, templateRules)
