import { HttpRouter } from "@effect/platform"
import { type Member, Members } from "@roster/application"
import { Role, UserId } from "@roster/domain"
import { Effect, Option, Schema } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import type { DashboardAssets } from "./assets.js"
import { errorsOf, field, type FormFields, page, redirect, refusalOf, type Workspace } from "./pages.js"
import type { Screen } from "./screen.js"

/**
 * Members: who belongs to the organization, with their role and since when. Owners invite by
 * email, change roles and remove members; anyone may leave. The use case decides who may do
 * what; the page only leaves out the controls a member's role would be refused.
 */

const userIdOf = Schema.decodeUnknownOption(UserId)
const isRole = Schema.is(Role)

/** A refusal shown beside one member's role. */
interface RowError {
  readonly userId: string
  readonly text: string
}

export const makeMembersScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const members = yield* Members

    const isSelf = (workspace: Workspace, member: Member) => member.userId === workspace.user.id

    const listPage = (
      workspace: Workspace,
      form: { readonly values: object; readonly errors: object; readonly rowError?: RowError },
      status = 200
    ) =>
      members.list(workspace.principal).pipe(
        Effect.map((found) =>
          page(assets, workspace, "members", {
            members: found.map((member) => ({
              userId: member.userId,
              email: member.email,
              role: member.role,
              since: member.since.toISOString(),
              self: isSelf(workspace, member),
              roleError: form.rowError?.userId === member.userId ? form.rowError.text : undefined
            })),
            total: found.length,
            isOwner: workspace.role === "owner",
            action: `${workspace.base}/members`,
            values: form.values,
            errors: form.errors
          }, { status, menu: "members" })
        )
      )

    const refused = (workspace: Workspace, error: ApplicationError) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: `${workspace.base}/members`
      }, { status: refusal.status, menu: "members" })
    }

    /** The member the path names, or the page that says they are not there. */
    const withMember = (
      workspace: Workspace,
      f: (member: Member) => Effect.Effect<ReturnType<typeof page>, ApplicationError>
    ) =>
      Effect.gen(function*() {
        const { user_id } = yield* HttpRouter.params
        const id = userIdOf(user_id)
        const found = Option.isNone(id)
          ? Option.none<Member>()
          : Option.fromNullable((yield* members.list(workspace.principal)).find((member) => member.userId === id.value))
        if (Option.isNone(found)) return page(assets, workspace, "not-found", {}, { status: 404, menu: "members" })
        return yield* f(found.value)
      }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))

    const removePage = (workspace: Workspace, member: Member, error: string | undefined, status = 200) =>
      page(assets, workspace, "member-remove", {
        member: { email: member.email },
        self: isSelf(workspace, member),
        error,
        action: `${workspace.base}/members/${member.userId}/remove`,
        cancel: `${workspace.base}/members`
      }, { status, menu: "members" })

    const invite = (workspace: Workspace, form: FormFields) => {
      const values = { email: field(form, "email"), role: field(form, "role") }
      if (values.email === "") return listPage(workspace, { values, errors: { email: workspace.t.members.missingEmail } }, 400)
      if (!isRole(values.role)) return listPage(workspace, { values, errors: { role: workspace.t.members.invalidRole } }, 400)
      return members.invite(workspace.principal, { email: values.email, role: values.role, locale: workspace.locale }).pipe(
        Effect.map((member) =>
          redirect(`${workspace.base}/members`, { kind: "ok", text: workspace.t.members.invited.replace("{{ email }}", member.email) })
        ),
        Effect.catchAll((error) => {
          const refusal = refusalOf(error, workspace.t, ["email", "role"])
          if (refusal.status === 403) return Effect.fail(error)
          const errors = refusal.field === "email" && error._tag === "InvalidInput"
            ? { email: workspace.t.members.invalidEmail }
            : errorsOf(refusal)
          return listPage(workspace, { values, errors }, refusal.status)
        })
      )
    }

    const changeRole = (workspace: Workspace, member: Member, form: FormFields) => {
      const role = field(form, "role")
      if (!isRole(role)) {
        return listPage(workspace, { values: {}, errors: {}, rowError: { userId: member.userId, text: workspace.t.members.invalidRole } }, 400)
      }
      return members.changeRole(workspace.principal, member.userId, role).pipe(
        Effect.map((changed) =>
          redirect(`${workspace.base}/members`, {
            kind: "ok",
            text: workspace.t.members.roleChanged.replace("{{ email }}", changed.email).replace("{{ role }}", workspace.t.role[changed.role])
          })
        ),
        Effect.catchAll((error) => {
          const refusal = refusalOf(error, workspace.t, ["role"])
          return refusal.field === "role"
            ? listPage(workspace, { values: {}, errors: {}, rowError: { userId: member.userId, text: refusal.text } }, refusal.status)
            : Effect.fail(error)
        })
      )
    }

    const remove = (workspace: Workspace, member: Member) =>
      members.remove(workspace.principal, member.userId).pipe(
        Effect.map(() =>
          isSelf(workspace, member)
            ? redirect("/app/organizations", {
              kind: "ok",
              text: workspace.t.members.left.replace("{{ organization }}", workspace.organization.name)
            })
            : redirect(`${workspace.base}/members`, { kind: "ok", text: workspace.t.members.removed.replace("{{ email }}", member.email) })
        ),
        Effect.catchAll((error) => {
          const refusal = refusalOf(error, workspace.t, ["role"])
          return refusal.field === "role" ? Effect.succeed(removePage(workspace, member, refusal.text, refusal.status)) : Effect.fail(error)
        })
      )

    return {
      routes: [
        {
          method: "GET",
          path: "/members",
          handle: (workspace) =>
            listPage(workspace, { values: { role: "member" }, errors: {} }).pipe(
              Effect.catchAll((error) => Effect.succeed(refused(workspace, error)))
            )
        },
        {
          method: "POST",
          path: "/members",
          handle: (workspace, _request, form) =>
            invite(workspace, form).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "POST",
          path: "/members/:user_id/role",
          handle: (workspace, _request, form) => withMember(workspace, (member) => changeRole(workspace, member, form))
        },
        {
          method: "GET",
          path: "/members/:user_id/remove",
          handle: (workspace) => withMember(workspace, (member) => Effect.succeed(removePage(workspace, member, undefined)))
        },
        {
          method: "POST",
          path: "/members/:user_id/remove",
          handle: (workspace) => withMember(workspace, (member) => remove(workspace, member))
        }
      ]
    } satisfies Screen
  })
