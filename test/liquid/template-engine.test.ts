import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { type EmailTemplateSource, TemplateEngine } from "@roster/application"
import { InvalidInput } from "@roster/domain"
import { Effect, Either } from "effect"
import fc from "fast-check"
import { Liquid } from "liquidjs"
import { readdirSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"
import { makeCustomerLiquid } from "../../adapters/liquid/customer-liquid.mjs"
import {
  LiquidTemplateEngineLive,
  makeLiquidTemplateEngine,
  MAX_RENDER_WORK,
  MAX_RENDERED_LENGTH
} from "../../adapters/liquid/index.js"

const template = (fields: Partial<EmailTemplateSource>): EmailTemplateSource => ({ subject: "Hello", html: null, text: null, ...fields })

const refusal = <A>(effect: Effect.Effect<A, InvalidInput, TemplateEngine>) =>
  Effect.flatMap(Effect.either(effect), (result) => {
    if (Either.isRight(result)) return Effect.dieMessage("expected the template to be refused")
    expect(result.left).toBeInstanceOf(InvalidInput)
    return Effect.succeed(result.left)
  })

/** A template whose one filter, `sort`, works a long while on a list a range made. */
const runaway = "{% assign r = (1..3000000) %}{{ r | sort | size }}"

/**
 * The work limit lifted and the time limit short, so that only the render thread's time limit
 * stops the runaway template, on a fast machine as on a slow one.
 */
const timeLimitOnly = { renderWork: 1_000_000_000, renderMs: 50 } as const

const scope = {
  subscriber: { email: "ada@example.com", first_name: "Ada", last_name: null, tags: [{ name: "Weekly" }] },
  organization: { name: "Acme <News>" },
  data: { order: "A-17" }
}

describe("email templates (Liquid)", () => {
  it.effect("renders every part; values are escaped in the HTML body only", () =>
    Effect.gen(function*() {
      const engine = yield* TemplateEngine
      const rendered = yield* engine.render(template({
        subject: " Order {{ data.order }} for {{ subscriber.first_name }} ",
        html: "<p>{{ organization.name }}: {% for tag in subscriber.tags %}{{ tag.name }}{% endfor %}</p>",
        text: "{{ organization.name }}"
      }), scope)
      expect(rendered).toEqual({
        subject: "Order A-17 for Ada",
        html: "<p>Acme &lt;News&gt;: Weekly</p>",
        text: "Acme <News>",
        emptyVariables: []
      })
    }).pipe(Effect.provide(LiquidTemplateEngineLive)))

  it.effect("reports the variables that rendered empty, not the loop's own", () =>
    Effect.gen(function*() {
      const engine = yield* TemplateEngine
      const rendered = yield* engine.render(template({
        subject: "Hi {{ subscriber.last_name }}",
        text: "{{ data.coupon }} {{ subscriber.first_name }} {% for tag in subscriber.tags %}{{ tag.name }}{% endfor %}"
      }), scope)
      expect(rendered.emptyVariables).toEqual(["data.coupon", "subscriber.last_name"])
    }).pipe(Effect.provide(LiquidTemplateEngineLive)))

  it.effect("refuses include, render and layout, naming the part, the tag, the line and the column", () =>
    Effect.gen(function*() {
      const engine = yield* TemplateEngine
      for (const tag of ["include", "render", "layout"]) {
        const refused = yield* refusal(engine.check(template({ html: `<p>Hi</p>\n  {% ${tag} 'secrets' %}` })))
        expect(refused.field).toBe("html")
        expect(refused.problem).toContain(`\`${tag}\` tag is not allowed`)
        expect(refused.problem).toContain("line:2, col:3")
      }
    }).pipe(Effect.provide(LiquidTemplateEngineLive)))

  it.effect("a syntax error or an unknown filter is refused with where it is", () =>
    Effect.gen(function*() {
      const engine = yield* TemplateEngine
      const unclosed = yield* refusal(engine.check(template({ subject: "Hello {{ subscriber.email" })))
      expect(unclosed.field).toBe("subject")
      expect(unclosed.problem).toMatch(/not closed, line:1, col:7/)
      const notClosedTag = yield* refusal(engine.check(template({ text: "a\n{% if x %}b" })))
      expect(notClosedTag).toMatchObject({ field: "text" })
      expect(notClosedTag.problem).toContain("line:2")
      const filter = yield* refusal(engine.check(template({ text: "{{ data.x | explode }}" })))
      expect(filter.problem).toContain("unknown filter: explode")
    }).pipe(Effect.provide(LiquidTemplateEngineLive)))

  it.effect("gives each problem a kind that does not depend on the engine's words, and the tag or filter it names", () =>
    Effect.gen(function*() {
      const engine = yield* TemplateEngine
      const kinds = [
        ["{% iff x %}", "unknownTag", "iff"],
        ["{% endif %}", "unknownTag", "endif"],
        ["{% render 'x' %}", "tagNotAllowed", "render"],
        ["{% if x %}open", "unclosedTag", "if"],
        ["{{ subscriber.email ", "unclosedOutput", null],
        ["{{ x | explode }}", "unknownFilter", "explode"],
        ["{% for %}{% endfor %}", "malformedTag", "for"],
        ["{% if %}{% endif %}", "badExpression", null],
        ["{% assign %}", "badExpression", null],
        ["{% if x %}{% else %}{% else %}{% endif %}", "unreadable", null]
      ] as const
      for (const [text, kind, name] of kinds) {
        const [problem] = (yield* engine.inspect(template({ text }))).problems
        expect({ text, kind: problem?.kind, name: problem?.name }).toEqual({ text, kind, name })
        // The engine's own words stay beside the kind.
        expect(problem!.problem.length).toBeGreaterThan(0)
      }
    }).pipe(Effect.provide(LiquidTemplateEngineLive)))

  it.effect("inspects every part of a draft: each one's problem at its line and column, and the variables the others read", () =>
    Effect.gen(function*() {
      const engine = yield* TemplateEngine
      const inspection = yield* engine.inspect(template({
        subject: "Hi {{ subscriber.first_name }} {{ subscriber.metadata.plan }}",
        html: "<p>\n  {% iff x %}</p>",
        text: "{% for tag in subscriber.tags %}{{ tag }}{% endfor %} {{ data.code | explode }}"
      }))
      expect(inspection).toEqual({
        problems: [
          { part: "html", kind: "unknownTag", name: "iff", problem: "tag \"iff\" not found", line: 2, column: 3 },
          { part: "text", kind: "unknownFilter", name: "explode", problem: "unknown filter: explode", line: 1, column: 55 }
        ],
        variables: ["subscriber.first_name", "subscriber.metadata.plan"]
      })
      const fine = yield* engine.inspect(template({ text: "{{ unsubscribe_url }}\n{% include 'x' %}" }))
      expect(fine.problems).toEqual([{
        part: "text",
        kind: "tagNotAllowed",
        name: "include",
        problem: "the `include` tag is not allowed: a template reaches nothing but its own variables",
        line: 2,
        column: 1
      }])
      const clean = yield* engine.inspect(template({ text: "{{ unsubscribe_url }} {{ subscriber.email }} {{ subscriber.email }}" }))
      expect(clean).toEqual({ problems: [], variables: ["unsubscribe_url", "subscriber.email"] })
    }).pipe(Effect.provide(LiquidTemplateEngineLive)))

  it.effect("a render that runs away, or grows past the limit, is stopped, not left to hang", () =>
    Effect.gen(function*() {
      const engine = yield* TemplateEngine
      const forever = yield* refusal(engine.render(
        template({ text: "{% for i in (1..100000000) %}{% for j in (1..100000000) %}x{% endfor %}{% endfor %}" }),
        scope
      ))
      expect(forever.field).toBe("text")
      expect(forever.problem).toContain("could not be rendered")
      const large = yield* refusal(engine.render(
        template({ html: `{% for i in (1..${MAX_RENDERED_LENGTH / 10 + 1}) %}0123456789{% endfor %}` }),
        scope
      ))
      expect(large.field).toBe("html")
    }).pipe(Effect.provide(LiquidTemplateEngineLive)), 20_000)

  it.effect("a filter that makes more than the work limit is refused at once, naming the limit", () =>
    Effect.gen(function*() {
      const engine = yield* TemplateEngine
      const refused = yield* refusal(engine.render(template({ text: runaway }), scope))
      expect(refused.field).toBe("text")
      expect(refused.problem).toContain(`makes more than ${MAX_RENDER_WORK} elements and characters`)
      const doubled = yield* refusal(engine.render(
        template({ html: "{% assign s = 'x' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}" }),
        scope
      ))
      expect(doubled.field).toBe("html")
      expect(doubled.problem).toContain(`makes more than ${MAX_RENDER_WORK}`)
    }).pipe(Effect.provide(LiquidTemplateEngineLive)))

  it.effect("a filter that runs past the time limit has its thread ended, while this process goes on", () =>
    Effect.gen(function*() {
      const engine = yield* TemplateEngine
      let turns = 0
      const ticking = setInterval(() => turns++, 10)
      const refused = yield* refusal(engine.render(template({ subject: "{{ data.order }}", text: runaway }), scope)).pipe(
        Effect.ensuring(Effect.sync(() => clearInterval(ticking)))
      )
      expect(refused.field).toBe("text")
      expect(refused.problem).toBe(`could not be rendered: takes longer than ${timeLimitOnly.renderMs} ms`)
      // Rendered in this thread, the sort would have held the event loop until it was done.
      expect(turns).toBeGreaterThan(0)
      // A new thread takes the next render.
      expect((yield* engine.render(template({ text: "{{ data.order }}" }), scope)).text).toBe("A-17")
    }).pipe(Effect.provide(makeLiquidTemplateEngine(timeLimitOnly))), 20_000)

  it.effect("in a batch, a render stopped for its time fails alone", () =>
    Effect.gen(function*() {
      const engine = yield* TemplateEngine
      const sized = template({ subject: "n={{ data.n }}", text: "{% assign r = (1..data.n) %}{{ r | sort | size }}" })
      const results = yield* engine.renderEach(sized, [3, 3_000_000, 4].map((n) => ({ data: { n } })))
      expect(results.map((r) => Either.isRight(r) ? r.right.text : r.left.problem)).toEqual([
        "3",
        `could not be rendered: takes longer than ${timeLimitOnly.renderMs} ms`,
        "4"
      ])
      const stopped = results[1]!
      expect(Either.isLeft(stopped) && stopped.left.field).toBe("text")
    }).pipe(Effect.provide(makeLiquidTemplateEngine(timeLimitOnly))), 20_000)
})

/** The threads of this process now (Linux): a render thread is one more. */
const threadCount = () => readdirSync("/proc/self/task").length

/** Lets the thread pools Node.js starts on first need (file system, DNS) start before counting. */
const settleThreads = Effect.promise(() => readFile(fileURLToPath(import.meta.url)))

const linear = template({
  subject: "{% if subscriber.first_name %}Hi {{ subscriber.first_name | upcase }}{% else %}Hello{% endif %}",
  html: "{% capture who %}{{ subscriber.first_name | default: 'friend' | append: '!' }}{% endcapture %}<p>{{ who }} {{ organization.name }}</p>",
  text: "{% case data.order %}{% when 'A-17' %}{{ data.order | replace: '-', ' ' | downcase }}{% else %}none{% endcase %}"
})

describe("email templates rendered in the process", () => {
  it("a template is linear when no tag repeats a part and every filter's work is counted", () => {
    const liquid = makeCustomerLiquid({ templateLength: 100_000, renderMs: 500, renderWork: 1_000_000, renderedLength: 1_000_000 })
    const linearOf = (text: string) => {
      const prepared = liquid.prepare({ subject: "s", html: text, text })
      if (prepared.parseProblem !== undefined) throw new Error(prepared.parseProblem.problem)
      return prepared.linear()
    }
    expect(linearOf("{{ subscriber.email | escape | truncate: 20 }}")).toBe(true)
    expect(linearOf("{% liquid\n assign a = 'x' | append: 'y'\n echo a | upcase\n%}")).toBe(true)
    expect(linearOf("{% unless a %}{{ b | plus: 1 | at_least: 3 | size }}{% endunless %}{% raw %}{% for %}{% endraw %}")).toBe(true)
    expect(linearOf("{% for t in subscriber.tags %}{{ t.name }}{% endfor %}")).toBe(false)
    expect(linearOf("{% tablerow t in subscriber.tags %}{{ t.name }}{% endtablerow %}")).toBe(false)
    expect(linearOf("{% if a %}{% for i in (1..3) %}{% endfor %}{% endif %}")).toBe(false)
    expect(linearOf("{{ subscriber.tags | map: 'name' | join: ', ' }}")).toBe(false)
    expect(linearOf("{% assign s = subscriber.tags | sort: 'name' %}")).toBe(false)
    expect(linearOf("{% capture x %}{{ a | url_encode }}{% endcapture %}")).toBe(false)
  })

  describe("a render past the limit", () => {
    const liquid = makeCustomerLiquid({ templateLength: 100_000, renderMs: 500, renderWork: 1_000_000, renderedLength: 1_000_000 })
    // A filter in each part, so that liquidjs renders them (and checks its time between their nodes).
    const source = { subject: "Order {{ data.order | upcase }}", html: null, text: "{% assign s = data.order %}{{ s | downcase }}" }
    const realNow = performance.now.bind(performance)
    /** liquidjs reads the time from `performance.now()`; from its `stallAt`th reading on, 1 s later than it is. */
    const stallClock = (stallAt: number, everyRender = false) => {
      let calls = 0
      let offset = 0
      vi.spyOn(performance, "now").mockImplementation(() => {
        calls++
        if (calls === stallAt || (everyRender && calls > stallAt)) offset += 1000
        return realNow() + offset
      })
    }
    afterEach(() => {
      vi.restoreAllMocks()
    })

    it("once, as when the process stalls, is rendered again in the process, and the template stays linear", () => {
      const prepared = liquid.prepare(source)
      if (prepared.parseProblem !== undefined) throw new Error(prepared.parseProblem.problem)
      stallClock(2)
      const result = prepared.render(scope, 20)
      expect(result.ok && result.value).toEqual({ subject: "Order A-17", html: null, text: "a-17", emptyVariables: [] })
      expect(prepared.linear()).toBe(true)
    })

    it("twice in a row answers overtime, and the template renders in the threads from then on", () => {
      const prepared = liquid.prepare(source)
      if (prepared.parseProblem !== undefined) throw new Error(prepared.parseProblem.problem)
      stallClock(2, true)
      expect(prepared.render(scope, 20)).toEqual({ ok: false, field: "subject", problem: "", overtime: true })
      expect(prepared.linear()).toBe(false)
    })
  })

  it.effect("a linear template renders in this process, without starting a thread; a loop starts one", () =>
    Effect.gen(function*() {
      yield* settleThreads
      const engine = yield* TemplateEngine
      const before = threadCount()
      const results = yield* engine.renderEach(linear, [scope, { ...scope, subscriber: { ...scope.subscriber, first_name: null } }])
      expect(results.map((r) => Either.isRight(r) && [r.right.subject, r.right.html, r.right.text])).toEqual([
        ["Hi ADA", "<p>Ada! Acme &lt;News&gt;</p>", "a 17"],
        ["Hello", "<p>friend! Acme &lt;News&gt;</p>", "a 17"]
      ])
      expect(threadCount()).toBe(before)
      const looped = yield* engine.render(template({ text: "{% for t in subscriber.tags %}{{ t.name }}{% endfor %}" }), scope)
      expect(looped.text).toBe("Weekly")
      expect(threadCount()).toBe(before + 1)
    }).pipe(Effect.provide(makeLiquidTemplateEngine({ threads: 1 }))))

  it.effect("renders the same in this process as in a thread", () =>
    Effect.gen(function*() {
      const scopes = [scope, { subscriber: { email: "b@example.com", first_name: "<b>", tags: [] }, organization: { name: "" }, data: {} }]
      const inline = yield* Effect.provide(TemplateEngine, LiquidTemplateEngineLive).pipe(
        Effect.flatMap((engine) => engine.renderEach(linear, scopes))
      )
      const threaded = yield* Effect.provide(TemplateEngine, makeLiquidTemplateEngine({ inlineMs: 0 })).pipe(
        Effect.flatMap((engine) => engine.renderEach(linear, scopes))
      )
      expect(inline).toEqual(threaded)
      expect(inline.every(Either.isRight)).toBe(true)
    }))

  it.effect("a linear template that runs past the process's limit is rendered in a thread", () =>
    Effect.gen(function*() {
      yield* settleThreads
      const engine = yield* TemplateEngine
      const before = threadCount()
      // Each assign is a node, so liquidjs checks the time between them.
      const slow = template({ text: `{% assign s = data.order %}${"{% assign s = s | replace: 'A', 'A' %}".repeat(400)}{{ s }}` })
      const first = yield* engine.renderEach(slow, [scope, scope])
      expect(first.map((r) => Either.isRight(r) && r.right.text)).toEqual(["A-17", "A-17"])
      expect(threadCount()).toBe(before + 1)
    }).pipe(Effect.provide(makeLiquidTemplateEngine({ threads: 1, inlineMs: 1e-6 }))))

  it.effect("a long batch in this process lets the event loop turn", () =>
    Effect.gen(function*() {
      const engine = yield* TemplateEngine
      let turns = 0
      const ticking = setInterval(() => turns++, 1)
      const wordy = template({ html: `${"<p>{{ subscriber.first_name | append: ' ' | upcase }}</p>".repeat(200)}` })
      const results = yield* engine.renderEach(wordy, Array.from({ length: 2_000 }, () => scope)).pipe(
        Effect.ensuring(Effect.sync(() => clearInterval(ticking)))
      )
      expect(results.every(Either.isRight)).toBe(true)
      expect(turns).toBeGreaterThan(1)
    }).pipe(Effect.provide(LiquidTemplateEngineLive)), 20_000)
})

describe("templates of text and plain variables", () => {
  const limits = { templateLength: 100_000, renderMs: 500, renderWork: 1_000_000, renderedLength: 1_000_000 }
  const liquid = makeCustomerLiquid(limits)
  /** liquidjs alone, with the options the product's engines have: what every render must equal. */
  const reference = (escape: boolean) =>
    new Liquid({ strictFilters: true, strictVariables: false, ownPropertyOnly: true, ...(escape ? { outputEscape: "escape" } : {}) })
  const escaping = reference(true)
  const plain = reference(false)

  const text = fc.oneof(
    fc.string(),
    fc.constantFrom("Zoë 👋", "", " ", "a\u0000b"),
    { weight: 3, arbitrary: fc.array(fc.constantFrom("&", "<", ">", "\"", "'", "x", "é"), { maxLength: 8 }).map((cs) => cs.join("")) }
  )
  const leaf = fc.oneof(
    { weight: 6, arbitrary: text },
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(text, { maxLength: 3 }),
    fc.date({ noInvalidDate: true })
  )
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom("a", "b", "b c") },
    { weight: 1, arbitrary: fc.constantFrom("size", "first", "last", "toString", "constructor", "length") }
  )
  const value = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof({ depthSize: "small" }, { weight: 3, arbitrary: leaf }, { weight: 1, arbitrary: fc.dictionary(key, tie("node"), { maxKeys: 4 }) })
  })).node
  const scope = fc.dictionary(key, value, { minKeys: 2, maxKeys: 5 })
  /** `a`, `a.first_name`, `a["b c"].size`: a name, then names or quoted keys. */
  const variable = fc.tuple(key.filter((k) => !k.includes(" ")), fc.oneof(fc.constant([]), fc.array(key, { maxLength: 2 }))).map(([first, rest]) =>
    first + rest.map((k) => k.includes(" ") ? `["${k}"]` : `.${k}`).join("")
  )
  const piece = fc.oneof(
    fc.constantFrom("<p>", "Hi ", ", ", "&amp; ", "\n"),
    variable.map((v) => `{{ ${v} }}`),
    variable.map((v) => `{{- ${v} -}}`),
    variable.map((v) => `{{ ${v} | upcase }}`),
    fc.constantFrom("{{ a[0] }}", "{{ \"literal\" }}", "{{ a.size }}", "{% if a %}yes{% endif %}", "{{ a | raw }}")
  )
  const template = fc.array(piece, { maxLength: 6 }).map((pieces) => pieces.join(""))

  it("render as liquidjs renders them, escaped in the HTML part, for any values", () => {
    fc.assert(
      fc.property(template, scope, (source, values) => {
        const prepared = liquid.prepare({ subject: "s", html: source, text: source })
        if (prepared.parseProblem !== undefined) return
        const rendered = prepared.render(values, 500)
        let html: string
        let plainText: string
        try {
          html = escaping.parseAndRenderSync(source, values)
          plainText = plain.parseAndRenderSync(source, values)
        } catch {
          expect(rendered.ok).toBe(false)
          return
        }
        expect(rendered.ok && rendered.value.html).toBe(html)
        expect(rendered.ok && rendered.value.text).toBe(plainText)
      }),
      { numRuns: 2_000 }
    )
  })

  it("escaped values count against the work limit, as liquidjs counts them", () => {
    const small = makeCustomerLiquid({ ...limits, renderWork: 10 })
    const prepared = small.prepare({ subject: "s", html: "<p>{{ a }}{{ b }}</p>", text: "{{ a }}{{ b }}" })
    if (prepared.parseProblem !== undefined) throw new Error(prepared.parseProblem.problem)
    expect(prepared.render({ a: "12345", b: "12345" }, 500)).toMatchObject({
      ok: true,
      value: { html: "<p>1234512345</p>", text: "1234512345" }
    })
    expect(prepared.render({ a: "12345", b: "123456" }, 500)).toEqual({
      ok: false,
      field: "html",
      problem: "could not be rendered: makes more than 10 elements and characters with ranges and filters, line:1, col:11"
    })
  })
})
