import { HttpRouter } from "@effect/platform"
import { ApiKeys, type IssuedApiKey } from "@roster/application"
import { type ApiKey, ApiKeyId, ApiKeyName, Scope, scopes } from "@roster/domain"
import { Effect, Either, Option, Schema } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import type { DashboardAssets } from "./assets.js"
import { errorsOf, field, type FormFields, page, redirect, refusalOf, type Workspace } from "./pages.js"
import type { Screen } from "./screen.js"

/**
 * API keys: each with its scopes, kind and last use; made, rotated and revoked here. A key made or
 * rotated is shown on the page that answers the form, once: never in an address, a cookie or a
 * later page. Managing keys needs `*`, which only owners hold; the use case refuses everyone else.
 */

const apiKeyIdOf = Schema.decodeUnknownOption(ApiKeyId)
const nameOf = Schema.decodeUnknownEither(ApiKeyName)
const isScope = Schema.is(Scope)
const FIELDS = ["name", "scopes", "environment"]

const toRow = (apiKey: ApiKey) => ({
  id: apiKey.id,
  name: apiKey.name,
  prefix: apiKey.prefix,
  lastFour: apiKey.lastFour,
  scopes: apiKey.scopes,
  environment: apiKey.environment,
  createdAt: apiKey.createdAt.toISOString(),
  lastUsedAt: apiKey.lastUsedAt?.toISOString(),
  revokedAt: apiKey.revokedAt?.toISOString()
})

interface Values {
  readonly name: string
  readonly scopes: ReadonlyArray<string>
  readonly environment: string
}

const valuesOf = (form: FormFields): Values => ({
  name: field(form, "name"),
  scopes: form.get("scopes") ?? [],
  environment: field(form, "environment") === "test" ? "test" : "live"
})

export const makeApiKeysScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys

    /** Every scope the domain defines, each with its words and whether the form has it ticked. */
    const scopeChoices = (workspace: Workspace, chosen: ReadonlyArray<string>) =>
      scopes.map((scope) => ({ scope, description: workspace.t.apiKeys.scopeNames[scope], checked: chosen.includes(scope) }))

    const listPage = (workspace: Workspace, values: Values, errors: object, status = 200) =>
      apiKeys.list(workspace.principal).pipe(
        Effect.map((found) =>
          page(assets, workspace, "api-keys", {
            apiKeys: found.map(toRow),
            total: found.length,
            action: `${workspace.base}/api-keys`,
            values,
            scopeChoices: scopeChoices(workspace, values.scopes),
            errors
          }, { status, menu: "apiKeys" })
        )
      )

    const refused = (workspace: Workspace, error: ApplicationError) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: workspace.base
      }, { status: refusal.status, menu: "apiKeys" })
    }

    /** The full key, this once; the page is never stored (every page is `no-store`). */
    const issuedPage = (workspace: Workspace, issued: IssuedApiKey) =>
      page(assets, workspace, "api-key-issued", {
        apiKey: toRow(issued.apiKey),
        key: issued.key,
        back: `${workspace.base}/api-keys`
      }, { menu: "apiKeys" })

    /** The key the path names, or the page that says it is not there. */
    const withKey = (
      workspace: Workspace,
      f: (apiKey: ApiKey) => Effect.Effect<ReturnType<typeof page>, ApplicationError>
    ) =>
      Effect.gen(function*() {
        const { api_key_id } = yield* HttpRouter.params
        const id = apiKeyIdOf(api_key_id)
        if (Option.isNone(id)) return page(assets, workspace, "not-found", {}, { status: 404, menu: "apiKeys" })
        return yield* apiKeys.get(workspace.principal, id.value).pipe(Effect.flatMap(f))
      }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))

    const confirmPage = (workspace: Workspace, apiKey: ApiKey, view: "api-key-rotate" | "api-key-revoke") =>
      page(assets, workspace, view, {
        apiKey: toRow(apiKey),
        action: `${workspace.base}/api-keys/${apiKey.id}/${view === "api-key-rotate" ? "rotate" : "revoke"}`,
        cancel: `${workspace.base}/api-keys`
      }, { menu: "apiKeys" })

    const create = (workspace: Workspace, form: FormFields) => {
      const values = valuesOf(form)
      const name = nameOf(values.name)
      const chosen = values.scopes.filter(isScope)
      const errors = {
        ...(values.name === ""
          ? { name: workspace.t.apiKeys.missingName }
          : Either.isLeft(name)
          ? { name: workspace.t.apiKeys.invalidName }
          : {}),
        ...(chosen.length === 0 ? { scopes: workspace.t.apiKeys.missingScopes } : {})
      }
      if (Either.isLeft(name) || Object.keys(errors).length > 0) return listPage(workspace, values, errors, 400)
      return apiKeys.issue(workspace.principal, {
        name: name.right,
        scopes: chosen,
        environment: values.environment === "test" ? "test" : "live"
      }).pipe(
        Effect.map((issued) => issuedPage(workspace, issued)),
        Effect.catchAll((error) => {
          const refusal = refusalOf(error, workspace.t, FIELDS)
          return refusal.status === 403 ? Effect.fail(error) : listPage(workspace, values, errorsOf(refusal), refusal.status)
        })
      )
    }

    return {
      routes: [
        {
          method: "GET",
          path: "/api-keys",
          handle: (workspace) =>
            listPage(workspace, { name: "", scopes: [], environment: "live" }, {}).pipe(
              Effect.catchAll((error) => Effect.succeed(refused(workspace, error)))
            )
        },
        {
          method: "POST",
          path: "/api-keys",
          handle: (workspace, _request, form) =>
            create(workspace, form).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/api-keys/:api_key_id/rotate",
          handle: (workspace) => withKey(workspace, (apiKey) => Effect.succeed(confirmPage(workspace, apiKey, "api-key-rotate")))
        },
        {
          method: "POST",
          path: "/api-keys/:api_key_id/rotate",
          handle: (workspace) =>
            withKey(workspace, (apiKey) =>
              Effect.map(apiKeys.rotate(workspace.principal, apiKey.id), (issued) => issuedPage(workspace, issued)))
        },
        {
          method: "GET",
          path: "/api-keys/:api_key_id/revoke",
          handle: (workspace) => withKey(workspace, (apiKey) => Effect.succeed(confirmPage(workspace, apiKey, "api-key-revoke")))
        },
        {
          method: "POST",
          path: "/api-keys/:api_key_id/revoke",
          handle: (workspace) =>
            withKey(workspace, (apiKey) =>
              apiKeys.revoke(workspace.principal, apiKey.id).pipe(
                Effect.as(redirect(`${workspace.base}/api-keys`, {
                  kind: "ok",
                  text: workspace.t.apiKeys.revoked.replace("{{ name }}", apiKey.name)
                }))
              ))
        }
      ]
    } satisfies Screen
  })
