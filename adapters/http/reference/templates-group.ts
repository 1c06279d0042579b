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
import { templateEndpoints as templates, templateScopes } from "../shared/template-endpoints.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

export const TemplatePath = Schema.Struct({ template_id: IdInput(TemplateId, "the template's id") })
export const TemplateListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)

export const TemplatesGroup = HttpApiGroup.make("templates")
  .add(problems.declare(templates.create).addSuccess(withStatus(Template, 201, "CreatedTemplate")))
  .add(
    HttpApiEndpoint.get("list", "/templates")
      .setUrlParams(TemplateListParams)
      .addSuccess(Page(Template, "TemplateList"))
      .pipe(problems.describe({
        ...templates.list,
        description: `One page of the organization's templates, oldest first. ${templateScopes.read}`
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/templates/:template_id")
      .setPath(TemplatePath)
      .addSuccess(Template)
      .pipe(problems.describe(templates.get))
  )
  .add(
    HttpApiEndpoint.put("update", "/templates/:template_id")
      .setPath(TemplatePath)
      .setPayload(UpdateTemplateRequest)
      .addSuccess(Template)
      .pipe(problems.describe(templates.update))
  )
  .add(
    HttpApiEndpoint.del("delete", "/templates/:template_id")
      .setPath(TemplatePath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(templates.delete))
  )
  .add(
    HttpApiEndpoint.post("preview", "/templates/:template_id/preview")
      .setPath(TemplatePath)
      .setPayload(PreviewTemplateRequest)
      .addSuccess(TemplatePreview)
      .pipe(problems.describe(templates.preview))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Templates")
  .annotate(OpenApi.Description, templateRules)
