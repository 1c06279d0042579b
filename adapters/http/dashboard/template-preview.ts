import { HttpServerResponse } from "@effect/platform"
import {
  type EmailTemplateSource,
  Emails,
  type EmailToSend,
  Subscribers,
  type TemplateInspection,
  type TemplatePreview,
  type TemplateProblem,
  Templates
} from "@roster/application"
import { EmailAddress, type SubscriberId } from "@roster/domain"
import { Effect, Either, Option, Schema } from "effect"
import { fill, redirect, refusalOf, type Workspace } from "./pages.js"
import { renderView } from "./views.js"

/**
 * What the template editor and the campaign composer share of a template's preview and test send:
 * the subscriber a preview is for and the addresses offered to choose one, the rendered subject and
 * text body shown on the page, the HTML body rendered into a document of its own that a sandboxed
 * frame shows, and a test sent to the signed-in person. Both go through the templates and emails
 * use cases (`Templates.inspect`, `Templates.previewDraft`, `Emails.send`), so there is one way a
 * template is rendered.
 */

/** Addresses the preview's subscriber search offers. */
const SEARCH_SIZE = 10

const emailOf = Schema.decodeUnknownOption(EmailAddress)

/** The policy of a rendered HTML body: its own styles and images over HTTPS, no script, no form, framed by the dashboard alone. */
const PREVIEW_FRAME_POLICY = [
  "default-src 'none'",
  "img-src https: data:",
  "style-src 'unsafe-inline' https:",
  "font-src https: data:",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
  "sandbox"
].join("; ")

/** A rendered HTML body, as a document of its own that an editor shows in a sandboxed frame. */
export const frameDocument = (body: string) =>
  HttpServerResponse.text(body, {
    contentType: "text/html; charset=utf-8",
    headers: {
      "Cache-Control": "no-store",
      "Content-Security-Policy": PREVIEW_FRAME_POLICY,
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "SAMEORIGIN"
    }
  })

/** A frame's document that says why there is no HTML to show, in the person's words. */
export const frameNote = (workspace: Workspace, text: string) =>
  frameDocument(renderView("previewNote", { locale: workspace.locale, title: workspace.t.templates.previewFrame, text }))

/**
 * A part's problem in the person's words, from its kind (the engine's own English words kept as
 * a detail), at its line and column when the engine knows them.
 */
export const problemMessage = (problem: TemplateProblem, workspace: Workspace) => {
  const t = workspace.t.templates
  const said = fill(t.problemDetail, {
    kind: fill(t.problemKinds[problem.kind], { name: problem.name ?? "" }),
    problem: problem.problem
  })
  return problem.line === null || problem.column === null
    ? fill(t.problem, { problem: said })
    : fill(t.problemAt, { line: problem.line, column: problem.column, problem: said })
}

/** A template read by the engine, the preview's subscriber, and what it renders to (or why it could not), unless it was not rendered. */
export interface Examined {
  readonly inspection: TemplateInspection
  readonly who: { readonly subscriberId: SubscriberId | undefined; readonly note: string }
  readonly rendered: Either.Either<TemplatePreview, string> | undefined
}

/** The preview as a page shows it beside the frame: what it is for (or why there is none), the subject, the text body, the variables left empty. */
export interface ShownPreview {
  readonly note: string
  readonly subject?: string
  readonly text?: string | null
  readonly hasHtml?: boolean
  readonly empty?: string
}

/**
 * The preview of what was examined, in the person's words; a problem is told as "fix it first", or
 * with the first problem itself at its part, line and column when `tellProblem`.
 */
export const shownPreview = (
  workspace: Workspace,
  examined: Examined,
  options: { readonly tellProblem?: boolean } = {}
): ShownPreview => {
  const t = workspace.t.templates
  const { rendered, who } = examined
  const first = examined.inspection.problems[0]
  if (first !== undefined) {
    return { note: options.tellProblem === true ? `${t.fixFirst} ${t[first.part]}: ${problemMessage(first, workspace)}` : t.fixFirst }
  }
  if (rendered === undefined) return { note: "" }
  if (Either.isLeft(rendered)) return { note: fill(t.previewFailed, { problem: rendered.left }) }
  const preview = rendered.right
  return {
    note: who.note,
    subject: preview.subject,
    text: preview.text,
    hasHtml: preview.html !== null,
    empty: preview.emptyVariables.length === 0 ? "" : fill(t.previewEmpty, { names: preview.emptyVariables.join(", ") })
  }
}

/** A JSON answer of a page's script, never kept by the browser. */
export const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status, headers: { "Cache-Control": "no-store" } })

/** What a test send is of: a saved template, or content given as it stands. */
export type TestContent =
  | { readonly templateId: NonNullable<EmailToSend["templateId"]> }
  | { readonly source: EmailTemplateSource }

