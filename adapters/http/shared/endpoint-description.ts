import type { ErrorCode } from "./error-catalog.js"

/**
 * What every wire form says of one endpoint: its summary and description in the API's
 * description, and the errors it can answer beyond those of its group: the codes its use case
 * fails with and those of its body (`BODY_ERRORS`, `POST_ERRORS`). A form declares the endpoint
 * with it (`problems.describe(...)`, `envelopes.describe(...)`), so that its handler is checked
 * against exactly these errors; a form whose words differ gives its own `description`.
 */
export interface EndpointDescription<Codes extends ReadonlyArray<ErrorCode> = ReadonlyArray<ErrorCode>> {
  readonly summary: string
  readonly description?: string | undefined
  readonly errors: Codes
}

/** An endpoint's description, its errors kept as the codes they are. */
export const endpointDescription = <const Codes extends ReadonlyArray<ErrorCode>>(
  description: EndpointDescription<Codes>
): EndpointDescription<Codes> => description

/** An endpoint whose method, path and payload are the same in every wire form, with its description. */
export interface SharedEndpoint<Endpoint, Codes extends ReadonlyArray<ErrorCode> = ReadonlyArray<ErrorCode>>
  extends EndpointDescription<Codes>
{
  /** The endpoint without its success: each form answers in its own envelope. */
  readonly endpoint: Endpoint
}

/** A shared endpoint, its errors kept as the codes they are. */
export const sharedEndpoint = <Endpoint, const Codes extends ReadonlyArray<ErrorCode>>(
  shared: SharedEndpoint<Endpoint, Codes>
): SharedEndpoint<Endpoint, Codes> => shared
