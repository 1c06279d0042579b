import { type HttpApi, HttpApiBuilder, type HttpApiGroup, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { apiError } from "./api-error.js"
import { findErrorCode } from "./error-catalog.js"
import type { makeErrorDocsGroup } from "./error-docs-group.js"
import { errorCodeDocument, errorCodePage, prefersJson } from "./error-pages.js"
import { HttpSettings } from "./http-settings.js"

type ErrorDocsGroup = ReturnType<typeof makeErrorDocsGroup>

/** The pages of the error codes, the same in every form. */
// The API's own errors and requirements do not matter to these handlers; any API with the group will do.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const makeErrorDocsHandlersLive = <ApiId extends string>(api: HttpApi.HttpApi<ApiId, HttpApiGroup.HttpApiGroup.Any, any, any>) =>
  HttpApiBuilder.group(api as unknown as HttpApi.HttpApi<ApiId, ErrorDocsGroup>, "errors", (handlers) =>
    Effect.gen(function*() {
      const { errorsBaseUrl } = yield* HttpSettings
      return handlers.handle("describe", ({ path, request }) =>
        Option.match(findErrorCode(path.code), {
          onNone: () => Effect.fail(apiError("not_found", `no error code ${path.code}`)),
          onSome: (entry) =>
            Effect.succeed(
              prefersJson(request.headers["accept"])
                ? errorCodeDocument(entry, errorsBaseUrl)
                : HttpServerResponse.html(errorCodePage(entry, errorsBaseUrl))
            )
        }))
    }))
