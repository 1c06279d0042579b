import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Template, TemplatePreview, templateRules, UpdateTemplateRequest } from "../shared/template-schemas.js"
import { templateEndpoints, templateScopes } from "../shared/template-endpoints.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"

export const TemplateListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)

const templates = templateEndpoints("template_id")

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
  .add(problems.declare(templates.get).addSuccess(Template))
  .add(
    HttpApiEndpoint.put("update", templates.address)
      .setPath(templates.path)
      .setPayload(UpdateTemplateRequest)
      .addSuccess(Template)
      .pipe(problems.describe(templates.update))
  )
  .add(problems.declare(templates.delete))
  .add(problems.declare(templates.preview).addSuccess(TemplatePreview))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Templates")
  .annotate(OpenApi.Description, templateRules)
