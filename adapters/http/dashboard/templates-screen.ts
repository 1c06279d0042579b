import { HttpRouter, HttpServerResponse } from "@effect/platform"
import {
  type EmailTemplateSource,
  type TemplateInspection,
  type TemplateProblem,
  Templates
} from "@roster/application"
import {
  type EmailTemplate,
  MAX_SUBJECT_LENGTH,
  MAX_TEMPLATE_LENGTH,
  MAX_TEMPLATE_NAME_LENGTH,
  TemplateBody,
  TemplateId,
  TemplateName,
  TemplateSubject
} from "@roster/domain"
import { Effect, Either, Option, Schema } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import type { DashboardAssets } from "./assets.js"
import {
  field,
  fill,
  type FormFields,
  page,
  pageNumberOf,
  pagerOf,
  queryOf,
  redirect,
  refusalOf,
  type Workspace
} from "./pages.js"
import { deletionRoutes } from "./deletion.js"
import { frameNote, json, makeTemplatePreview, problemMessage, shownPreview } from "./template-preview.js"
import type { Screen } from "./screen.js"
import type { DashboardTexts } from "./texts.js"

/**
 * Templates: the list, and the editor of a template's name, subject and bodies in Liquid. As the
 * draft is typed, the page's script asks `POST /templates/check`, which reads it with the server's
 * own engine (the templates use case's `inspect`) and answers JSON: each part's problem at its line
 * and column, the variables the template reads, and the subject and text rendered for the chosen
 * subscriber; the HTML body is rendered into a sandboxed frame by `POST /templates/preview`, a
 * document with a policy of its own that runs no script. Without the script, saving shows the same
 * problems, and the Preview button fills the frame. Saving, previewing and the test send go
 * through the same use cases as the API.
 */

/** Templates a page of the list. */
const PER_PAGE = 50
const PARTS = ["subject", "html", "text"] as const
/** The characters of a problem's line shown, and how many of them before its column. */
const EXCERPT_WIDTH = 36
const EXCERPT_BEFORE = 12
type Part = typeof PARTS[number]

const templateIdOf = Schema.decodeUnknownOption(TemplateId)
const nameOf = Schema.decodeUnknownEither(TemplateName)
const subjectOf = Schema.decodeUnknownEither(TemplateSubject)
const bodyOf = Schema.decodeUnknownEither(TemplateBody)

type Texts = DashboardTexts["templates"]

/** What the editor's fields hold, as typed (bodies as written, line ends made `\n`). */
interface Values {
  readonly name: string
  readonly subject: string
  readonly html: string
  readonly text: string
  readonly previewEmail: string
}

/** A field's text as the browser sent it, line ends as `\n`, not trimmed: lines and columns stay as typed. */
const raw = (form: FormFields, name: string) => (form.get(name)?.[0] ?? "").replace(/\r\n?/g, "\n")

const valuesOf = (form: FormFields): Values => ({
  name: field(form, "name"),
  subject: raw(form, "subject"),
  html: raw(form, "html"),
  text: raw(form, "text"),
  previewEmail: field(form, "preview_email")
})

const valuesOfTemplate = (template: EmailTemplate, previewEmail: string): Values => ({
  name: template.name,
  subject: template.subject,
  html: template.html ?? "",
  text: template.text ?? "",
  previewEmail
})

const blankValues: Values = { name: "", subject: "", html: "", text: "", previewEmail: "" }

/** The draft as the engine reads it: an empty body is none. */
const sourceOf = (values: Values): EmailTemplateSource => ({
  subject: values.subject,
  html: values.html.trim() === "" ? null : values.html,
  text: values.text.trim() === "" ? null : values.text
})

/** A part's problem as the editor shows it: in words, at its line and column, with the line itself. */
export interface ShownProblem {
  readonly message: string
  readonly line: number | null
  readonly column: number | null
  /** The line the problem is on, with a caret under its column. */
  readonly excerpt: string | null
}

