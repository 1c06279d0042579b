import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { importEndpoints } from "../shared/import-endpoints.js"
import { importsDescription, SubscriberImport, SubscriberImportSummary } from "../shared/import-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, PageListParams, Single } from "./schemas.js"

const SubscriberImportData = Single(SubscriberImport, "SubscriberImportData")

const imports = importEndpoints("id")

export const ImportsGroup = HttpApiGroup.make("imports")
  .add(envelopes.declare(imports.start).addSuccess(withStatus(SubscriberImportData, 202, "QueuedSubscriberImportData")))
  .add(
    HttpApiEndpoint.get("list", "/subscribers/imports")
      .setUrlParams(PageListParams)
      .addSuccess(NumberedList(SubscriberImportSummary, "SubscriberImportList"))
      .pipe(envelopes.describe({
        ...imports.list,
        description: "One numbered page of the organization's imports, newest first, without their problems (each " +
          "import lists its own). Scope `subscribers:read`."
      }))
  )
  .add(envelopes.declare(imports.get).addSuccess(SubscriberImportData))
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Subscriber imports")
  .annotate(OpenApi.Description, importsDescription)
