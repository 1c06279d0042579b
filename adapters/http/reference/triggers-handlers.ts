import { HttpApiBuilder } from "@effect/platform"
import { Triggers } from "@roster/application"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { toNewTrigger, toTriggerChanges, toTriggerView } from "../shared/trigger-schemas.js"
import { ReferenceApi } from "./api.js"
import { pageOf } from "./pagination.js"

export const TriggersHandlersLive = HttpApiBuilder.group(ReferenceApi, "triggers", (handlers) =>
  Effect.map(Triggers, (triggers) =>
    handlers
      .handle("create", ({ payload }) => respond((caller) => triggers.create(caller, toNewTrigger(payload)), toTriggerView))
      .handle("list", ({ urlParams }) =>
        respond((caller) => triggers.list(caller, urlParams), pageOf(toTriggerView)))
      .handle("get", ({ path }) => respond((caller) => triggers.get(caller, path.trigger_id), toTriggerView))
      .handle("update", ({ path, payload }) =>
        respond((caller) => triggers.update(caller, path.trigger_id, toTriggerChanges(payload)), toTriggerView))
      .handle("delete", ({ path }) => respond((caller) => triggers.remove(caller, path.trigger_id)))))
