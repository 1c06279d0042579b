/**
 * Whether an answer of the service is one its OpenAPI document declares: the operation found by
 * method and path template, the status declared for it, the content type one of the declared
 * ones, the JSON body valid against the declared schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1
 * uses it), `X-Content-Type-Options: nosniff` on every answer, and on a 405 an `Allow` that lists
 * exactly the methods the document has for the path.
 *
 * Answers to requests that name no operation are declared once for the whole document under
 * `components.responses`: `NotFound` (no path matches) and `MethodNotAllowed` (a path matches, the
 * method does not).
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"

export type WireForm = "reference" | "overview"

/** One answer of a server, as the client saw it. */
export interface Exchange {
  readonly form: WireForm
  readonly method: string
  /** The request path with its query string. */
  readonly url: string
  readonly status: number
  readonly headers: Headers
  /** The body as text; `undefined` when it could not be read (an aborted or unread stream). */
  readonly body: string | undefined
}

/** What was wrong with one answer. */
export interface Mismatch {
  readonly form: WireForm
  readonly method: string
  readonly path: string
  readonly status: number
  /**
   * What the answer was checked against: an operation (`GET /api/v1/tags/{tag_id}`), or the
   * declared answer to a request that reaches none (`no path: NotFound`).
   */
  readonly operation: string
  readonly problems: ReadonlyArray<string>
}

interface MediaType {
  readonly schema?: unknown
}

interface Response {
  readonly description?: string
  readonly content?: Record<string, MediaType>
  readonly headers?: Record<string, unknown>
  readonly $ref?: string
}

interface Operation {
  readonly responses: Record<string, Response>
}

/** The parts of an OpenAPI 3.1 document the check reads. */
export interface Document {
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: {
    readonly schemas?: Record<string, unknown>
    readonly responses?: Record<string, Response>
  }
}

const httpMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

/**
 * Paths served beside the API that are not operations of it: the interactive documentation, the
 * document itself, and the metrics endpoint (served only with a metrics token, scraped rather
 * than called).
 */
const outsideTheApi = (path: string): boolean =>
  path === "/openapi.json" || path === "/metrics" ||
  /^\/(docs|redoc|app)(\/|$)/.test(path)

/**
 * The document's own description of the overview form says that its routes, declared under `/v1`,
 * are served the same under `/api/v1`.
 */
const declaredPathOf = (form: WireForm, path: string): string =>
  form === "overview" && (path === "/api/v1" || path.startsWith("/api/v1/")) ? `/v1${path.slice("/api/v1".length)}` : path

const segmentsOf = (path: string): ReadonlyArray<string> => {
  const segments = path.split("/").slice(1)
  return segments.length > 1 && segments[segments.length - 1] === "" ? segments.slice(0, -1) : segments
}

const isParameter = (segment: string) => segment.startsWith("{") && segment.endsWith("}")

interface Template {
  readonly path: string
  readonly segments: ReadonlyArray<string>
  readonly methods: ReadonlyMap<string, Operation>
}

/** -1 when `a` is preferred: a fixed segment wins over a parameter at the first place they differ. */
const bySpecificity = (a: Template, b: Template): number => {
  for (let i = 0; i < a.segments.length; i++) {
    const [fixedA, fixedB] = [!isParameter(a.segments[i]!), !isParameter(b.segments[i]!)]
    if (fixedA !== fixedB) return fixedA ? -1 : 1
  }
  return 0
}

const mediaTypeOf = (contentType: string | null): string | undefined =>
  contentType === null ? undefined : contentType.split(";")[0]!.trim().toLowerCase()

const isJson = (mediaType: string): boolean => mediaType === "application/json" || mediaType.endsWith("+json")

const declaresMediaType = (declared: string, actual: string): boolean => {
  const wanted = declared.toLowerCase()
  if (wanted === "*/*" || wanted === actual) return true
  return wanted.endsWith("/*") && actual.startsWith(wanted.slice(0, -1))
}

const escapePointer = (part: string) => part.replaceAll("~", "~0").replaceAll("/", "~1")

/** Statuses that never carry a body. */
const bodiless = new Set([204, 304])

/**
 * The answer's body is shown this long at most in a mismatch; enough to recognise it.
 */
const shown = (text: string) => {
  const line = text.replace(/\s+/g, " ")
  return line.length > 300 ? `${line.slice(0, 300)}…` : line
}

export interface ConformanceChecker {
  readonly check: (exchange: Exchange) => Mismatch | undefined
}

/**
 * The check of a form's answers against `document`. Each schema is compiled once, when it first
 * meets an answer; the components are one schema that every compiled one refers to.
 */
