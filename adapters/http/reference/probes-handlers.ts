import { HttpApiBuilder } from "@effect/platform"
import { healthReport, readinessReport } from "../probes.js"
import { ReferenceApi } from "./api.js"

export const ProbesHandlersLive = HttpApiBuilder.group(ReferenceApi, "probes", (handlers) =>
  handlers
    .handle("health", () => healthReport)
    .handle("ready", () => readinessReport))
