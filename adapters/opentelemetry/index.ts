import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { FetchHttpClient } from "@effect/platform"
import { Effect, Layer, Tracer } from "effect"

export interface OtlpTracingOptions {
  /** The collector's base URL (OTEL_EXPORTER_OTLP_ENDPOINT); spans go to `/v1/traces` under it. */
  readonly endpoint: string
  /** `service.name` of every span's resource. */
  readonly serviceName: string
  /** Sent with every export, such as a collector's API key. */
  readonly headers?: Record<string, string> | undefined
  /** What a span attribute's value becomes before it is kept; `undefined` leaves the attribute out. */
  readonly attribute?: ((key: string, value: unknown) => unknown) | undefined
}

/** `tracer`, its spans' attributes passed through `rewrite` first. */
const rewritingAttributes = (tracer: Tracer.Tracer, rewrite: (key: string, value: unknown) => unknown): Tracer.Tracer =>
  Tracer.make({
    span: (...args) => {
      const span = tracer.span(...args)
      const attribute = span.attribute
      span.attribute = function(key, value) {
        const kept = rewrite(key, value)
        if (kept !== undefined) attribute.call(this, key, kept)
      }
      return span
    },
    context: tracer.context
  })

/**
 * Effect's tracer, its spans sent to an OpenTelemetry collector over OTLP/HTTP as JSON: in
 * batches every five seconds, and the rest when the layer closes (at shutdown, waiting at most
 * three seconds). When the collector cannot be reached, the spans of the next minute are dropped;
 * requests never wait for it.
 */
export const makeOtlpTracingLive = (options: OtlpTracingOptions): Layer.Layer<never> =>
  Layer.unwrapScoped(Effect.map(
    OtlpTracer.make({
      url: `${options.endpoint}/v1/traces`,
      resource: { serviceName: options.serviceName },
      headers: options.headers
    }),
    (tracer) => Layer.setTracer(options.attribute === undefined ? tracer : rewritingAttributes(tracer, options.attribute))
  )).pipe(
    Layer.provide(OtlpSerialization.layerJson),
    Layer.provide(FetchHttpClient.layer)
  )