const shownProblem = (problem: TemplateProblem, source: EmailTemplateSource, workspace: Workspace): ShownProblem => {
  const message = problemMessage(problem, workspace)
  const lines = (source[problem.part] ?? "").split("\n")
  const text = problem.line === null ? undefined : lines[problem.line - 1]
  if (text === undefined || problem.column === null) return { message, line: problem.line, column: problem.column, excerpt: null }
  // The line around the column, short enough for a narrow screen.
  const start = Math.max(0, Math.min(problem.column - 1 - EXCERPT_BEFORE, text.length - EXCERPT_WIDTH))
  const shown = `${start > 0 ? "…" : ""}${text.slice(start, start + EXCERPT_WIDTH)}${start + EXCERPT_WIDTH < text.length ? "…" : ""}`
  const prefix = `${problem.line} | `
  const caret = " ".repeat(prefix.length + problem.column - 1 - start + (start > 0 ? 1 : 0))
  return { message, line: problem.line, column: problem.column, excerpt: `${prefix}${shown}\n${caret}^` }
}

const problemsByPart = (inspection: TemplateInspection, source: EmailTemplateSource, workspace: Workspace) => {
  const shown: Partial<Record<Part, ShownProblem>> = {}
  for (const problem of inspection.problems) shown[problem.part] ??= shownProblem(problem, source, workspace)
  return shown
}

/** The fields' own refusals (as the API's request schemas would refuse them), before the engine reads the draft. */
const fieldErrors = (values: Values, t: Texts): Record<string, string> => {
  const errors: Record<string, string> = {}
  if (Either.isLeft(nameOf(values.name))) errors.name = fill(t.invalidName, { max: MAX_TEMPLATE_NAME_LENGTH })
  if (Either.isLeft(subjectOf(values.subject))) errors.subject = fill(t.invalidSubject, { max: MAX_SUBJECT_LENGTH })
  for (const part of ["html", "text"] as const) {
    if (Either.isLeft(bodyOf(values[part]))) errors[part] = fill(t.invalidBody, { max: MAX_TEMPLATE_LENGTH })
  }
  if (values.html.trim() === "" && values.text.trim() === "" && errors.html === undefined) errors.html = t.bodyRequired
  return errors
}

/** A refusal of the use case beside the part it names, else for the whole form. */
const errorsOfRefusal = (error: ApplicationError, workspace: Workspace): Readonly<Record<string, string>> => {
  const refusal = refusalOf(error, workspace.t)
  const named = error._tag === "InvalidInput" ? error.field : undefined
  return named === "name" || named === "subject" || named === "html" || named === "text" ? { [named]: refusal.text } : { form: refusal.text }
}

const kindOf = (template: EmailTemplate): keyof Texts["kinds"] =>
  template.html !== null && template.text !== null ? "both" : template.html !== null ? "html" : "text"