export const makeConformanceChecker = (form: WireForm, document: Document): ConformanceChecker => {
  const base = `https://roster.invalid/openapi/${form}.json`
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
  addFormats(ajv)
  // The whole document under its own id, so that each schema is compiled where it stands and
  // its `#/components/...` references resolve as they do in the document.
  try {
    ajv.addSchema({ $id: base, components: document.components, paths: document.paths })
  } catch (error) {
    throw new Error(`the OpenAPI document of the ${form} form is not one JSON Schema can read: ${String(error)}`)
  }

  /** One validator per schema: a schema that only refers to a component is that component's. */
  const validators = new Map<string, ValidateFunction>()
  const validatorOf = (schema: unknown, pointer: string): ValidateFunction => {
    const ref = (schema as { $ref?: unknown }).$ref
    const target = typeof ref === "string" && ref.startsWith("#/") && Object.keys(schema as object).length === 1
      ? ref.slice(1)
      : pointer
    let validate = validators.get(target)
    if (validate === undefined) {
      validate = ajv.compile({ $ref: `${base}#${target}` })
      validators.set(target, validate)
    }
    return validate
  }

  const byLength = new Map<number, Array<Template>>()
  for (const [path, item] of Object.entries(document.paths)) {
    const methods = new Map<string, Operation>()
    for (const [method, operation] of Object.entries(item)) {
      if (httpMethods.includes(method)) methods.set(method.toUpperCase(), operation)
    }
    const template = { path, segments: segmentsOf(path), methods }
    const sameLength = byLength.get(template.segments.length) ?? []
    sameLength.push(template)
    byLength.set(template.segments.length, sameLength)
  }
  for (const sameLength of byLength.values()) sameLength.sort(bySpecificity)

  const templatesAt = (path: string): ReadonlyArray<Template> => {
    const wanted = segmentsOf(path)
    return (byLength.get(wanted.length) ?? []).filter((template) =>
      template.segments.every((segment, i) => isParameter(segment) ? wanted[i]!.length > 0 : segment === wanted[i])
    )
  }

  /** The problems of a body against the declared response `response` found at `pointer`. */
  const checkAgainst = (
    exchange: Exchange,
    response: Response,
    pointer: string,
    problems: Array<string>
  ): void => {
    const mediaType = mediaTypeOf(exchange.headers.get("content-type"))
    const body = exchange.body
    const hasBody = body !== undefined && body.length > 0
    const content = response.content ?? {}
    const declared = Object.keys(content)
    if (exchange.method === "HEAD") return
    if (declared.length === 0) {
      if (hasBody) problems.push(`answered a body (${mediaType ?? "no Content-Type"}) where the document declares none`)
      return
    }
    if (!hasBody) {
      if (body !== undefined && !bodiless.has(exchange.status)) {
        problems.push(`answered no body where the document declares ${declared.join(", ")}`)
      }
      return
    }
    if (mediaType === undefined) {
      problems.push(`answered a body without Content-Type; declared: ${declared.join(", ")}`)
      return
    }
    const match = declared.find((name) => declaresMediaType(name, mediaType))
    if (match === undefined) {
      problems.push(`answered Content-Type ${mediaType}; declared: ${declared.join(", ")}`)
      return
    }
    if (!isJson(mediaType) || content[match]!.schema === undefined) return
    let json: unknown
    try {
      json = JSON.parse(body)
    } catch {
      problems.push(`answered ${mediaType} that is not JSON: ${shown(body)}`)
      return
    }
    const validate = validatorOf(content[match]!.schema, `${pointer}/content/${escapePointer(match)}/schema`)
    if (!validate(json)) {
      const errors = (validate.errors ?? []).slice(0, 8).map((error) =>
        `${error.instancePath === "" ? "(body)" : error.instancePath} ${error.message ?? "is invalid"}` +
        (error.keyword === "additionalProperties" ? ` (${String(error.params.additionalProperty)})` : "")
      )
      problems.push(`body does not match the declared schema: ${errors.join("; ")}; body: ${shown(body)}`)
    }
  }

  /** A declared response as it stands, following a `$ref` to `components.responses`. */
  const resolved = (response: Response, pointer: string): { response: Response; pointer: string } => {
    const ref = response.$ref
    if (ref === undefined || !ref.startsWith("#/components/responses/")) return { response, pointer }
    const name = ref.slice("#/components/responses/".length)
    const target = document.components.responses?.[name]
    return target === undefined ? { response, pointer } : { response: target, pointer: `/components/responses/${escapePointer(name)}` }
  }

  const check = (exchange: Exchange): Mismatch | undefined => {
    const requestPath = exchange.url.split("?")[0]!
    // The router, like many, takes `;` as well as `?` for the start of what is not the path.
    const path = declaredPathOf(form, requestPath.split(";")[0]!)
    const problems: Array<string> = []
    if (exchange.headers.get("x-content-type-options")?.toLowerCase() !== "nosniff") {
      problems.push("answered without X-Content-Type-Options: nosniff")
    }
    let operation = "outside the API"
    if (!outsideTheApi(path)) {
      const templates = templatesAt(path)
      const method = exchange.method.toUpperCase()
      const template = templates.find((t) => t.methods.has(method)) ??
        (method === "HEAD" ? templates.find((t) => t.methods.has("GET")) : undefined)
      if (template !== undefined) {
        const found = template.methods.get(method) ?? template.methods.get("GET")!
        const operationMethod = template.methods.has(method) ? method : "GET"
        operation = `${operationMethod} ${template.path}`
        const status = String(exchange.status)
        const range = `${status[0]}XX`
        const name = found.responses[status] !== undefined
          ? status
          : found.responses[range] !== undefined
          ? range
          : found.responses.default !== undefined
          ? "default"
          : undefined
        if (name === undefined) {
          problems.push(
            `status ${status} is not declared for ${operation} (declared: ${Object.keys(found.responses).join(", ")})` +
              (exchange.body === undefined ? "" : `; body: ${shown(exchange.body)}`)
          )
        } else {
          const at = resolved(
            found.responses[name]!,
            `/paths/${escapePointer(template.path)}/${operationMethod.toLowerCase()}/responses/${escapePointer(name)}`
          )
          checkAgainst(exchange, at.response, at.pointer, problems)
        }
      } else {
        const unrouted = templates.length === 0 ? "NotFound" : "MethodNotAllowed"
        operation = templates.length === 0 ? "no path: NotFound" : `no ${method} at ${templates[0]!.path}: MethodNotAllowed`
        const expected = unrouted === "NotFound" ? 404 : 405
        const declared = document.components.responses?.[unrouted]
        if (exchange.status !== expected) {
          problems.push(
            templates.length === 0
              ? `no path of the document matches, yet the answer is ${exchange.status}, not 404`
              : `the document has no ${method} at ${templates[0]!.path}, yet the answer is ${exchange.status}, not 405`
          )
        } else if (declared === undefined) {
          problems.push(`components.responses.${unrouted} declares no answer for a ${expected}`)
        } else {
          checkAgainst(exchange, declared, `/components/responses/${unrouted}`, problems)
        }
        if (exchange.status === 405) {
          const documented = [...new Set(templatesOfBestFit(templates).flatMap((t) => [...t.methods.keys()]))].sort()
          const allow = (exchange.headers.get("allow") ?? "").split(",").map((m) => m.trim().toUpperCase()).filter((m) => m !== "")
          const sorted = [...new Set(allow)].sort()
          if (sorted.join(", ") !== documented.join(", ")) {
            problems.push(`Allow is "${allow.join(", ")}", the document has ${documented.join(", ")} at ${templates[0]!.path}`)
          }
        }
      }
    }
    return problems.length === 0
      ? undefined
      : { form, method: exchange.method, path: requestPath, status: exchange.status, operation, problems }
  }
  return { check }
}

