/**
 * Liquid for the templates customers write: read and rendered the same way in the process (to
 * check a template) and in the render threads (to render it). Plain JavaScript, so that a thread
 * loads it as it is, from the sources or from `dist/`; customer-liquid.d.mts gives its types.
 */
import { Filter, Liquid, Output, Tag, TokenKind } from "liquidjs"

/** Tags that would read other templates or files: refused when a template is read. */
const fileTags = ["include", "render", "layout"]

/** A template's parts, in the order they render; a render's steps are counted in this order. */
export const PARTS = ["subject", "html", "text"]

/** Parsed templates kept at most; the cache starts afresh past it. */
const PARSED_CACHE_SIZE = 256

/**
 * The tags of a template that may render in the process: none repeats a part of the template, so
 * each of its nodes renders at most once.
 */
const LINEAR_TAGS = new Set(["if", "unless", "case", "assign", "capture", "echo", "liquid", "raw", "comment", "#", "increment", "decrement"])

/**
 * The filters of a template that may render in the process: each does work in proportion to what
 * it counts against the work limit (liquidjs's `memoryLimit`), or a fixed amount (numbers, a
 * size, a default), and makes no more than that. Filters over lists (`sort`, `where`, `map`, ...)
 * and those that count nothing yet may make a longer string (`url_encode`, `join`, ...) are not
 * among them.
 */
const LINEAR_FILTERS = new Set([
  "append", "prepend", "capitalize", "downcase", "upcase", "strip", "lstrip", "rstrip", "squish",
  "normalize_whitespace", "strip_newlines", "newline_to_br", "strip_html", "escape", "escape_once",
  "xml_escape", "remove", "remove_first", "remove_last", "replace", "replace_first", "replace_last",
  "truncate", "truncatewords", "slice", "split", "number_of_words", "base64_encode", "base64_decode",
  "date", "date_to_xmlschema", "date_to_rfc822", "date_to_string", "date_to_long_string",
  "abs", "at_least", "at_most", "ceil", "floor", "round", "plus", "minus", "times", "divided_by",
  "modulo", "to_integer", "default", "size", "first", "last"
])

/**
 * Whether parsed templates render in time and memory in proportion to their length and the work
 * limit: no tag repeats a part, and every filter is among {@link LINEAR_FILTERS} (or is the
 * `escape` of an escaping engine's outputs). Walks what
 * liquidjs parsed (tags hold their branches and values in fields of their own), not the engine.
 */
const isLinear = (templates) => {
  const seen = new Set()
  const pending = [templates]
  while (pending.length > 0) {
    const node = pending.pop()
    if (typeof node !== "object" || node === null || seen.has(node)) continue
    seen.add(node)
    if (node instanceof Tag && !LINEAR_TAGS.has(node.name)) return false
    // The escape an escaping engine adds to each output is named by its source text.
    if (node instanceof Filter && !LINEAR_FILTERS.has(node.name) && node.handler !== node.liquid.options.outputEscape) return false
    for (const [key, value] of Object.entries(node)) {
      if (key !== "liquid" && key !== "token" && key !== "tokenizer" && typeof value === "object") pending.push(value)
    }
  }
  return true
}

/** Names liquidjs reads otherwise than as a property (a list's or a string's size, first and last elements). */
const SPECIAL_KEYS = new Set(["size", "first", "last"])

/**
 * A template that is text and plain variables (`Hi {{ subscriber.first_name }}`, no filter, no
 * tag): its pieces, each a string of text or the keys of a variable, or null for any other
 * template. Most email templates are such, and {@link renderPlain} renders them without liquidjs's
 * machinery, which is most of a render's work.
 */
