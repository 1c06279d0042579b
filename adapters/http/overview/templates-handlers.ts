import { HttpApiBuilder } from "@effect/platform"
import { Templates } from "@roster/application"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { toPreviewRequest, toTemplate, toTemplatePreview } from "../shared/template-schemas.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf, pageRequestOf } from "./pages.js"

export const TemplatesHandlersLive = HttpApiBuilder.group(OverviewApi, "templates", (handlers) =>
  Effect.map(Templates, (templates) =>
    handlers
      .handle("list", ({ urlParams }) =>
        respond((caller) => templates.listPage(caller, pageRequestOf(urlParams)), (page) => listOf(page, toTemplate)))
      .handle("create", ({ payload }) =>
        respond((caller) => templates.create(caller, payload), (template) => dataOf(toTemplate(template))))
      .handle("get", ({ path }) => respond((caller) => templates.get(caller, path.id), (t) => dataOf(toTemplate(t))))
      .handle("update", ({ path, payload }) =>
        respond((caller) => templates.update(caller, path.id, payload), (t) => dataOf(toTemplate(t))))
      .handle("delete", ({ path }) => respond((caller) => templates.remove(caller, path.id)))
      .handle("preview", ({ path, payload }) =>
        respond(
          (caller) => templates.preview(caller, path.id, toPreviewRequest(payload)),
          (preview) => dataOf(toTemplatePreview(preview))
        ))))
