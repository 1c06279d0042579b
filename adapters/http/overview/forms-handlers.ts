import { HttpApiBuilder } from "@effect/platform"
import { Forms } from "@roster/application"
import { Effect } from "effect"
import { formFieldsOf, toForm, toFormEmbed } from "../shared/form-schemas.js"
import { HttpSettings } from "../shared/http-settings.js"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf, pageRequestOf } from "./pages.js"

export const FormsHandlersLive = HttpApiBuilder.group(OverviewApi, "forms", (handlers) =>
  Effect.map(Effect.all([Forms, HttpSettings]), ([forms, { publicBaseUrl }]) =>
    handlers
      .handle("list", ({ urlParams }) =>
        respond((caller) => forms.listPage(caller, pageRequestOf(urlParams)), (page) => listOf(page, toForm)))
      .handle("create", ({ payload }) =>
        respond(
          (caller) => forms.create(caller, { name: payload.name, tagNames: payload.tags, ...formFieldsOf(payload) }),
          (form) => dataOf(toForm(form))
        ))
      .handle("get", ({ path }) => respond((caller) => forms.get(caller, path.id), (form) => dataOf(toForm(form))))
      .handle("embed", ({ path, urlParams }) =>
        respond(
          (caller) => forms.get(caller, path.id),
          ({ form }) => dataOf(toFormEmbed(form, urlParams.locale ?? "en", publicBaseUrl))
        ))
      .handle("update", ({ path, payload }) =>
        respond(
          (caller) => forms.update(caller, path.id, { name: payload.name, tagNames: payload.tags, ...formFieldsOf(payload) }),
          (form) => dataOf(toForm(form))
        ))
      .handle("delete", ({ path }) => respond((caller) => forms.remove(caller, path.id)))))
