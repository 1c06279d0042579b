import type { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { describe, expect, it } from "vitest"
import { TagsGroup } from "../../adapters/http/overview/tags-group.js"
import { apiError } from "../../adapters/http/shared/api-error.js"
import { documentOf } from "../support/openapi-documents.js"
import type { Document, WireForm } from "../support/openapi-conformance.js"

/**
 * Each endpoint's errors are declared once and both wire forms list them: an operation of the
 * overview form names only the errors its use case and its body can give, as the reference form
 * does, each in its own body.
 */

interface Schema {
  readonly $ref?: string
  readonly anyOf?: ReadonlyArray<Schema>
  readonly description?: string
}

/** The error codes an operation lists, read from its error bodies' descriptions (`Conflict (\`conflict\`): ...`). */
const errorCodesOf = (document: Document, method: string, path: string): ReadonlyArray<string> => {
  const operation = document.paths[path]?.[method]
  if (operation === undefined) throw new Error(`no operation ${method} ${path}`)
  const schemas = (document.components.schemas ?? {}) as Record<string, Schema>
  const codes = Object.entries(operation.responses)
    .filter(([status]) => Number(status) >= 400)
    .flatMap(([, response]) => Object.entries(response.content ?? {}))
    .filter(([mediaType]) => mediaType.endsWith("json"))
    .flatMap(([, media]) => {
      const schema = media.schema as Schema
      return schema.anyOf ?? [schema]
    })
    .map(({ $ref }) => /\(`(\w+)`\)/.exec(schemas[$ref?.split("/").pop() ?? ""]?.description ?? "")?.[1] ?? `unknown ${$ref}`)
  return [...new Set(codes)].sort()
}

/** Every operation of a document by its id (`tags.get`), with its method and path. */
const operationsOf = (document: Document) =>
  new Map(
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => [
        (operation as { operationId?: string }).operationId ?? `${method} ${path}`,
        { method, path }
      ] as const)
    )
  )

/** What a handler of the endpoint `Name` of `Group` may fail with: its own errors and its group's. */
type MayFailWith<Group extends HttpApiGroup.HttpApiGroup.Any, Name extends string> =
  | HttpApiEndpoint.HttpApiEndpoint.ErrorWithName<HttpApiGroup.HttpApiGroup.Endpoints<Group>, Name>
  | HttpApiGroup.HttpApiGroup.Error<Group>

const documents = { reference: documentOf("reference"), overview: documentOf("overview") } satisfies Record<WireForm, Document>

describe("the errors each operation lists", () => {
  it("are the same in both forms for every operation they share", () => {
    const reference = operationsOf(documents.reference)
    const overview = operationsOf(documents.overview)
    const shared = [...reference.keys()].filter((id) => overview.has(id))
    expect(shared.length).toBeGreaterThan(80)
    const differences = shared.flatMap((id) => {
      const inReference = errorCodesOf(documents.reference, reference.get(id)!.method, reference.get(id)!.path)
      // The overview form keeps a 400 on operations that read no input, where the reference form drops it.
      const inOverview = errorCodesOf(documents.overview, overview.get(id)!.method, overview.get(id)!.path)
        .filter((code) => code !== "validation_error" || inReference.includes(code))
      return JSON.stringify(inReference) === JSON.stringify(inOverview) ? [] : [{ id, inReference, inOverview }]
    })
    expect(differences).toEqual([])
  })

  it("are, in the overview form, only those the operation can answer, and its handler may fail with no other", () => {
    const notFound: MayFailWith<typeof TagsGroup, "get"> = apiError("not_found", "no tag 0192f3a4-0000-7000-8000-000000000000")
    // @ts-expect-error getting a tag never answers `conflict`, so a handler that could does not compile
    const conflict: MayFailWith<typeof TagsGroup, "get"> = apiError("conflict", "a tag with name 'news' already exists")
    expect([notFound.code, conflict.code]).toEqual(["not_found", "conflict"])
    expect(errorCodesOf(documents.overview, "get", "/v1/tags/{id}")).toEqual([
      "forbidden",
      "internal_error",
      "not_found",
      "rate_limited",
      "service_unavailable",
      "unauthorized",
      "validation_error"
    ])
    expect(errorCodesOf(documents.overview, "post", "/v1/tags")).toEqual([
      "conflict",
      "forbidden",
      "idempotency_key_reused",
      "idempotency_request_in_progress",
      "internal_error",
      "payload_too_large",
      "rate_limited",
      "service_unavailable",
      "tag_limit_reached",
      "unauthorized",
      "unsupported_media_type",
      "validation_error"
    ])
    expect(errorCodesOf(documents.overview, "get", "/v1/billing/subscription")).toContain("billing_disabled")
    expect(errorCodesOf(documents.overview, "get", "/v1/billing/subscription")).not.toContain("payment_provider_error")
  })
})
