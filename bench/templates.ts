import { TemplateEngine } from "@roster/application"
import { Effect, Layer } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"
import {
  LiquidTemplateEngineLive,
  makeLiquidTemplateEngine,
  MAX_RENDER_MS,
  MAX_RENDER_WORK,
  MAX_RENDERED_LENGTH,
  MAX_TEMPLATE_LENGTH
} from "../adapters/liquid/index.js"
import { makeCustomerLiquid } from "../adapters/liquid/customer-liquid.mjs"

/**
 * `npm run bench:templates`: what rendering customer templates in threads costs. A campaign-like
 * template is rendered for BENCH_TEMPLATE_RECIPIENTS (20000) recipients in batches of
 * BENCH_TEMPLATE_BATCH (100), as the worker does, and alone BENCH_TEMPLATE_SINGLES (2000) times one
 * after another, as previews and single sends do; each beside the same renders in this process
 * without a thread (the engine as it was before threads), taking turns BENCH_TEMPLATE_ROUNDS (3)
 * times; the best round of each counts. Then eight renders at once of a template whose one filter
 * works for seconds, as eight previews would ask: with the limits as served, and with the work limit
 * lifted so that only the threads' time limit stops them; printed beside their goals (each refused
 * within 1 s, the event loop never held more than 50 ms).
 */

const recipients = Number(process.env.BENCH_TEMPLATE_RECIPIENTS ?? 20_000)
const batchSize = Number(process.env.BENCH_TEMPLATE_BATCH ?? 100)
const singles = Number(process.env.BENCH_TEMPLATE_SINGLES ?? 2_000)
const rounds = Number(process.env.BENCH_TEMPLATE_ROUNDS ?? 3)

const template = {
  subject: "{{ organization.name }}: news for {{ subscriber.first_name | default: 'you' }}",
  html: `<!doctype html><html><body>
<h1>Hello {{ subscriber.first_name | default: "there" }} {{ subscriber.last_name }}</h1>
${"<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.</p>\n".repeat(30)}
{% for item in data.items %}<div><a href="{{ item.url }}">{{ item.title | upcase }}</a> {{ item.price | times: 1.2 | round: 2 }}</div>{% endfor %}
{% if subscriber.tags contains "vip" %}<p>Thank you for being a VIP.</p>{% endif %}
<p><a href="{{ preferences_url }}">Preferences</a> · <a href="{{ unsubscribe_url }}">Unsubscribe</a></p>
</body></html>`,
  text: "Hello {{ subscriber.first_name }}\n{% for item in data.items %}- {{ item.title }} {{ item.url }}\n{% endfor %}\nUnsubscribe: {{ unsubscribe_url }}"
}

const scopeFor = (i: number) => ({
  subscriber: {
    email: `reader${i}@example.com`,
    first_name: `Reader${i}`,
    last_name: "Doe",
    status: "active",
    metadata: { plan: "pro", since: 2020 },
    tags: i % 10 === 0 ? ["vip", "weekly"] : ["weekly"]
  },
  organization: { name: "Acme News" },
  unsubscribe_url: `https://roster.example.com/unsubscribe?token=t${i}`,
  preferences_url: `https://roster.example.com/preference-center?token=t${i}`,
  data: { items: Array.from({ length: 8 }, (_, k) => ({ title: `Article ${k}`, url: `https://acme.example.com/a/${k}`, price: 10 + k })) }
})

const scopes = Array.from({ length: recipients }, (_, i) => scopeFor(i))

const perRender = (ms: number, n: number) => `${((ms * 1000) / n).toFixed(1)} µs a render`

