import { type EmailTemplateSource, type RenderedTemplate, TemplateEngine, type TemplateInspection, type TemplateProblemKind } from "@roster/application"
import { InvalidInput, MAX_TEMPLATE_LENGTH, reason } from "@roster/domain"
import { Effect, Either, Layer } from "effect"
import { availableParallelism } from "node:os"
import { Piscina } from "piscina"
import {
  type CustomerLimits,
  makeCustomerLiquid,
  type Part,
  progressSlot,
  type RenderAnswer,
  type RenderResult,
  readStep,
  type TemplateSource
} from "./customer-liquid.mjs"

export { MAX_TEMPLATE_LENGTH }
/** The longest a part may render, in milliseconds, however it spends them. */
export const MAX_RENDER_MS = 500
/** The most a rendered part may hold, in characters. */
export const MAX_RENDERED_LENGTH = 1_000_000
/**
 * The elements and characters a render's ranges and filters may make, all parts together:
 * `(1..N)` makes N, `sort` and `reverse` as many as the list holds, `append` the characters of
 * the string it builds, an escaped output in the HTML body its length.
 */
export const MAX_RENDER_WORK = 1_000_000

/**
 * The longest a part of a linear template may render in the process, in milliseconds: past it the
 * template renders in a thread from then on, with the whole {@link MAX_RENDER_MS}.
 */
export const MAX_INLINE_RENDER_MS = 20

/** How long renders in the process run before they let the event loop turn, in milliseconds. */
const INLINE_SLICE_MS = 10

/** How the engine is built; the defaults are what Roster runs with. */
export interface LiquidTemplateEngineOptions {
  readonly renderMs?: number
  readonly renderWork?: number
  /** Render threads at most; by default half the machine's cores, at least two. */
  readonly threads?: number
  /** How long an unused render thread is kept, in milliseconds. */
  readonly idleMs?: number
  /** The time limit of a part rendered in the process, in milliseconds; 0 renders every template in a thread. */
  readonly inlineMs?: number
}

/** The thread's task file: beside this module in the sources, beside the program in `dist/`. */
const threadFile = new URL("./liquid-render-thread.mjs", import.meta.url)

/** How a task ended: the thread's answer, or the step it was stopped at and why. */
type Outcome =
  | { readonly answer: RenderAnswer }
  | { readonly stopped: { readonly index: number; readonly part: Part } }

const sourceOf = (source: EmailTemplateSource): TemplateSource => ({ subject: source.subject, html: source.html, text: source.text })

const resultOf = (result: RenderResult): Either.Either<RenderedTemplate, InvalidInput> =>
  result.ok ? Either.right(result.value) : Either.left(refusalOf(result.field, result.problem))

