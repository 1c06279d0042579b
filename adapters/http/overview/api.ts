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
import { OverviewSessionAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { finishOverviewOpenApi } from "./openapi.js"
import { PreferenceCenterGroup, PreferencesGroup } from "./preferences-group.js"
import { AdminGroup } from "./admin-group.js"
import { ApiKeysGroup } from "./api-keys-group.js"
import { EmailsGroup } from "./emails-group.js"
import { NotesGroup } from "./notes-group.js"
import { SettingsGroup } from "./settings-group.js"
import { BillingGroup } from "./billing-group.js"
import { TemplatesGroup } from "./templates-group.js"
import { FormsGroup } from "./forms-group.js"
import { SegmentsGroup } from "./segments-group.js"
import { CampaignsGroup } from "./campaigns-group.js"
import { TriggersGroup } from "./triggers-group.js"
import { SequencesGroup } from "./sequences-group.js"
import { ImportsGroup } from "./imports-group.js"
import { SubscribersGroup } from "./subscribers-group.js"
import { TagsGroup } from "./tags-group.js"
import { WebhooksGroup } from "./webhooks-group.js"

const description = `Subscribers, tags, notes, templates, email and outgoing webhooks of newsletter organizations, over HTTP.

Dashboard users sign in without a password: \`POST /auth/magic-link\` emails a link, \`GET /auth/verify\` sets the
session cookie. The \`/auth\` routes are the same in every form of the API, and answer errors in this form's body.

The API is served under \`/v1\` and, the same, under \`/api/v1\`. Every request there carries an API key in the
\`X-API-Key\` header, or the sign-in session cookie \`svc_session\` with the organization to act for in the
\`X-Organization-Id\` header (400 without it, 403 when the user is not a member of it).

A single resource answers \`{data: {...}}\`, a list \`{data: [...], meta: {total, page, per_page, total_pages}}\`.
Lists take \`page\` (from 1, default 1) and \`per_page\` (1 to 100, default 50), and \`sort\`: field names separated by
commas, each descending with a leading \`-\` (\`-created_at,email\`). Changes are PATCH; a subscriber's tags are named.

Requests are limited per organization by the requests per minute of its plan; every answer carries
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds), and a request past the limit
answers 429 \`rate_limited\` with \`Retry-After\`. Every POST (but a CSV upload to \`/v1/subscribers/imports\`) takes an
optional \`Idempotency-Key\` header: a repeat of the same request with the same key answers the first answer again, with
\`Idempotent-Replayed: true\`.

Every error answers \`{error: {code, message, details: [{field, message}]}}\`; a \`validation_error\` lists every
field concerned in \`details\`.`

/** The design-overview wire form: `/v1` (and `/api/v1`), `data` envelopes, numbered pages, PATCH, error envelopes. */
export class OverviewApi extends HttpApi.make("overview")
  .add(makeAuthGroup(envelopes, OverviewSessionAuthentication))
  .add(ImportsGroup)
  .add(SubscribersGroup)
  .add(TagsGroup)
  .add(WebhooksGroup)
  .add(NotesGroup)
  .add(TemplatesGroup)
  .add(FormsGroup)
  .add(SegmentsGroup)
  .add(CampaignsGroup)
  .add(TriggersGroup)
  .add(SequencesGroup)
  .add(EmailsGroup)
  .add(SettingsGroup)
  .add(BillingGroup)
  .add(ApiKeysGroup)
  .add(AdminGroup)
  .add(PreferencesGroup)
  .add(PreferenceCenterGroup)
  .add(PreferencePageGroup)
  .add(makeSignUpPageGroup(envelopes))
  .add(UnsubscribeGroup)
  .add(makeProviderEventsGroup(envelopes))
  .add(makePaymentEventsGroup(envelopes))
  .add(ProbesGroup)
  .add(ServiceIndexGroup)
  .add(makeErrorDocsGroup(envelopes, { codeIn: "as `error.code` carries it", errorBodies: "error envelopes" }))
  .pipe(envelopes.api("internal_error"))
  // The answers to requests that reach no operation, declared under `components.responses`.
  .annotate(HttpApi.AdditionalSchemas, [envelopes.schemas.not_found, envelopes.schemas.method_not_allowed])
  .annotateContext(OpenApi.annotations({
    title: "Roster API",
    version: serviceVersion,
    description,
    license: { name: "MIT", url: "https://opensource.org/licenses/MIT" },
    transform: finishOverviewOpenApi
  }))
{}
