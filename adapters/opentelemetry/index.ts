import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { FetchHttpClient } from "@effect/platform"
import { Layer } from "effect"

export interface OtlpTracingOptions {
  /** The collector's base URL (OTEL_EXPORTER_OTLP_ENDPOINT); spans go to `/v1/traces` under it. */
  readonly endpoint: string
  /** `service.name` of every span's resource. */
  readonly serviceName: string
  /** Sent with every export, such as a collector's API key. */
  readonly headers?: Record<string, string> | undefined
}

/**
 * Effect's tracer, its spans sent to an OpenTelemetry collector over OTLP/HTTP as JSON: in
 * batches every five seconds, and the rest when the layer closes (at shutdown, waiting at most
 * three seconds). A collector that cannot be reached costs a failed export a minute, never a
 * request.
 */
export const makeOtlpTracingLive = (options: OtlpTracingOptions): Layer.Layer<never> =>
  OtlpTracer.layer({
    url: `${options.endpoint}/v1/traces`,
    resource: { serviceName: options.serviceName },
    headers: options.headers
  }).pipe(
    Layer.provide(OtlpSerialization.layerJson),
    Layer.provide(FetchHttpClient.layer)
  )