/** The kinds of liquidjs's messages (as customer-liquid.mjs words them), and the tag or filter each names. */
const KINDS: ReadonlyArray<readonly [RegExp, TemplateProblemKind]> = [
  [/^tag "([^"]*)" not found/, "unknownTag"],
  [/^the `([^`]*)` tag is not allowed/, "tagNotAllowed"],
  [/^tag \{%-?\s*(\w*)[^]*not closed/, "unclosedTag"],
  [/^output "[^]*" not closed/, "unclosedOutput"],
  [/^unknown filter: (\S+)/, "unknownFilter"],
  [/^illegal tag: \{%-?\s*(\w*)/, "malformedTag"],
  [/^(?:invalid value expression|expected |unexpected token)/, "badExpression"]
]

/** What kind of problem liquidjs's message tells, whatever its words. */
export const kindOf = (problem: string): { readonly kind: TemplateProblemKind; readonly name: string | null } => {
  for (const [pattern, kind] of KINDS) {
    const match = pattern.exec(problem)
    if (match !== null) return { kind, name: match[1] === undefined || match[1] === "" ? null : match[1] }
  }
  return { kind: "unreadable", name: null }
}

/** A refusal of the template engine, in its own words. */
const refusalOf = (field: string, problem: string) => new InvalidInput({ field, reason: reason("foreign", { text: problem }) })

/**
 * Customer templates (Liquid, see customer-liquid.mjs). Checking a template reads it in the
 * process. A linear template (no loop, and only filters whose work the work limit bounds: most
 * emails) renders in the process too, a few milliseconds at most for each part, letting the event
 * loop turn between renders; a part that runs past {@link MAX_INLINE_RENDER_MS} twice in a row
 * (once may be the process stalling, not the template) sends its template to the threads from
 * then on. Every other template renders in a pool of worker threads
 * (piscina), so that no template, however it is written, holds the process: each part of each
 * render has {@link MAX_RENDER_MS}, measured from when it begins in its thread (not while it waits
 * for one), and a part past it has its thread ended and is refused naming the limit. Memory is
 * bounded by the work limit and the time limit (a thread's heap limit is no bound: Node.js may end
 * the whole process when a thread reaches it). A thread's young generation is kept to 4 MB:
 * renders make short-lived garbage, and a thread with V8's default holds about 16 MB more of it.
 * Threads start when first needed and end after a minute unused. The service's own pages and
 * emails render elsewhere, in the process, without these limits.
 */
export const makeLiquidTemplateEngine = (options: LiquidTemplateEngineOptions = {}): Layer.Layer<TemplateEngine> =>
  Layer.scoped(
    TemplateEngine,
    Effect.gen(function*() {
      const limits: CustomerLimits = {
        templateLength: MAX_TEMPLATE_LENGTH,
        renderMs: options.renderMs ?? MAX_RENDER_MS,
        renderWork: options.renderWork ?? MAX_RENDER_WORK,
        renderedLength: MAX_RENDERED_LENGTH
      }
      const liquid = makeCustomerLiquid(limits)
      const threads = options.threads ?? Math.max(2, Math.floor(availableParallelism() / 2))
      const idleMs = options.idleMs ?? 60_000
      const inlineMs = options.inlineMs ?? MAX_INLINE_RENDER_MS

      /**
       * The pool while renders come, made by the first and ended once none came for `idleMs`: a
       * process that renders nothing keeps no thread. It keeps one thread while it lasts, since a
       * pool without any would not start one for the renders queued behind a thread it ended.
       */
      let current: { readonly pool: Piscina; busy: number; idle: ReturnType<typeof setTimeout> | undefined } | null = null
      const acquire = () => {
        current ??= {
          pool: new Piscina({
            filename: threadFile.href,
            minThreads: 1,
            maxThreads: threads,
            idleTimeout: idleMs,
            concurrentTasksPerWorker: 1,
            resourceLimits: { maxYoungGenerationSizeMb: 4 }
          }),
          busy: 0,
          idle: undefined
        }
        const entry = current
        clearTimeout(entry.idle)
        entry.busy += 1
        return entry
      }
      const release = (entry: NonNullable<typeof current>) => {
        entry.busy -= 1
        if (entry.busy > 0) return
        entry.idle = setTimeout(() => {
          if (entry.busy > 0 || current !== entry) return
          current = null
          void entry.pool.destroy()
        }, idleMs).unref()
      }
      yield* Effect.addFinalizer(() =>
        Effect.promise(async () => {
          const entry = current
          current = null
          if (entry !== null) {
            clearTimeout(entry.idle)
            await entry.pool.destroy()
          }
        })
      )

      /**
       * Renders `scopes` in a thread. A watchdog reads the task's progress: until the thread takes
       * the task it looks again shortly; once a step is under way it wakes when that step's time
       * would be up, and ends the thread if the same step is still under way.
       */
      const runTask = (source: TemplateSource, scopes: ReadonlyArray<unknown>, interrupted: AbortSignal): Promise<Outcome> => {
        const slot = progressSlot()
        const base = Date.now()
        const watchdog = new AbortController()
        let overdue: { index: number; part: Part } | null = null
        let timer: ReturnType<typeof setTimeout> | undefined
        const watch = () => {
          const step = readStep(slot, base)
          if (step === null) {
            timer = setTimeout(watch, 20)
            return
          }
          const left = step.startedAt + limits.renderMs - Date.now()
          if (left > 0) {
            timer = setTimeout(watch, left + 1)
            return
          }
          overdue = { index: step.index, part: step.part }
          watchdog.abort()
        }
        timer = setTimeout(watch, 20)
        const entry = acquire()
        return entry.pool.run({ source, scopes, slot, base, limits }, { signal: AbortSignal.any([watchdog.signal, interrupted]) }).then(
          (answer: RenderAnswer): Outcome => ({ answer }),
          (error: unknown): Outcome => {
            if (overdue !== null) return { stopped: overdue }
            throw error
          }
        ).finally(() => {
          clearTimeout(timer)
          release(entry)
        })
      }

      const check = (source: EmailTemplateSource) =>
        Effect.suspend(() => {
          const result = liquid.check(sourceOf(source))
          return result.ok ? Effect.void : Effect.fail(refusalOf(result.field, result.problem))
        })

      const inspect = (source: EmailTemplateSource) =>
        Effect.sync((): TemplateInspection => {
          const found = liquid.inspect(sourceOf(source))
          return {
            problems: found.problems.map((p) => ({ part: p.field, ...kindOf(p.problem), problem: p.problem, line: p.line, column: p.column })),
            variables: found.variables
          }
        })

      /**
       * Renders in the process what it can of `scopes`, in order, letting the event loop turn every
       * {@link INLINE_SLICE_MS}; answers the indexes left for the threads: all of them when the
       * template is not linear, those from the first part past the time limit on otherwise.
       */
      const renderInline = (
        template: TemplateSource,
        scopes: ReadonlyArray<unknown>,
        results: Array<Either.Either<RenderedTemplate, InvalidInput>>
      ) =>
        Effect.gen(function*() {
          const from = (i: number) => scopes.map((_, k) => k).slice(i)
          if (inlineMs <= 0) return from(0)
          const prepared = liquid.prepare(template)
          if (prepared.parseProblem !== undefined) return yield* refusalOf(prepared.parseProblem.field, prepared.parseProblem.problem)
          let sliceStart = Date.now()
          for (let i = 0; i < scopes.length; i++) {
            if (!prepared.linear()) return from(i)
            if (Date.now() - sliceStart >= INLINE_SLICE_MS) {
              yield* Effect.async<void>((resume) => void setImmediate(() => resume(Effect.void)))
              sliceStart = Date.now()
            }
            const result = prepared.render(scopes[i], inlineMs)
            if ("overtime" in result) return from(i)
            results[i] = resultOf(result)
          }
          return []
        })

      /**
       * Each scope rendered, in the process where the template is linear, else in a thread. A
       * render stopped in a thread for its time is tried once more, as a busy machine can hold a
       * thread past the limit in the middle of an ordinary render; stopped again, it fails alone:
       * the others are rendered again without it, in a new thread.
       */
      const renderEach = (source: EmailTemplateSource, scopes: ReadonlyArray<Readonly<Record<string, unknown>>>) =>
        Effect.gen(function*() {
          const template = sourceOf(source)
          if (scopes.length === 0) return yield* Effect.as(check(source), [])
          const results: Array<Either.Either<RenderedTemplate, InvalidInput>> = new Array(scopes.length)
          let pending = yield* renderInline(template, scopes, results)
          const stoppedOnce = new Set<number>()
          while (pending.length > 0) {
            const batch = pending
            const outcome = yield* Effect.promise((signal) => runTask(template, batch.map((i) => scopes[i]), signal))
            if ("stopped" in outcome) {
              const { index, part } = outcome.stopped
              if (!stoppedOnce.has(batch[index]!)) {
                stoppedOnce.add(batch[index]!)
                pending = batch
                continue
              }
              results[batch[index]!] = Either.left(
                refusalOf(part, `could not be rendered: takes longer than ${limits.renderMs} ms`)
              )
              pending = batch.filter((_, k) => k !== index)
              continue
            }
            const { answer } = outcome
            if (answer.parseProblem !== undefined) return yield* refusalOf(answer.parseProblem.field, answer.parseProblem.problem)
            answer.results.forEach((result, k) => {
              results[batch[k]!] = resultOf(result)
            })
            pending = []
          }
          return results
        })

      const render = (source: EmailTemplateSource, scope: Readonly<Record<string, unknown>>) =>
        Effect.flatMap(renderEach(source, [scope]), (results) => results[0]!)

      return TemplateEngine.of({ check, inspect, render, renderEach })
    })
  )

/** The engine with Roster's limits. */
export const LiquidTemplateEngineLive: Layer.Layer<TemplateEngine> = makeLiquidTemplateEngine()
