import { type EmailTemplateSource, type RenderedTemplate, TemplateEngine } from "@roster/application"
import { InvalidInput, MAX_TEMPLATE_LENGTH } from "@roster/domain"
import { Effect, Either, Layer } from "effect"
import { Liquid, type LiquidOptions, type Template } from "liquidjs"

export { MAX_TEMPLATE_LENGTH }
/** The longest a render may take, each part, in milliseconds. */
export const MAX_RENDER_MS = 500
/** The most a rendered part may hold, in characters. */
export const MAX_RENDERED_LENGTH = 1_000_000

/** Tags that would read other templates or files: refused when a template is read. */
const fileTags = ["include", "render", "layout"] as const

const options: LiquidOptions = {
  templates: {},
  relativeReference: false,
  strictFilters: true,
  strictVariables: false,
  ownPropertyOnly: true,
  parseLimit: MAX_TEMPLATE_LENGTH,
  renderLimit: MAX_RENDER_MS,
  memoryLimit: 10_000_000
}

const makeEngine = (escape: boolean) => {
  const engine = new Liquid({ ...options, ...(escape ? { outputEscape: "escape" as const } : {}) })
  for (const tag of fileTags) {
    engine.registerTag(tag, {
      parse() {
        throw new Error(`the \`${tag}\` tag is not allowed: a template reaches nothing but its own variables`)
      },
      render() {
        return ""
      }
    })
  }
  return engine
}

type Part = "subject" | "html" | "text"

/** A liquidjs message, which already says the line and column, without its internals' wording. */
const problemOf = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/^undefined filter:/, "unknown filter:").slice(0, 300)
}

/** The variable at `path` in `scope`, as a template reads it. */
const valueAt = (scope: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>(
    (value, key) => typeof value === "object" && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined,
    scope
  )

const isEmpty = (value: unknown) => value === undefined || value === null || value === ""

/**
 * Liquid (liquidjs) with an empty in-memory file system, `include`, `render` and `layout` refused,
 * unknown filters refused, own properties only, and limits on template size, render time and
 * memory; rendered parts longer than {@link MAX_RENDERED_LENGTH} are refused.
 */
/** Parsed templates kept at most; the cache starts afresh past it. */
const PARSED_CACHE_SIZE = 256

export const LiquidTemplateEngineLive = Layer.sync(TemplateEngine, () => {
  const plain = makeEngine(false)
  const escaping = makeEngine(true)
  const engineFor = (part: Part) => part === "html" ? escaping : plain

  /**
   * Parsed templates by part and source, with the variables they read: a campaign renders one
   * template for every recipient, and parsing and reading it are most of a render's work.
   */
  const parsed = new Map<string, { readonly templates: Array<Template>; readonly variables: ReadonlyArray<string> }>()

  const parse = (part: Part, source: string) =>
    Effect.suspend(() => {
      const key = `${part}\u0000${source}`
      const cached = parsed.get(key)
      if (cached !== undefined) return Effect.succeed(cached)
      return Effect.try({
        try: () => {
          const templates = engineFor(part).parse(source)
          const globals = new Set(plain.globalVariablesSync(templates))
          const variables = plain.fullVariablesSync(templates).filter((v) => globals.has(v.split(".")[0]!))
          if (parsed.size >= PARSED_CACHE_SIZE) parsed.clear()
          const entry = { templates, variables }
          parsed.set(key, entry)
          return entry
        },
        catch: (error) => new InvalidInput({ field: part, problem: problemOf(error) })
      })
    })

  const partsOf = (source: EmailTemplateSource) =>
    ([["subject", source.subject], ["html", source.html], ["text", source.text]] as const).filter(
      (entry): entry is readonly [Part, string] => entry[1] !== null
    )

  type Parsed = ReadonlyArray<readonly [Part, { readonly templates: Array<Template>; readonly variables: ReadonlyArray<string> }]>

  const parseAll = (source: EmailTemplateSource): Effect.Effect<Parsed, InvalidInput> =>
    Effect.forEach(partsOf(source), ([part, text]) => Effect.map(parse(part, text), (parsed) => [part, parsed] as const))

  /** One render of parsed parts, without the runtime: a batch renders in a plain loop. */
  const renderParsed = (parts: Parsed, scope: Readonly<Record<string, unknown>>): Either.Either<RenderedTemplate, InvalidInput> => {
    const rendered: Record<Part, string | null> = { subject: "", html: null, text: null }
    const empty = new Set<string>()
    for (const [part, { templates, variables }] of parts) {
      for (const variable of variables) if (isEmpty(valueAt(scope, variable))) empty.add(variable)
      let output: string
      try {
        output = String(engineFor(part).renderSync(templates, scope))
      } catch (error) {
        return Either.left(new InvalidInput({ field: part, problem: `could not be rendered: ${problemOf(error)}` }))
      }
      if (output.length > MAX_RENDERED_LENGTH) {
        return Either.left(new InvalidInput({ field: part, problem: `renders more than ${MAX_RENDERED_LENGTH} characters` }))
      }
      rendered[part] = output
    }
    return Either.right({
      subject: (rendered.subject ?? "").trim(),
      html: rendered.html,
      text: rendered.text,
      emptyVariables: [...empty].sort()
    })
  }

  const check = (source: EmailTemplateSource) => Effect.asVoid(parseAll(source))

  const render = (source: EmailTemplateSource, scope: Readonly<Record<string, unknown>>) =>
    Effect.flatMap(parseAll(source), (parts) => renderParsed(parts, scope))

  const renderEach = (source: EmailTemplateSource, scopes: ReadonlyArray<Readonly<Record<string, unknown>>>) =>
    Effect.map(parseAll(source), (parts) => scopes.map((scope) => renderParsed(parts, scope)))

  return TemplateEngine.of({ check, render, renderEach })
})
