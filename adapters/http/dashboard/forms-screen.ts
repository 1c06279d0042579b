import { HttpRouter } from "@effect/platform"
import { Forms, type FormSignUpCounts, type FormView, Tags, Templates } from "@roster/application"
import {
  AllowedOrigins,
  ConsentText,
  type Form,
  FormId,
  FormName,
  MAX_ALLOWED_ORIGINS,
  MAX_CONSENT_TEXT_LENGTH,
  MAX_FORM_NAME_LENGTH,
  RedirectUrl,
  TagId,
  TemplateId
} from "@roster/domain"
import { Effect, Either, Option, Schema } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import { toFormEmbed } from "../shared/form-schemas.js"
import { HttpSettings } from "../shared/http-settings.js"
import type { DashboardAssets } from "./assets.js"
import {
  field,
  fill,
  type FormFields,
  page,
  pageNumberOf,
  pagerOf,
  redirect,
  refusalOf,
  type Workspace
} from "./pages.js"
import { deletionRoutes } from "./deletion.js"
import type { Screen } from "./screen.js"
import type { DashboardTexts } from "./texts.js"

/**
 * Sign-up forms: the list with each form's sign-ups waiting for confirmation and the subscribers
 * who joined through it; a form created, changed and deleted here through the same use case as
 * the API; its hosted page to open, and the HTML a site embeds (what `GET /forms/{id}/embed`
 * answers) to copy.
 */

/** Forms a page of the list. */
const PER_PAGE = 50

const formIdOf = Schema.decodeUnknownOption(FormId)
const isTagId = Schema.is(TagId)
const templateIdOf = Schema.decodeUnknownOption(TemplateId)
const nameOf = Schema.decodeUnknownEither(FormName)
const consentOf = Schema.decodeUnknownEither(ConsentText)
const urlOf = Schema.decodeUnknownEither(RedirectUrl)
const originsOf = Schema.decodeUnknownEither(AllowedOrigins)

type Texts = DashboardTexts["forms"]

/** What the form's fields hold, as typed: shown again beside a refusal. */
interface FormValues {
  readonly name: string
  readonly tags: ReadonlyArray<string>
  readonly doubleOptIn: boolean
  readonly consentText: string
  readonly successUrl: string
  readonly confirmedUrl: string
  readonly allowedOrigins: string
  readonly template: string
}

const valuesOf = (form: FormFields): FormValues => ({
  name: field(form, "name"),
  tags: form.get("tags") ?? [],
  doubleOptIn: field(form, "double_opt_in") === "on",
  consentText: field(form, "consent_text"),
  successUrl: field(form, "success_url"),
  confirmedUrl: field(form, "confirmed_url"),
  allowedOrigins: field(form, "allowed_origins"),
  template: field(form, "confirmation_template_id")
})

const valuesOfForm = ({ form, tags }: FormView): FormValues => ({
  name: form.name,
  tags: tags.map((tag) => tag.id),
  doubleOptIn: form.doubleOptIn,
  consentText: form.consentText ?? "",
  successUrl: form.successUrl ?? "",
  confirmedUrl: form.confirmedUrl ?? "",
  allowedOrigins: form.allowedOrigins.join("\n"),
  template: form.confirmationTemplateId ?? ""
})

const blankValues: FormValues = {
  name: "",
  tags: [],
  doubleOptIn: true,
  consentText: "",
  successUrl: "",
  confirmedUrl: "",
  allowedOrigins: "",
  template: ""
}

