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
import { API_ROUTE_ERRORS, BODY_ERRORS, POST_ERRORS } from "../shared/wire-errors.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

export const TemplatePath = Schema.Struct({ template_id: IdInput(TemplateId, "the template's id") })
export const TemplateListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)

const read = "Scope `templates:read`."
const write = "Scope `templates:write`."

export const TemplatesGroup = HttpApiGroup.make("templates")
  .add(
    HttpApiEndpoint.post("create", "/templates")
      .setPayload(CreateTemplateRequest)
      .addSuccess(withStatus(Template, 201, "CreatedTemplate"))
      .pipe(problems.endpoint(...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Create a template",
        description: `Checks the template and keeps it. ${write}`
      }))
  )
  .add(
    HttpApiEndpoint.get("list", "/templates")
      .setUrlParams(TemplateListParams)
      .addSuccess(Page(Template, "TemplateList"))
      .annotateContext(OpenApi.annotations({
        summary: "List templates",
        description: `One page of the organization's templates, oldest first. ${read}`
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/templates/:template_id")
      .setPath(TemplatePath)
      .addSuccess(Template)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({ summary: "Get a template", description: read }))
  )
  .add(
    HttpApiEndpoint.put("update", "/templates/:template_id")
      .setPath(TemplatePath)
      .setPayload(UpdateTemplateRequest)
      .addSuccess(Template)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Update a template",
        description: `Fields left out stay; \`null\` removes a body as long as one remains. The result is checked as a new template is. ${write}`
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/templates/:template_id")
      .setPath(TemplatePath)
      .setPayload(NoFields)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Delete a template",
        description: `Deletes the template; emails sent with it keep what they were. ${write}`
      }))
  )
  .add(
    HttpApiEndpoint.post("preview", "/templates/:template_id/preview")
      .setPath(TemplatePath)
      .setPayload(PreviewTemplateRequest)
      .addSuccess(TemplatePreview)
      .pipe(problems.endpoint("not_found", ...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Preview a template",
        description: "Renders the template as a send would, for a subscriber of the organization (a sample one when " +
          "`subscriber_id` is left out) with `data`, and lists the variables that rendered empty. Its " +
          `\`unsubscribe_url\` and \`preferences_url\` carry the token \`preview\`, which opens nothing. ${read}`
      }))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Templates")
  .annotate(OpenApi.Description, templateRules)