export const makeTemplatePreview = Effect.gen(function*() {
  const templates = yield* Templates
  const subscribers = yield* Subscribers
  const emails = yield* Emails

  /** The subscriber the preview is for: the one with the address typed, or none (the sample one), and what to say of it. */
  const previewSubscriber = (workspace: Workspace, email: string) =>
    Effect.gen(function*() {
      const t = workspace.t.templates
      if (email === "") return { subscriberId: undefined, note: t.previewSample }
      const address = emailOf(email)
      const found = Option.isNone(address)
        ? Option.none()
        : yield* Effect.option(subscribers.getByEmail(workspace.principal, address.value))
      return Option.match(found, {
        onNone: () => ({ subscriberId: undefined as SubscriberId | undefined, note: fill(t.noSubscriber, { email }) }),
        onSome: (view) => ({
          subscriberId: view.subscriber.id as SubscriberId | undefined,
          note: fill(t.previewSubscriber, { email: view.subscriber.email })
        })
      })
    })

  /**
   * `source` read by the engine and, when it has no problem and `render` is not false, rendered
   * for the preview's subscriber (and the values it reads as `data`).
   */
  const examine = (
    workspace: Workspace,
    source: EmailTemplateSource,
    email: string,
    options: { readonly data?: Readonly<Record<string, unknown>>; readonly render?: boolean } = {}
  ) =>
    Effect.gen(function*() {
      const inspection = yield* templates.inspect(workspace.principal, source)
      const who = yield* previewSubscriber(workspace, email)
      const rendered: Examined["rendered"] = inspection.problems.length > 0 || options.render === false
        ? undefined
        : yield* templates.previewDraft(workspace.principal, source, { subscriberId: who.subscriberId, data: options.data }).pipe(
          Effect.map((preview) => Either.right(preview)),
          Effect.catchTag("InvalidInput", (error) => Effect.succeed(Either.left(refusalOf(error, workspace.t).text)))
        )
      return { inspection, who, rendered } satisfies Examined
    })

  /** The addresses of the organization's subscribers that match what is typed of the preview's, as the "preview for" field offers them. */
  const suggestions = (workspace: Workspace, query: string) =>
    subscribers.list(workspace.principal, { search: query, sort: "email", order: "asc", count: "capped", limit: SEARCH_SIZE }).pipe(
      Effect.map((found) => json({ emails: found.items.map((view) => view.subscriber.email) })),
      Effect.catchAll((error) => {
        const refusal = refusalOf(error, workspace.t)
        return Effect.succeed(json({ error: refusal.text }, refusal.status))
      })
    )

  /**
   * The rendered HTML body of `source` for the preview's subscriber (and the values it reads as
   * `data`), as the frame shows it; a draft with a problem shows the first one instead.
   */
  const frame = (
    workspace: Workspace,
    source: EmailTemplateSource,
    email: string,
    data?: Readonly<Record<string, unknown>>,
    options: { readonly tellProblem?: boolean } = {}
  ) =>
    Effect.gen(function*() {
      const t = workspace.t.templates
      const inspection = yield* templates.inspect(workspace.principal, source)
      const first = inspection.problems[0]
      if (first !== undefined) {
        return frameNote(
          workspace,
          options.tellProblem === true ? `${t.fixFirst} ${t[first.part]}: ${problemMessage(first, workspace)}` : t.fixFirst
        )
      }
      if (source.html === null) return frameNote(workspace, t.previewNone)
      const who = yield* previewSubscriber(workspace, email)
      return yield* templates.previewDraft(workspace.principal, source, { subscriberId: who.subscriberId, data }).pipe(
        Effect.map((preview) => frameDocument(preview.html ?? "")),
        Effect.catchTag("InvalidInput", (error) =>
          Effect.succeed(frameNote(workspace, fill(t.previewFailed, { problem: refusalOf(error, workspace.t).text }))))
      )
    })

  /**
   * Sends `content` to the signed-in person's address through the send use case, as a
   * transactional email rendered for them, and leads back to `back` saying what became of it.
   */
  const testSend = (
    workspace: Workspace,
    content: TestContent,
    scope: { readonly name: string; readonly back: string; readonly data?: Readonly<Record<string, unknown>> }
  ) => {
    const t = workspace.t.templates
    const email = workspace.user.email
    const what = "templateId" in content
      ? { templateId: content.templateId }
      : { subject: content.source.subject, html: content.source.html, text: content.source.text }
    return emails.send(workspace.principal, { to: email, ...what, data: scope.data, kind: "transactional" }).pipe(
      // Recorded but held back (a bounced or complained address): said so, not "on its way".
      Effect.map(({ message }) =>
        message.status === "queued"
          ? redirect(scope.back, { kind: "ok", text: fill(t.testQueued, { name: scope.name, email }) })
          : redirect(scope.back, { kind: "error", text: fill(t.testWithheld, { email }) })
      ),
      Effect.catchAll((error) => {
        const text = error._tag === "InvalidInput" && error.field === "to"
          ? fill(t.testNotSubscriber, { email })
          : refusalOf(error, workspace.t).text
        return Effect.succeed(redirect(scope.back, { kind: "error", text }))
      })
    )
  }

  return { previewSubscriber, examine, suggestions, frame, testSend } as const
})
