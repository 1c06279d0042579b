import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { findErrorCode } from "../error-catalog.js"
import { errorCodeDocument, errorCodePage, prefersJson } from "../error-pages.js"
import { HttpSettings } from "../http-settings.js"
import { pathOf } from "../request-path.js"
import { ReferenceApi } from "./api.js"
import { makeProblem } from "./problems.js"

export const ErrorDocsHandlersLive = HttpApiBuilder.group(ReferenceApi, "errors", (handlers) =>
  Effect.gen(function*() {
    const { errorsBaseUrl } = yield* HttpSettings
    return handlers.handle("describe", ({ path, request }) =>
      Option.match(findErrorCode(path.code), {
        onNone: () =>
          Effect.fail(makeProblem("not_found", {
            errorsBaseUrl,
            instance: pathOf(request),
            detail: `no error code ${path.code}`
          })),
        onSome: (entry) =>
          Effect.succeed(
            prefersJson(request.headers["accept"])
              ? errorCodeDocument(entry, errorsBaseUrl)
              : HttpServerResponse.html(errorCodePage(entry, errorsBaseUrl))
          )
      }))
  }))