/** The fields as the use case takes them, or each field's refusal in the person's words. */
const inputOf = (values: FormValues, t: Texts) => {
  const errors: Record<string, string> = {}
  const name = nameOf(values.name)
  if (Either.isLeft(name)) errors.name = fill(t.invalidName, { max: MAX_FORM_NAME_LENGTH })
  const consent = values.consentText === "" ? Either.right(null) : consentOf(values.consentText)
  if (Either.isLeft(consent)) errors.consent_text = fill(t.invalidConsent, { max: MAX_CONSENT_TEXT_LENGTH })
  const url = (text: string, key: string) => {
    const decoded = text === "" ? Either.right(null) : urlOf(text)
    if (Either.isLeft(decoded)) errors[key] = t.invalidUrl
    return Either.getOrElse(decoded, () => null)
  }
  const successUrl = url(values.successUrl, "success_url")
  const confirmedUrl = url(values.confirmedUrl, "confirmed_url")
  const origins = originsOf(values.allowedOrigins.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== ""))
  if (Either.isLeft(origins)) errors.allowed_origins = fill(t.invalidOrigins, { max: MAX_ALLOWED_ORIGINS })
  const tagIds = values.tags.filter(isTagId)
  if (tagIds.length !== values.tags.length) errors.tags = t.unknownTag
  const template = values.template === "" ? Option.some(null) : templateIdOf(values.template)
  if (Option.isNone(template)) errors.confirmation_template_id = t.unknownTemplate
  if (Object.keys(errors).length > 0) return Either.left(errors)
  return Either.right({
    name: Either.getOrThrow(name),
    tagIds,
    doubleOptIn: values.doubleOptIn,
    consentText: Either.getOrThrow(consent),
    successUrl,
    confirmedUrl,
    allowedOrigins: Either.getOrThrow(origins),
    confirmationTemplateId: Option.getOrThrow(template)
  })
}

