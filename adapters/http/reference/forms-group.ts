import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { TagId } from "@roster/domain"
import { Schema } from "effect"
import { formEndpoints, formScopes } from "../shared/form-endpoints.js"
import { Form, FormEmbed, formRequests, formRules } from "../shared/form-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { IdListInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam, Page } from "./pagination.js"
import { problems } from "./problems.js"

export const FormListParams = Schema.Struct({ limit: limitParam, cursor: cursorParam }).annotations(strictInput)

/** The reference form names a form's tags by id, as it does a subscriber's. */
export const FormRequests = formRequests(IdListInput(TagId, "ids of tags of the organization to give on joining"))

const forms = formEndpoints("form_id")

export const FormsGroup = HttpApiGroup.make("forms")
  .add(
    HttpApiEndpoint.post("create", "/forms")
      .setPayload(FormRequests.Create)
      .addSuccess(withStatus(Form, 201, "CreatedForm"))
      .pipe(problems.describe(forms.create))
  )
  .add(
    HttpApiEndpoint.get("list", "/forms")
      .setUrlParams(FormListParams)
      .addSuccess(Page(Form, "FormList"))
      .pipe(problems.describe({
        ...forms.list,
        description: `One page of the organization's sign-up forms, oldest first. ${formScopes.read}`
      }))
  )
  .add(problems.declare(forms.get).addSuccess(Form))
  .add(problems.declare(forms.embed).addSuccess(FormEmbed))
  .add(
    HttpApiEndpoint.put("update", forms.address)
      .setPath(forms.path)
      .setPayload(FormRequests.Update)
      .addSuccess(Form)
      .pipe(problems.describe(forms.update))
  )
  .add(problems.declare(forms.delete))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Forms")
  .annotate(OpenApi.Description, formRules)
