import { OpenApi } from "@effect/platform"
import { OverviewApi, ReferenceApi } from "../../adapters/http/index.js"
import type { Document, WireForm } from "./openapi-conformance.js"

/** The OpenAPI document a form serves at `/openapi.json` (but for `servers`, which names the deployment). */
export const documentOf = (form: WireForm): Document =>
  (form === "reference" ? OpenApi.fromApi(ReferenceApi) : OpenApi.fromApi(OverviewApi)) as unknown as Document