export const makeTemplatesScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const templates = yield* Templates
    const preview = yield* makeTemplatePreview

    const listPath = (workspace: Workspace) => `${workspace.base}/templates`

    const refused = (workspace: Workspace, error: ApplicationError) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: listPath(workspace)
      }, { status: refusal.status, menu: "templates" })
    }

    /** The draft read by the engine, and rendered for the preview's subscriber when it can be read and is not blank. */
    const examine = (workspace: Workspace, values: Values) =>
      Effect.gen(function*() {
        const source = sourceOf(values)
        const blank = values.subject.trim() === "" || (source.html === null && source.text === null)
        const examined = yield* preview.examine(workspace, source, values.previewEmail, { render: !blank })
        return { ...examined, problems: problemsByPart(examined.inspection, source, workspace) }
      })

    const editorPage = (
      workspace: Workspace,
      scope: {
        readonly template?: EmailTemplate
        readonly values: Values
        readonly errors?: Readonly<Record<string, string>>
        readonly status?: number
      }
    ) =>
      Effect.gen(function*() {
        const examined = yield* examine(workspace, scope.values)
        const template = scope.template
        const base = listPath(workspace)
        const problems = Object.fromEntries(
          PARTS.flatMap((part) => {
            const problem = examined.problems[part]
            return problem === undefined || scope.errors?.[part] !== undefined ? [] : [[part, problem]]
          })
        )
        const frameQuery = scope.values.previewEmail === "" ? "" : `?email=${encodeURIComponent(scope.values.previewEmail)}`
        return page(assets, workspace, template === undefined ? "template-new" : "template-edit", {
          template: template === undefined ? undefined : { id: template.id, name: template.name },
          values: scope.values,
          errors: scope.errors ?? {},
          problems,
          variables: examined.inspection.variables,
          preview: shownPreview(workspace, examined),
          // A saved template's body shows in the frame at once; a new one's when previewed.
          frameSrc: template === undefined || scope.status !== undefined ? "" : `${base}/${template.id}/preview${frameQuery}`,
          action: template === undefined ? `${base}/new` : `${base}/${template.id}`,
          checkAction: `${base}/check`,
          previewAction: `${base}/preview`,
          searchAction: `${base}/subscribers`,
          testAction: template === undefined ? undefined : `${base}/${template.id}/test`,
          cancel: base
        }, { status: scope.status ?? 200, menu: "templates", frameSrc: "'self'" })
      })

    /**
     * The editor's form sent to be saved: the fields' own refusals and the engine's problems come
     * back on the page, each at its part; else the use case saves it (`save`), with the API's rules.
     */
    const submitted = (
      workspace: Workspace,
      form: FormFields,
      template: EmailTemplate | undefined,
      save: (input: { readonly name: string; readonly subject: string; readonly html: string | null; readonly text: string | null }) => Effect.Effect<EmailTemplate, ApplicationError>
    ) =>
      Effect.gen(function*() {
        const t = workspace.t.templates
        const values = valuesOf(form)
        const errors = fieldErrors(values, t)
        const source = sourceOf(values)
        const inspection = yield* templates.inspect(workspace.principal, source)
        const within = template === undefined ? {} : { template }
        if (Object.keys(errors).length > 0 || inspection.problems.length > 0) {
          return yield* editorPage(workspace, {
            ...within,
            values,
            errors: Object.keys(errors).length > 0 || inspection.problems.length === 0 ? errors : { ...errors, form: t.hasProblems },
            status: 400
          })
        }
        return yield* save({ name: values.name, subject: source.subject, html: source.html, text: source.text }).pipe(
          Effect.map((saved) =>
            redirect(`${listPath(workspace)}/${saved.id}`, {
              kind: "ok",
              text: fill(template === undefined ? t.created_ : t.saved, { name: saved.name })
            })
          ),
          Effect.catchAll((error) => {
            const refusal = refusalOf(error, workspace.t)
            if (refusal.status === 404 && template !== undefined) return Effect.fail(error)
            return editorPage(workspace, { ...within, values, errors: errorsOfRefusal(error, workspace), status: refusal.status })
          })
        )
      })

    /** The template the path names, or the page that says it is not there. */
    const withTemplate = (
      workspace: Workspace,
      f: (template: EmailTemplate) => Effect.Effect<HttpServerResponse.HttpServerResponse, ApplicationError>
    ) =>
      Effect.gen(function*() {
        const { template_id } = yield* HttpRouter.params
        const id = templateIdOf(template_id)
        if (Option.isNone(id)) return page(assets, workspace, "not-found", {}, { status: 404, menu: "templates" })
        return yield* templates.get(workspace.principal, id.value).pipe(Effect.flatMap(f))
      }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))

    const frameOf = (workspace: Workspace, source: EmailTemplateSource, email: string) => preview.frame(workspace, source, email)

    return {
      routes: [
        {
          method: "GET",
          path: "/templates",
          handle: (workspace, request) =>
            Effect.gen(function*() {
              const found = yield* templates.listPage(workspace.principal, { page: pageNumberOf(request), perPage: PER_PAGE })
              return page(assets, workspace, "templates", {
                templates: found.items.map((template) => ({
                  id: template.id,
                  name: template.name,
                  kind: kindOf(template),
                  changed: template.updatedAt.toISOString()
                })),
                total: found.total,
                ...pagerOf(listPath(workspace), found),
                newAction: `${listPath(workspace)}/new`
              }, { menu: "templates" })
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/templates/new",
          handle: (workspace) =>
            editorPage(workspace, { values: blankValues }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "POST",
          path: "/templates/new",
          handle: (workspace, _request, form) =>
            submitted(workspace, form, undefined, (input) => templates.create(workspace.principal, input))
              .pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "POST",
          path: "/templates/check",
          handle: (workspace, _request, form) =>
            Effect.gen(function*() {
              const values = valuesOf(form)
              const examined = yield* examine(workspace, values)
              const fields = fieldErrors(values, workspace.t.templates)
              return json({
                problems: Object.fromEntries(PARTS.map((part) => [part, examined.problems[part] ?? null])),
                fields: { subject: fields.subject ?? null, html: fields.html ?? null, text: fields.text ?? null },
                variables: examined.inspection.variables,
                preview: shownPreview(workspace, examined)
              })
            }).pipe(Effect.catchAll((error) => {
              const refusal = refusalOf(error, workspace.t)
              return Effect.succeed(HttpServerResponse.unsafeJson({ error: refusal.text }, { status: refusal.status }))
            }))
        },
        {
          method: "POST",
          path: "/templates/preview",
          handle: (workspace, _request, form) => {
            const values = valuesOf(form)
            return frameOf(workspace, sourceOf(values), values.previewEmail).pipe(
              Effect.catchAll((error) => Effect.succeed(frameNote(workspace, refusalOf(error, workspace.t).text)))
            )
          }
        },
        {
          method: "GET",
          path: "/templates/subscribers",
          handle: (workspace, request) => preview.suggestions(workspace, queryOf(request, "q"))
        },
        {
          method: "GET",
          path: "/templates/:template_id",
          handle: (workspace, request) =>
            withTemplate(workspace, (template) => editorPage(workspace, { template, values: valuesOfTemplate(template, queryOf(request, "email")) }))
        },
        {
          method: "POST",
          path: "/templates/:template_id",
          handle: (workspace, _request, form) =>
            withTemplate(workspace, (template) =>
              submitted(workspace, form, template, (input) => templates.update(workspace.principal, template.id, input)))
        },
        {
          method: "GET",
          path: "/templates/:template_id/preview",
          handle: (workspace, request) =>
            Effect.gen(function*() {
              const { template_id } = yield* HttpRouter.params
              const id = templateIdOf(template_id)
              if (Option.isNone(id)) return frameNote(workspace, workspace.t.refusal.notFound)
              const template = yield* templates.get(workspace.principal, id.value)
              return yield* frameOf(workspace, template, queryOf(request, "email"))
            }).pipe(Effect.catchAll((error) => Effect.succeed(frameNote(workspace, refusalOf(error, workspace.t).text))))
        },
        {
          method: "POST",
          path: "/templates/:template_id/test",
          handle: (workspace) =>
            withTemplate(workspace, (template) =>
              preview.testSend(workspace, { templateId: template.id }, {
                name: template.name,
                back: `${listPath(workspace)}/${template.id}`
              }))
        },
        ...deletionRoutes(assets, {
          path: "/templates/:template_id",
          menu: "templates",
          texts: (t) => t.templates,
          withRecord: withTemplate,
          places: (workspace, template) => ({
            name: template.name,
            action: `${listPath(workspace)}/${template.id}/delete`,
            cancel: `${listPath(workspace)}/${template.id}`,
            list: listPath(workspace)
          }),
          remove: (workspace, template) => templates.remove(workspace.principal, template.id)
        })
      ]
    } satisfies Screen
  })