/**
 * The templates that serve a path: those as specific as the most specific one
 * (`/subscribers/imports` rather than `/subscribers/{subscriber_id}` for `/subscribers/imports`).
 */
const templatesOfBestFit = (templates: ReadonlyArray<Template>): ReadonlyArray<Template> =>
  templates.filter((t) => bySpecificity(t, templates[0]!) === 0)

/** What a mismatch says but for the body it quotes: answers that differ only there are one finding. */
const findingOf = (m: Mismatch) =>
  [m.form, m.operation, m.status, ...m.problems.map((p) => p.replace(/; body: [\s\S]*$/, ""))].join("\u0000")

/**
 * Mismatches as paragraphs a reader can act on: the first answer of each finding in full, with
 * how many other answers had the same finding.
 */
export const describeMismatches = (mismatches: ReadonlyArray<Mismatch>): string => {
  const findings = new Map<string, { first: Mismatch; count: number }>()
  for (const m of mismatches) {
    const key = findingOf(m)
    const finding = findings.get(key)
    if (finding === undefined) findings.set(key, { first: m, count: 1 })
    else finding.count++
  }
  return [...findings.values()].map(({ first: m, count }) =>
    `${m.form}: ${m.method} ${m.path} -> ${m.status} (${m.operation})` +
    (count > 1 ? ` [and ${count - 1} more answer(s) like it]` : "") + "\n" +
    m.problems.map((p) => `    - ${p}`).join("\n")
  ).join("\n")
}
