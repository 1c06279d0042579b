import { HttpApi, OpenApi } from "@effect/platform"
import { makeAuthGroup } from "../shared/auth-group.js"
import { makeErrorDocsGroup } from "../shared/error-docs-group.js"
import { ProbesGroup } from "../shared/probes.js"
import { ServiceIndexGroup } from "../shared/service-index.js"
import { makeProviderEventsGroup } from "../shared/provider-events.js"
import { makePaymentEventsGroup } from "../shared/payment-events.js"
import { PreferencePageGroup } from "../shared/preference-page.js"
import { makeSignUpPageGroup } from "../shared/sign-up-page.js"
import { UnsubscribeGroup } from "../shared/unsubscribe.js"
import { serviceVersion } from "../shared/service-version.js"
import { AdminGroup } from "./admin-group.js"
import { CampaignsGroup } from "./campaigns-group.js"
import { TriggersGroup } from "./triggers-group.js"
import { SequencesGroup } from "./sequences-group.js"
import { EmailsGroup } from "./emails-group.js"
import { NotesGroup } from "./notes-group.js"
import { SettingsGroup } from "./settings-group.js"
import { BillingGroup } from "./billing-group.js"
import { TemplatesGroup } from "./templates-group.js"
import { FormsGroup } from "./forms-group.js"
import { SegmentsGroup } from "./segments-group.js"
import { ApiKeysGroup } from "./api-keys-group.js"
import { SessionAuthentication } from "./authentication.js"
import { finishOpenApi } from "./openapi.js"
import { PreferenceCenterGroup } from "./preference-center-group.js"
import { problems } from "./problems.js"
import { ImportsGroup } from "./imports-group.js"
import { SubscribersGroup } from "./subscribers-group.js"
import { TagsGroup } from "./tags-group.js"
import { WebhooksGroup } from "./webhooks-group.js"

const description = `Subscribers, tags, notes, templates, email, outgoing webhooks and API keys of newsletter
organizations, over HTTP, and the platform admin's view of every organization and user.

Every \`/api/v1\` request carries an API key in the \`X-API-Key\` header, or the sign-in session cookie \`svc_session\`.
A key's organization is the one acted for, whatever else the request says; a session names its organization in the
\`X-Organization-Id\` header (400 without it, 403 when the user is not a member of it), and a request with a session that
changes something must come from the service's own site. Owners hold every scope, members those of subscribers, tags, templates and email.
Dashboard users sign in without a password: \`POST /auth/magic-link\` emails a link, \`GET /auth/verify\` sets the cookie.
Bodies are bare JSON in snake_case; unknown fields are refused. Lists are keyset pages (\`limit\`, \`cursor\`, \`sort\`, \`order\`)
with the total in \`X-Total-Count\` and the next page in \`Link\`.

Requests to \`/api/v1\` are limited per organization by the requests per minute of its plan (those without a valid
credential per client address); every answer carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and
\`X-RateLimit-Reset\` (Unix seconds), and a request past the limit answers 429 \`rate_limited\` with \`Retry-After\`
without being carried out. Every POST there (but a CSV upload) takes an optional \`Idempotency-Key\` header: a repeat of the
same request with the same key answers the first answer again, with \`Idempotent-Replayed: true\`, instead of running twice.

Every error is an RFC 9457 problem (\`application/problem+json\`) with \`type\`, \`title\`, \`status\`, \`detail\` and \`instance\`;
\`type\` links to a page that documents the code. A path that exists answers 405 \`method_not_allowed\` (with \`Allow\`) to
other methods, and 404 \`not_found\` otherwise. Bodies over 1 MiB answer 413 \`payload_too_large\`, bodies that are not
JSON 415 \`unsupported_media_type\`; a CSV file sent to \`POST /api/v1/subscribers/imports\` is the exception (up to the
service's \`IMPORT_MAX_BYTES\`, as CSV or a multipart form). Every response carries \`X-Request-Id\`.`

const ErrorDocsGroup = makeErrorDocsGroup(problems, {
  codeIn: "the last segment of a problem's `type`",
  errorBodies: "problem responses",
  linkedFrom: "Every problem's `type` links here."
})

/** The reference wire form: `/api/v1`, bare JSON, cursor pages, PUT updates, problem details. */
export class ReferenceApi extends HttpApi.make("reference")
  .add(makeAuthGroup(problems, SessionAuthentication))
  .add(ImportsGroup)
  .add(SubscribersGroup)
  .add(TagsGroup)
  .add(ApiKeysGroup)
  .add(WebhooksGroup)
  .add(NotesGroup)
  .add(TemplatesGroup)
  .add(FormsGroup)
  .add(SegmentsGroup)
  .add(EmailsGroup)
  .add(CampaignsGroup)
  .add(TriggersGroup)
  .add(SequencesGroup)
  .add(SettingsGroup)
  .add(BillingGroup)
  .add(AdminGroup)
  .add(PreferenceCenterGroup)
  .add(PreferencePageGroup)
  .add(makeSignUpPageGroup(problems))
  .add(UnsubscribeGroup)
  .add(makeProviderEventsGroup(problems))
  .add(makePaymentEventsGroup(problems))
  .add(ProbesGroup)
  .add(ServiceIndexGroup)
  .add(ErrorDocsGroup)
  .pipe(problems.api("internal_error"))
  // The answers to requests that reach no operation, declared under `components.responses`.
  .annotate(HttpApi.AdditionalSchemas, [problems.schemas.not_found, problems.schemas.method_not_allowed])
  .annotateContext(OpenApi.annotations({
    title: "Roster API",
    version: serviceVersion,
    description,
    license: { name: "MIT", url: "https://opensource.org/licenses/MIT" },
    transform: finishOpenApi
  }))
{}
