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
    responses?: Record<string, OpenApiResponse>
  }
}

type Transform = (spec: Record<string, unknown>) => Record<string, unknown>

/** A change to the whole document, as an `OpenApi.Transform` of the API. */
export const documentTransform = (f: (document: OpenApiDocument) => OpenApiDocument): Transform => (spec) =>
  f(spec as unknown as OpenApiDocument) as unknown as Record<string, unknown>

/** A change to one operation, as an `OpenApi.Transform` of an endpoint. */
export const operationTransform = (f: (operation: OpenApiOperation) => OpenApiOperation): Transform => (operation) =>
  f(operation as unknown as OpenApiOperation) as unknown as Record<string, unknown>

/**
 * Takes out the `$id` the generator gives schemas such as `unknown` (`/schemas/unknown`) wherever
 * they stand: one identifier on several schemas makes the document unreadable to a JSON Schema
 * validator, and the schema says nothing more with it.
 */
export const dropGeneratedIds = (document: OpenApiDocument): void => {
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit)
    if (typeof value !== "object" || value === null) return
    const node = value as Record<string, unknown>
    if (typeof node.$id === "string" && node.$id.startsWith("/schemas/")) delete node.$id
    for (const child of Object.values(node)) visit(child)
  }
  visit(document.paths)
  visit(document.components)
}

export interface UnroutedAnswers {
  /** The content type of the form's error bodies. */
  readonly contentType: string
  /** The names under `components.schemas` of the form's `not_found` and `method_not_allowed` bodies. */
  readonly notFound: string
  readonly methodNotAllowed: string
}

/**
 * Declares the answers to requests that reach no operation, once for the whole document under
 * `components.responses`: `NotFound` when no path matches, `MethodNotAllowed` (with `Allow`) when
 * a path matches and the method does not.
 */
export const declareUnroutedAnswers = (document: OpenApiDocument, answers: UnroutedAnswers): void => {
  const body = (name: string) => ({ [answers.contentType]: { schema: { $ref: `#/components/schemas/${name}` } } })
  document.components.responses = {
    ...document.components.responses,
    NotFound: {
      description: "Resource Not Found (`not_found`): the answer to any path that names no operation of this document.",
      content: body(answers.notFound)
    },
    MethodNotAllowed: {
      description: "Method Not Allowed (`method_not_allowed`): the answer to a path of this document with a method " +
        "it has no operation for.",
      headers: {
        Allow: {
          description: "the methods this document has operations for at the path, separated by commas",
          schema: { type: "string" }
        }
      },
      content: body(answers.methodNotAllowed)
    }
  }
}

const page = { "text/html": { schema: { type: "string" } } }

/**
 * Declares that an operation answers HTML pages with these statuses (each with what the page
 * says), beside whatever else it answers with them: the preference center and unsubscribe pages.
 */
export const pageAnswers = (pages: Readonly<Record<number, string>>) =>
  operationTransform((operation) => {
    for (const [status, description] of Object.entries(pages)) {
      const response = operation.responses[status]
      operation.responses[status] = response === undefined
        ? { description, content: page }
        : { ...response, description: `${response.description} | ${description}`, content: { ...response.content, ...page } }
    }
    return operation
  })

/** Declares the form (`application/x-www-form-urlencoded`) an operation takes, as browsers and mail clients post it. */
export const formBody = (schema: unknown) =>
  operationTransform((operation) => ({
    ...operation,
    requestBody: { required: false, content: { "application/x-www-form-urlencoded": { schema } } }
  }))

/** Applies transforms of an operation one after another. */
export const allOf = (...transforms: ReadonlyArray<Transform>): Transform => (operation) =>
  transforms.reduce((done, transform) => transform(done), operation)