const inProcess = () => {
  const liquid = makeCustomerLiquid({
    templateLength: MAX_TEMPLATE_LENGTH,
    renderMs: MAX_RENDER_MS,
    renderWork: MAX_RENDER_WORK,
    renderedLength: MAX_RENDERED_LENGTH
  })
  liquid.renderEach(template, scopes.slice(0, batchSize))
  let started = performance.now()
  for (let i = 0; i < recipients; i += batchSize) liquid.renderEach(template, scopes.slice(i, i + batchSize))
  const batched = performance.now() - started
  started = performance.now()
  for (let i = 0; i < singles; i++) liquid.renderEach(template, [scopes[i % recipients]])
  const alone = performance.now() - started
  return { batched, alone }
}

const inThreads = Effect.gen(function*() {
  const engine = yield* TemplateEngine
  yield* engine.renderEach(template, scopes.slice(0, batchSize))
  let started = performance.now()
  for (let i = 0; i < recipients; i += batchSize) yield* engine.renderEach(template, scopes.slice(i, i + batchSize))
  const batched = performance.now() - started
  started = performance.now()
  for (let i = 0; i < singles; i++) yield* engine.render(template, scopes[i % recipients]!)
  const alone = performance.now() - started
  return { batched, alone }
})

const best = (all: ReadonlyArray<{ batched: number; alone: number }>) => ({
  batched: Math.min(...all.map((r) => r.batched)),
  alone: Math.min(...all.map((r) => r.alone))
})
const beforeRounds: Array<{ batched: number; alone: number }> = []
const afterRounds: Array<{ batched: number; alone: number }> = []
await Effect.runPromise(Effect.scoped(Effect.provide(
  Effect.gen(function*() {
    for (let round = 0; round < rounds; round++) {
      beforeRounds.push(inProcess())
      afterRounds.push(yield* inThreads)
    }
  }),
  Layer.fresh(LiquidTemplateEngineLive)
)))
const before = best(beforeRounds)
const after = best(afterRounds)
console.log(`${recipients} recipients in batches of ${batchSize}:`)
console.log(`  in this process  ${before.batched.toFixed(0)} ms, ${perRender(before.batched, recipients)}`)
console.log(`  in a thread      ${after.batched.toFixed(0)} ms, ${perRender(after.batched, recipients)}`)
console.log(`${singles} renders one at a time:`)
console.log(`  in this process  ${before.alone.toFixed(0)} ms, ${perRender(before.alone, singles)}`)
console.log(`  in a thread      ${after.alone.toFixed(0)} ms, ${perRender(after.alone, singles)}`)

/** Eight renders at once of `runaway`: when the last was refused, and the longest the event loop was held. */
const eightRunaways = (engine: Layer.Layer<TemplateEngine>) =>
  Effect.scoped(Effect.provide(
    Effect.gen(function*() {
      const templates = yield* TemplateEngine
      const runaway = { subject: "s", html: null, text: "{% assign r = (1..3000000) %}{{ r | sort | size }}" }
      yield* templates.render({ subject: "warm", html: null, text: "t" }, {})
      const delay = monitorEventLoopDelay({ resolution: 5 })
      delay.enable()
      const started = performance.now()
      const refused = yield* Effect.forEach(
        Array.from({ length: 8 }, () => Effect.either(templates.render(runaway, {}))),
        (render) => render,
        { concurrency: "unbounded" }
      )
      const ms = performance.now() - started
      delay.disable()
      return { ms, refused: refused.filter((r) => r._tag === "Left").length, heldMs: delay.max / 1e6 }
    }),
    Layer.fresh(engine)
  ))

for (const [name, engine] of [
  ["with the limits as served", LiquidTemplateEngineLive],
  [`with the work limit lifted (only the ${MAX_RENDER_MS} ms time limit)`, makeLiquidTemplateEngine({ renderWork: 1_000_000_000 })]
] as const) {
  const { ms, refused, heldMs } = await Effect.runPromise(eightRunaways(engine))
  console.log(`eight runaway renders at once, ${name}:`)
  console.log(`  ${refused} of 8 refused, the last after ${ms.toFixed(0)} ms (goal: each within 1000 ms)`)
  console.log(`  event loop held at most ${heldMs.toFixed(1)} ms (goal: 50 ms)`)
}
