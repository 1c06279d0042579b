import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { findErrorCode } from "../error-catalog.js"
import { errorCodeDocument, errorCodePage, prefersJson } from "../error-pages.js"
import { HttpSettings } from "../http-settings.js"
import { OverviewApi } from "./api.js"
import { NotFoundError } from "./errors.js"

export const ErrorDocsHandlersLive = HttpApiBuilder.group(OverviewApi, "errors", (handlers) =>
  Effect.gen(function*() {
    const { errorsBaseUrl } = yield* HttpSettings
    return handlers.handle("describe", ({ path, request }) =>
      Option.match(findErrorCode(path.code), {
        onNone: () =>
          Effect.fail(new NotFoundError({ error: { code: "not_found", message: `no error code ${path.code}`, details: [] } })),
        onSome: (entry) =>
          Effect.succeed(
            prefersJson(request.headers["accept"])
              ? errorCodeDocument(entry, errorsBaseUrl)
              : HttpServerResponse.html(errorCodePage(entry, errorsBaseUrl))
          )
      }))
  }))
