import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { formEndpoints, formScopes } from "../shared/form-endpoints.js"
import { Form, FormEmbed, formRequests, formRules } from "../shared/form-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single, TagNames } from "./schemas.js"

export const FormListParams = Schema.Struct(pageParams).annotations(strictInput)

/** The overview form names a form's tags by name, as it does a subscriber's; every name must name a tag. */
export const FormRequests = formRequests(TagNames("names of tags of the organization to give on joining"))

const forms = formEndpoints("id")
const FormData = Single(Form, "FormData")

export const FormsGroup = HttpApiGroup.make("forms")
  .add(
    HttpApiEndpoint.get("list", "/forms")
      .setUrlParams(FormListParams)
      .addSuccess(NumberedList(Form, "FormList"))
      .pipe(envelopes.describe({
        ...forms.list,
        description: `One numbered page of the organization's sign-up forms, oldest first. ${formScopes.read}`
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/forms")
      .setPayload(FormRequests.Create)
      .addSuccess(withStatus(FormData, 201, "CreatedFormData"))
      .pipe(envelopes.describe(forms.create))
  )
  .add(envelopes.declare(forms.get).addSuccess(FormData))
  .add(envelopes.declare(forms.embed).addSuccess(Single(FormEmbed, "FormEmbedData")))
  .add(
    HttpApiEndpoint.patch("update", forms.address)
      .setPath(forms.path)
      .setPayload(FormRequests.Update)
      .addSuccess(FormData)
      .pipe(envelopes.describe(forms.update))
  )
  .add(envelopes.declare(forms.delete))
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Forms")
  .annotate(OpenApi.Description, formRules)
