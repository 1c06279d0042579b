import { HttpRouter } from "@effect/platform"
import { Tags } from "@roster/application"
import { type Tag, TagId } from "@roster/domain"
import { Effect, Option, Schema } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import type { DashboardAssets } from "./assets.js"
import { errorsOf, field, type FormFields, page, redirect, refusalOf, type Workspace } from "./pages.js"
import { deletionRoutes } from "./deletion.js"
import type { Screen } from "./screen.js"

/** Tags: each with its subscriber count; created, renamed, described and deleted here. */

const tagIdOf = Schema.decodeUnknownOption(TagId)
const FIELDS = ["name", "description", "visibility"]

const toRow = (tag: Tag) => ({
  id: tag.id,
  name: tag.name,
  description: tag.description ?? "",
  visibility: tag.visibility,
  subscriberCount: tag.subscriberCount,
  createdAt: tag.createdAt.toISOString()
})

/** The form's values as the use cases take them: a blank description clears it. */
const changesOf = (form: FormFields) => ({
  name: field(form, "name"),
  description: field(form, "description") === "" ? null : field(form, "description"),
  visibility: field(form, "visibility") === "private" ? "private" as const : "public" as const
})

const valuesOf = (form: FormFields) => ({
  name: field(form, "name"),
  description: field(form, "description"),
  visibility: field(form, "visibility")
})

export const makeTagsScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const tags = yield* Tags

    const listPage = (workspace: Workspace, form: { values: object; errors: object }, status = 200) =>
      tags.list(workspace.principal, { sort: "name", order: "asc", limit: 1_000 }).pipe(
        Effect.map((found) =>
          page(assets, workspace, "tags", {
            tags: found.items.map(toRow),
            total: found.total,
            newTagAction: `${workspace.base}/tags`,
            ...form
          }, { status, menu: "tags" })
        )
      )

    const refused = (workspace: Workspace, error: ApplicationError) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: `${workspace.base}/tags`
      }, { status: refusal.status, menu: "tags" })
    }

    /** The tag the path names, or the page that says it is not there. */
    const withTag = (
      workspace: Workspace,
      f: (tag: Tag) => Effect.Effect<ReturnType<typeof page>, ApplicationError>
    ) =>
      Effect.gen(function*() {
        const { tag_id } = yield* HttpRouter.params
        const id = tagIdOf(tag_id)
        if (Option.isNone(id)) return page(assets, workspace, "not-found", {}, { status: 404, menu: "tags" })
        return yield* tags.get(workspace.principal, id.value).pipe(Effect.flatMap(f))
      }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))

    const editPage = (workspace: Workspace, tag: Tag, values: object, errors: object, status = 200) =>
      page(assets, workspace, "tag-edit", {
        tag: toRow(tag),
        values,
        errors,
        action: `${workspace.base}/tags/${tag.id}/edit`,
        cancel: `${workspace.base}/tags`
      }, { status, menu: "tags" })

    return {
      routes: [
        {
          method: "GET",
          path: "/tags",
          handle: (workspace) =>
            listPage(workspace, { values: {}, errors: {} }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "POST",
          path: "/tags",
          handle: (workspace, _request, form) =>
            (field(form, "name") === ""
              ? listPage(workspace, { values: valuesOf(form), errors: { name: workspace.t.tags.missingName } }, 400)
              : tags.create(workspace.principal, changesOf(form)).pipe(
              Effect.map((tag) => redirect(`${workspace.base}/tags`, { kind: "ok", text: workspace.t.tags.created_.replace("{{ name }}", tag.name) })),
              Effect.catchAll((error) => {
                const refusal = refusalOf(error, workspace.t, FIELDS)
                return listPage(workspace, { values: valuesOf(form), errors: errorsOf(refusal) }, refusal.status)
              })
            )).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/tags/:tag_id/edit",
          handle: (workspace) =>
            withTag(workspace, (tag) => Effect.succeed(editPage(workspace, tag, toRow(tag), {})))
        },
        {
          method: "POST",
          path: "/tags/:tag_id/edit",
          handle: (workspace, _request, form) =>
            withTag(workspace, (tag) =>
              field(form, "name") === ""
                ? Effect.succeed(editPage(workspace, tag, valuesOf(form), { name: workspace.t.tags.missingName }, 400))
                : tags.update(workspace.principal, tag.id, changesOf(form)).pipe(
                Effect.map((saved) =>
                  redirect(`${workspace.base}/tags`, { kind: "ok", text: workspace.t.tags.saved.replace("{{ name }}", saved.name) })
                ),
                Effect.catchAll((error) => {
                  const refusal = refusalOf(error, workspace.t, FIELDS)
                  return refusal.status === 404
                    ? Effect.fail(error)
                    : Effect.succeed(editPage(workspace, tag, valuesOf(form), errorsOf(refusal), refusal.status))
                })
              ))
        },
        ...deletionRoutes(assets, {
          path: "/tags/:tag_id",
          menu: "tags",
          texts: (t) => t.tags,
          withRecord: withTag,
          places: (workspace, tag) => ({
            name: tag.name,
            action: `${workspace.base}/tags/${tag.id}/delete`,
            cancel: `${workspace.base}/tags`,
            list: `${workspace.base}/tags`,
            consequence: { count: tag.subscriberCount }
          }),
          remove: (workspace, tag) => tags.remove(workspace.principal, tag.id)
        })
      ]
    } satisfies Screen
  })
