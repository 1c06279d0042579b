import { HttpApiBuilder } from "@effect/platform"
import { healthReport, readinessReport } from "../probes.js"
import { OverviewApi } from "./api.js"

export const ProbesHandlersLive = HttpApiBuilder.group(OverviewApi, "probes", (handlers) =>
  handlers
    .handle("health", () => healthReport)
    .handle("ready", () => readinessReport))
