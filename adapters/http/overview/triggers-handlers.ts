import { HttpApiBuilder } from "@effect/platform"
import { Triggers } from "@roster/application"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { toNewTrigger, toTriggerChanges, toTriggerView } from "../shared/trigger-schemas.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf, pageRequestOf } from "./pages.js"

const view = (record: Parameters<typeof toTriggerView>[0]) => dataOf(toTriggerView(record))

export const TriggersHandlersLive = HttpApiBuilder.group(OverviewApi, "triggers", (handlers) =>
  Effect.map(Triggers, (triggers) =>
    handlers
      .handle("list", ({ urlParams }) =>
        respond((caller) => triggers.listPage(caller, pageRequestOf(urlParams)), (page) => listOf(page, toTriggerView)))
      .handle("create", ({ payload }) => respond((caller) => triggers.create(caller, toNewTrigger(payload)), view))
      .handle("get", ({ path }) => respond((caller) => triggers.get(caller, path.id), view))
      .handle("update", ({ path, payload }) =>
        respond((caller) => triggers.update(caller, path.id, toTriggerChanges(payload)), view))
      .handle("delete", ({ path }) => respond((caller) => triggers.remove(caller, path.id)))))
