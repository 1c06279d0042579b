import { HttpApiBuilder } from "@effect/platform"
import { Forms } from "@roster/application"
import { Effect } from "effect"
import { formFieldsOf, toForm, toFormEmbed } from "../shared/form-schemas.js"
import { HttpSettings } from "../shared/http-settings.js"
import { respond } from "../shared/respond.js"
import { ReferenceApi } from "./api.js"
import { pageOf } from "./pagination.js"

export const FormsHandlersLive = HttpApiBuilder.group(ReferenceApi, "forms", (handlers) =>
  Effect.map(Effect.all([Forms, HttpSettings]), ([forms, { publicBaseUrl }]) =>
    handlers
      .handle("create", ({ payload }) =>
        respond((caller) => forms.create(caller, { name: payload.name, tagIds: payload.tags, ...formFieldsOf(payload) }), toForm))
      .handle("list", ({ urlParams }) => respond((caller) => forms.list(caller, urlParams), pageOf(toForm)))
      .handle("get", ({ path }) => respond((caller) => forms.get(caller, path.form_id), toForm))
      .handle("embed", ({ path, urlParams }) =>
        respond(
          (caller) => forms.get(caller, path.form_id),
          ({ form }) => toFormEmbed(form, urlParams.locale ?? "en", publicBaseUrl)
        ))
      .handle("update", ({ path, payload }) =>
        respond(
          (caller) => forms.update(caller, path.form_id, { name: payload.name, tagIds: payload.tags, ...formFieldsOf(payload) }),
          toForm
        ))
      .handle("delete", ({ path }) => respond((caller) => forms.remove(caller, path.form_id)))))
