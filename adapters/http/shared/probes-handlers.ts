import { type HttpApi, HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { healthReport, type ProbesGroup, readinessReport } from "./probes.js"

/** Liveness and readiness, the same in every form. */
// The API's own errors and requirements do not matter to these handlers; any API with the group will do.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const makeProbesHandlersLive = <ApiId extends string>(api: HttpApi.HttpApi<ApiId, HttpApiGroup.HttpApiGroup.Any, any, any>) =>
  HttpApiBuilder.group(api as unknown as HttpApi.HttpApi<ApiId, typeof ProbesGroup>, "probes", (handlers) =>
    handlers
      .handle("health", () => healthReport)
      .handle("ready", () => readinessReport))