const plainPieces = (templates, escaping) => {
  const pieces = []
  for (const node of templates) {
    if (node.token?.kind === TokenKind.HTML && typeof node.str === "string") {
      pieces.push(node.str)
      continue
    }
    if (!(node instanceof Output)) return null
    const { initial, filters } = node.value
    // An escaping engine adds its escape to each output; a plain one adds nothing.
    if (filters.length !== (escaping ? 1 : 0)) return null
    if (escaping && filters[0].handler !== filters[0].liquid.options.outputEscape) return null
    if (initial.postfix.length !== 1) return null
    const [token] = initial.postfix
    if (token.kind !== TokenKind.PropertyAccess || token.variable !== undefined || token.props.length === 0) return null
    const keys = []
    for (const prop of token.props) {
      if ((prop.kind !== TokenKind.Word && prop.kind !== TokenKind.Quoted) || typeof prop.content !== "string") return null
      if (SPECIAL_KEYS.has(prop.content)) return null
      keys.push(prop.content)
    }
    pieces.push(keys)
  }
  return pieces
}

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&#34;", "'": "&#39;" }
const escapeHtml = (text) => text.replace(/&|<|>|"|'/g, (character) => ESCAPES[character])

const isPlainObject = (value) => {
  if (typeof value !== "object" || value === null) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * A plain template rendered as liquidjs renders it, or undefined where liquidjs would do something
 * this does not (a variable through a list, a string or anything but plain objects, a value other
 * than a string, number, boolean or nothing), or where the values' escaping passes the work limit
 * (liquidjs counts each escaped value): the caller then renders it with liquidjs. Variables are
 * read as liquidjs reads them with `ownPropertyOnly`: own properties, nothing past a missing one.
 */
const renderPlain = (pieces, scope, escaping, workLimit) => {
  let output = ""
  let work = 0
  for (const piece of pieces) {
    if (typeof piece === "string") {
      output += piece
      continue
    }
    let value = scope
    for (const key of piece) {
      if (value === undefined || value === null) break
      if (!isPlainObject(value)) return undefined
      value = Object.hasOwn(value, key) ? value[key] : undefined
    }
    let text
    if (typeof value === "string") text = value
    else if (value === undefined || value === null) text = ""
    else if (typeof value === "number" || typeof value === "boolean") text = String(value)
    else return undefined
    if (escaping) {
      work += text.length
      if (work > workLimit) return undefined
      text = escapeHtml(text)
    }
    output += text
  }
  return output
}

const makeEngine = (limits, escape) => {
  const engine = new Liquid({
    templates: {},
    relativeReference: false,
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
    parseLimit: limits.templateLength,
    renderLimit: limits.renderMs,
    memoryLimit: limits.renderWork,
    ...(escape ? { outputEscape: "escape" } : {})
  })
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

/** The variable at `path` in `scope`, as a template reads it. */
const valueAt = (scope, path) =>
  path.split(".").reduce(
    (value, key) => typeof value === "object" && value !== null && Object.hasOwn(value, key) ? value[key] : undefined,
    scope
  )

/** Whether liquidjs stopped a render for its time limit. */
const isOvertime = (error) => error instanceof Error && error.message.startsWith("template render limit exceeded")

const isEmpty = (value) => value === undefined || value === null || value === ""

/**
 * Liquid (liquidjs) with an empty in-memory file system, `include`, `render` and `layout`
 * refused, unknown filters refused, own properties only, and liquidjs's limits on template size,
 * render time (checked between a template's nodes) and the work of ranges and filters (elements
 * and characters made); rendered parts longer than `limits.renderedLength` are refused.
 */
export const makeCustomerLiquid = (limits) => {
  const plain = makeEngine(limits, false)
  const escaping = makeEngine(limits, true)
  const engineFor = (part) => part === "html" ? escaping : plain

  /** liquidjs's message, which already says the line and column, in words that name our limits. */
  const problemOf = (error) => {
    const message = error instanceof Error ? error.message : String(error)
    return message
      .replace(/^undefined filter:/, "unknown filter:")
      .replace(/^template render limit exceeded/, `takes longer than ${limits.renderMs} ms`)
      .replace(
        /^memory alloc limit exceeded/,
        `makes more than ${limits.renderWork} elements and characters with ranges and filters`
      )
      .slice(0, 300)
  }

  /**
   * Parsed templates by part and source, with the variables they read: a campaign renders one
   * template for every recipient, and parsing and reading it are most of a render's work.
   */
  const parsed = new Map()

  const parse = (part, source) => {
    const key = `${part}\u0000${source}`
    const cached = parsed.get(key)
    if (cached !== undefined) return cached
    const templates = engineFor(part).parse(source)
    const globals = new Set(plain.globalVariablesSync(templates))
    const variables = plain.fullVariablesSync(templates).filter((v) => globals.has(v.split(".")[0]))
    if (parsed.size >= PARSED_CACHE_SIZE) parsed.clear()
    const entry = { templates, variables, linear: isLinear(templates), plain: plainPieces(templates, part === "html") }
    parsed.set(key, entry)
    return entry
  }

  const partsOf = (source) => PARTS.filter((part) => source[part] !== null && source[part] !== undefined)

  const parseAll = (source, onPart) => {
    const parts = []
    for (const part of partsOf(source)) {
      onPart?.(part)
      try {
        parts.push([part, parse(part, source[part])])
      } catch (error) {
        return { ok: false, field: part, problem: problemOf(error) }
      }
    }
    return { ok: true, parts }
  }

  const renderParsed = (parts, scope, onPart, renderMs) => {
    const rendered = { subject: "", html: null, text: null }
    const empty = new Set()
    for (const [part, { templates, variables, plain }] of parts) {
      onPart?.(part)
      for (const variable of variables) if (isEmpty(valueAt(scope, variable))) empty.add(variable)
      let output = plain === null ? undefined : renderPlain(plain, scope, part === "html", limits.renderWork)
      if (output === undefined) try {
        output = String(engineFor(part).renderSync(templates, scope, renderMs === undefined ? undefined : { renderLimit: renderMs }))
      } catch (error) {
        if (renderMs !== undefined && isOvertime(error)) return { ok: false, field: part, problem: "", overtime: true }
        return { ok: false, field: part, problem: `could not be rendered: ${problemOf(error)}` }
      }
      if (output.length > limits.renderedLength) {
        return { ok: false, field: part, problem: `renders more than ${limits.renderedLength} characters` }
      }
      rendered[part] = output
    }
    return {
      ok: true,
      value: {
        subject: (rendered.subject ?? "").trim(),
        html: rendered.html,
        text: rendered.text,
        emptyVariables: [...empty].sort()
      }
    }
  }

  /** Whether the template can be read; the first part that cannot, and why. */
  const check = (source) => {
    const result = parseAll(source)
    return result.ok ? { ok: true } : result
  }

  /** The template rendered for each scope, in order; `onStep(i, part)` before each part of each. */
  const renderEach = (source, scopes, onStep) => {
    const read = parseAll(source, (part) => onStep?.(0, part))
    if (!read.ok) return { parseProblem: { field: read.field, problem: read.problem } }
    return { results: scopes.map((scope, i) => renderParsed(read.parts, scope, (part) => onStep?.(i, part))) }
  }

  /**
   * The template read once for renders in the process, or the part that cannot be read. `linear()`
   * says whether it may render in the process (see {@link isLinear}) and `render(scope, renderMs)`
   * renders it with a time limit of `renderMs` for each part. A part past it is rendered once more
   * at once: the process may have stalled (another program on the CPU, a garbage collection). A
   * part past it again answers `overtime` (and no result), and the template is no longer linear
   * from then on.
   */
  const prepare = (source) => {
    const read = parseAll(source)
    if (!read.ok) return { parseProblem: { field: read.field, problem: read.problem } }
    const entries = read.parts.map(([, entry]) => entry)
    return {
      linear: () => entries.every((entry) => entry.linear),
      render: (scope, renderMs) => {
        const result = renderParsed(read.parts, scope, undefined, renderMs)
        if (result.overtime !== true) return result
        const again = renderParsed(read.parts, scope, undefined, renderMs)
        if (again.overtime === true) for (const entry of entries) entry.linear = false
        return again
      }
    }
  }

  /**
   * What an editor shows of a template: each part that cannot be read, with the line and column
   * liquidjs names (not in the words of the problem), and the variables the parts that can be
   * read use, in the order they first appear.
   */
  const inspect = (source) => {
    const problems = []
    const variables = new Set()
    for (const part of partsOf(source)) {
      try {
        for (const variable of parse(part, source[part]).variables) variables.add(variable)
      } catch (error) {
        const position = typeof error?.token?.getPosition === "function" ? error.token.getPosition() : null
        problems.push({
          field: part,
          problem: problemOf(error).replace(/, line:\d+, col:\d+$/, ""),
          line: position === null ? null : position[0],
          column: position === null ? null : position[1]
        })
      }
    }
    return { problems, variables: [...variables] }
  }

  return { check, inspect, renderEach, prepare }
}

/*
 * A render's progress, shared by a render thread (which writes it) and the process (which reads it
 * to stop a render that runs too long): one 64-bit slot holding the step under way (one more than
 * render × 3 + part, 0 before the first) and when it began, in milliseconds after `base`. One
 * slot, written and read atomically, so the two always belong together.
 */

const TIME_BITS = 40n
const TIME_MASK = (1n << TIME_BITS) - 1n

/** A slot for {@link markStep} and {@link readStep}. */
export const progressSlot = () => new BigInt64Array(new SharedArrayBuffer(8))

/** Says that part `part` of render `index` begins now. */
export const markStep = (slot, base, index, part) => {
  const step = BigInt(index * PARTS.length + PARTS.indexOf(part) + 1)
  const at = BigInt(Math.max(0, Date.now() - base)) & TIME_MASK
  Atomics.store(slot, 0, (step << TIME_BITS) | at)
}

/** The step under way and when it began (after `base`), or null before the first. */
export const readStep = (slot, base) => {
  const packed = Atomics.load(slot, 0)
  if (packed === 0n) return null
  const step = Number(packed >> TIME_BITS) - 1
  return {
    index: Math.floor(step / PARTS.length),
    part: PARTS[step % PARTS.length],
    startedAt: base + Number(packed & TIME_MASK)
  }
}
