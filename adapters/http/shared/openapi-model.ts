/**
 * The parts of an OpenAPI 3.1 document that the finishing touches read and write, typed, and
 * the adapters that turn them into `OpenApi.Transform` annotations.
 */

export interface OpenApiMediaType {
  schema: unknown
}

export interface OpenApiHeader {
  description: string
  schema: unknown
}

/** A reference to a part of `components`, such as `#/components/headers/<name>`. */
export interface OpenApiReference {
  $ref: string
}

export interface OpenApiResponse {
  description: string
  content?: Record<string, OpenApiMediaType>
  headers?: Record<string, OpenApiHeader | OpenApiReference>
}

export interface OpenApiOperation {
  summary?: string
  description?: string
  parameters?: ReadonlyArray<unknown>
  requestBody?: unknown
  security?: ReadonlyArray<Record<string, ReadonlyArray<string>>>
  responses: Record<string, OpenApiResponse>
}

export interface OpenApiDocument {
  openapi: string
  paths: Record<string, Record<string, OpenApiOperation>>
  components: {
    schemas: Record<string, unknown>
    securitySchemes: Record<string, Record<string, unknown>>
    headers?: Record<string, OpenApiHeader>
  }
}

type Transform = (spec: Record<string, unknown>) => Record<string, unknown>

/** A change to the whole document, as an `OpenApi.Transform` of the API. */
export const documentTransform = (f: (document: OpenApiDocument) => OpenApiDocument): Transform => (spec) =>
  f(spec as unknown as OpenApiDocument) as unknown as Record<string, unknown>

/** A change to one operation, as an `OpenApi.Transform` of an endpoint. */
export const operationTransform = (f: (operation: OpenApiOperation) => OpenApiOperation): Transform => (operation) =>
  f(operation as unknown as OpenApiOperation) as unknown as Record<string, unknown>
