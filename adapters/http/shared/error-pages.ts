import { Schema } from "effect"
import type { ErrorCodeEntry } from "./error-catalog.js"
import { pageTemplate, renderPage } from "./page-templates.js"

/** What `GET /errors/{code}` answers to clients that ask for JSON. */
export const ErrorCodeDocument = Schema.Struct({
  code: Schema.String,
  type: Schema.String.annotations({ description: "the problem `type` value that names this code" }),
  status: Schema.Int.annotations({ description: "the HTTP status answered with this code" }),
  title: Schema.String,
  meaning: Schema.String.annotations({ description: "what happened" }),
  remedy: Schema.String.annotations({ description: "what the client can do about it" })
}).annotations({ identifier: "ErrorCode", description: "documentation of one error code" })

export const errorCodeDocument = (entry: ErrorCodeEntry, errorsBaseUrl: string): typeof ErrorCodeDocument.Type => ({
  code: entry.code,
  type: `${errorsBaseUrl}/${entry.code}`,
  status: entry.status,
  title: entry.title,
  meaning: entry.meaning,
  remedy: entry.remedy
})

const errorCodeTemplate = pageTemplate(`<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>{{ title }} ({{ status }}) · Roster errors</title>
  <style>
    body { font-family: system-ui, sans-serif; max-width: 42rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1f2328; }
    code { background: #f3f4f6; padding: 0.1rem 0.3rem; border-radius: 4px; }
    dt { font-weight: 600; margin-top: 1rem; }
    dd { margin: 0.25rem 0 0; }
  </style>
</head>
<body>
  <h1>{{ title }}</h1>
  <dl>
    <dt>Code</dt><dd><code>{{ code }}</code></dd>
    <dt>HTTP status</dt><dd>{{ status }}</dd>
    <dt>Problem type</dt><dd><code>{{ type }}</code></dd>
    <dt>What it means</dt><dd>{{ meaning }}</dd>
    <dt>What to do</dt><dd>{{ remedy }}</dd>
  </dl>
</body>
</html>
`)

/** A small self-contained page for people who follow a problem's `type` link. */
export const errorCodePage = (entry: ErrorCodeEntry, errorsBaseUrl: string): string =>
  renderPage(errorCodeTemplate, errorCodeDocument(entry, errorsBaseUrl))

/** Whether the Accept header asks for JSON rather than a page. */
export const prefersJson = (accept: string | undefined): boolean => {
  if (accept === undefined) return false
  const types = accept.split(",").map((part) => part.split(";")[0]!.trim().toLowerCase())
  const json = types.findIndex((t) => t === "application/json" || t === "application/problem+json")
  const html = types.findIndex((t) => t === "text/html")
  return json !== -1 && (html === -1 || json < html)
}
