import { HttpApiBuilder } from "@effect/platform"
import { Templates } from "@roster/application"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { toPreviewRequest, toTemplate, toTemplatePreview } from "../shared/template-schemas.js"
import { ReferenceApi } from "./api.js"
import { pageOf } from "./pagination.js"

export const TemplatesHandlersLive = HttpApiBuilder.group(ReferenceApi, "templates", (handlers) =>
  Effect.map(Templates, (templates) =>
    handlers
      .handle("create", ({ payload }) => respond((caller) => templates.create(caller, payload), toTemplate))
      .handle("list", ({ urlParams }) =>
        respond((caller) => templates.list(caller, urlParams), pageOf(toTemplate)))
      .handle("get", ({ path }) => respond((caller) => templates.get(caller, path.template_id), toTemplate))
      .handle("update", ({ path, payload }) =>
        respond((caller) => templates.update(caller, path.template_id, payload), toTemplate))
      .handle("delete", ({ path }) => respond((caller) => templates.remove(caller, path.template_id)))
      .handle("preview", ({ path, payload }) =>
        respond((caller) => templates.preview(caller, path.template_id, toPreviewRequest(payload)), toTemplatePreview))))
