import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Template, TemplatePreview, templateRules, UpdateTemplateRequest } from "../shared/template-schemas.js"
import { templateEndpoints, templateScopes } from "../shared/template-endpoints.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"

export const TemplateListParams = Schema.Struct(pageParams).annotations(strictInput)

const templates = templateEndpoints("id")
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
  .add(envelopes.declare(templates.get).addSuccess(TemplateData))
  .add(
    HttpApiEndpoint.patch("update", templates.address)
      .setPath(templates.path)
      .setPayload(UpdateTemplateRequest)
      .addSuccess(TemplateData)
      .pipe(envelopes.describe({
        ...templates.update,
        description: `Fields left out stay; \`null\` removes a body as long as one remains. ${templateScopes.write}`
      }))
  )
  .add(envelopes.declare(templates.delete))
  .add(
    envelopes.declare({
      ...templates.preview,
      description: "Renders the template for a subscriber (a sample one when `subscriber_id` is left out) with " +
        `\`data\`, and lists the variables that rendered empty. ${templateScopes.read}`
    }).addSuccess(Single(TemplatePreview, "TemplatePreviewData"))
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Templates")
  .annotate(OpenApi.Description, templateRules)