/** A refusal of the use case beside the field it names (`tags[2]` is the tags), else for the whole form. */
const errorsOfRefusal = (error: ApplicationError, workspace: Workspace): Readonly<Record<string, string>> => {
  const refusal = refusalOf(error, workspace.t)
  const named = error._tag === "InvalidInput" ? error.field.replace(/\[.*$/, "") : undefined
  return named === "tags" || named === "confirmation_template_id" ? { [named]: refusal.text } : { form: refusal.text }
}

const toRow = (view: FormView, counts: FormSignUpCounts | undefined) => ({
  id: view.form.id,
  name: view.form.name,
  doubleOptIn: view.form.doubleOptIn,
  tags: view.tags.map((tag) => tag.name),
  pending: counts?.pending ?? 0,
  confirmed: counts?.confirmed ?? 0
})

export const makeFormsScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const forms = yield* Forms
    const tags = yield* Tags
    const templates = yield* Templates
    const { publicBaseUrl } = yield* HttpSettings

    const listPath = (workspace: Workspace) => `${workspace.base}/forms`

    const refused = (workspace: Workspace, error: ApplicationError) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: listPath(workspace)
      }, { status: refusal.status, menu: "forms" })
    }

    /** What the form's choices offer: the organization's tags and templates. */
    const choices = (workspace: Workspace) =>
      Effect.all([
        tags.list(workspace.principal, { sort: "name", order: "asc", limit: 1_000 }),
        templates.list(workspace.principal, { limit: 100 })
      ], { concurrency: 2 }).pipe(
        Effect.map(([tagPage, templatePage]) => ({
          tags: tagPage.items.map((tag) => ({ id: tag.id, name: tag.name })),
          templates: templatePage.items.map((template) => ({ id: template.id, name: template.name }))
        }))
      )

    const editorPage = (
      workspace: Workspace,
      view: "form-new" | "form-edit",
      scope: { readonly form?: Form; readonly values: FormValues; readonly errors: object; readonly status?: number }
    ) =>
      Effect.map(choices(workspace), (offered) => {
        const embed = scope.form === undefined ? undefined : toFormEmbed(scope.form, workspace.locale, publicBaseUrl)
        return page(assets, workspace, view, {
          ...offered,
          form: scope.form === undefined ? undefined : { id: scope.form.id, name: scope.form.name },
          values: scope.values,
          errors: scope.errors,
          embed: embed?.html,
          pageUrl: embed?.page_url,
          hostedPath: scope.form === undefined ? undefined : `/f/${scope.form.id}`,
          action: scope.form === undefined ? `${listPath(workspace)}/new` : `${listPath(workspace)}/${scope.form.id}`,
          cancel: listPath(workspace)
        }, { status: scope.status ?? 200, menu: "forms" })
      })

    /** The form the path names, or the page that says it is not there. */
    const withForm = (
      workspace: Workspace,
      f: (view: FormView) => Effect.Effect<ReturnType<typeof page>, ApplicationError>
    ) =>
      Effect.gen(function*() {
        const { form_id } = yield* HttpRouter.params
        const id = formIdOf(form_id)
        if (Option.isNone(id)) return page(assets, workspace, "not-found", {}, { status: 404, menu: "forms" })
        return yield* forms.get(workspace.principal, id.value).pipe(Effect.flatMap(f))
      }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))

    return {
      routes: [
        {
          method: "GET",
          path: "/forms",
          handle: (workspace, request) =>
            Effect.gen(function*() {
              const found = yield* forms.listPage(workspace.principal, { page: pageNumberOf(request), perPage: PER_PAGE })
              const counts = yield* forms.signUpCounts(workspace.principal, found.items.map(({ form }) => form.id))
              return page(assets, workspace, "forms", {
                forms: found.items.map((view) => toRow(view, counts.get(view.form.id))),
                total: found.total,
                ...pagerOf(listPath(workspace), found),
                newAction: `${listPath(workspace)}/new`
              }, { menu: "forms" })
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/forms/new",
          handle: (workspace) =>
            editorPage(workspace, "form-new", { values: blankValues, errors: {} }).pipe(
              Effect.catchAll((error) => Effect.succeed(refused(workspace, error)))
            )
        },
        {
          method: "POST",
          path: "/forms/new",
          handle: (workspace, _request, form) =>
            Effect.gen(function*() {
              const values = valuesOf(form)
              const input = inputOf(values, workspace.t.forms)
              if (Either.isLeft(input)) return yield* editorPage(workspace, "form-new", { values, errors: input.left, status: 400 })
              return yield* forms.create(workspace.principal, input.right).pipe(
                Effect.map(({ form: made }) =>
                  redirect(`${listPath(workspace)}/${made.id}`, {
                    kind: "ok",
                    text: fill(workspace.t.forms.created_, { name: made.name })
                  })
                ),
                Effect.catchAll((error) => {
                  const refusal = refusalOf(error, workspace.t)
                  return editorPage(workspace, "form-new", { values, errors: errorsOfRefusal(error, workspace), status: refusal.status })
                })
              )
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/forms/:form_id",
          handle: (workspace) =>
            withForm(workspace, (view) => editorPage(workspace, "form-edit", { form: view.form, values: valuesOfForm(view), errors: {} }))
        },
        {
          method: "POST",
          path: "/forms/:form_id",
          handle: (workspace, _request, form) =>
            withForm(workspace, (view) => {
              const values = valuesOf(form)
              const input = inputOf(values, workspace.t.forms)
              if (Either.isLeft(input)) return editorPage(workspace, "form-edit", { form: view.form, values, errors: input.left, status: 400 })
              return forms.update(workspace.principal, view.form.id, input.right).pipe(
                Effect.map(({ form: saved }) =>
                  redirect(`${listPath(workspace)}/${saved.id}`, { kind: "ok", text: fill(workspace.t.forms.saved, { name: saved.name }) })
                ),
                Effect.catchAll((error) => {
                  const refusal = refusalOf(error, workspace.t)
                  return refusal.status === 404
                    ? Effect.fail(error)
                    : editorPage(workspace, "form-edit", {
                      form: view.form,
                      values,
                      errors: errorsOfRefusal(error, workspace),
                      status: refusal.status
                    })
                })
              )
            })
        },
        ...deletionRoutes(assets, {
          path: "/forms/:form_id",
          menu: "forms",
          texts: (t) => t.forms,
          withRecord: withForm,
          places: (workspace, { form }) => ({
            name: form.name,
            action: `${listPath(workspace)}/${form.id}/delete`,
            cancel: `${listPath(workspace)}/${form.id}`,
            list: listPath(workspace)
          }),
          remove: (workspace, { form }) => forms.remove(workspace.principal, form.id)
        })
      ]
    } satisfies Screen
  })
