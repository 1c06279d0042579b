import { Option } from "effect"

/**
 * Every kind of error the service answers, as `GET /errors/{code}` documents it. The code is the
 * last segment of a problem's `type`; the wire forms choose the body around it.
 */
export interface ErrorCodeEntry {
  readonly code: string
  readonly status: number
  readonly title: string
  /** What happened, in a sentence or two. */
  readonly meaning: string
  /** What the client can do about it. */
  readonly remedy: string
}

const entries = {
  validation_error: {
    status: 400,
    title: "Validation Error",
    meaning:
      "The request was malformed or broke a rule: a field has the wrong type or an invalid value, a required field is missing, an unknown field was sent, or a path or query parameter is not acceptable. The detail and the errors list name every field concerned.",
    remedy: "Fix the named fields and send the request again. Repeating it unchanged gives the same answer."
  },
  unauthorized: {
    status: 401,
    title: "Unauthorized",
    meaning:
      "The request carried no usable credential: neither an X-API-Key header nor a svc_session cookie was sent, or the key is malformed, unknown or revoked, or the session has ended (signed out, expired, or its cookie was altered).",
    remedy:
      "Send a valid API key in the X-API-Key header, or sign in again through a magic link (POST /auth/magic-link) to get a new session cookie. Keys are shown once, at creation; create a new one if it was lost."
  },
  magic_link_expired: {
    status: 401,
    title: "Magic Link Expired",
    meaning: "The sign-in link is older than its 15 minutes and can no longer be used.",
    remedy: "Ask for a new link with POST /auth/magic-link and use it within 15 minutes."
  },
  magic_link_already_used: {
    status: 401,
    title: "Magic Link Already Used",
    meaning: "The sign-in link has been used already; every link signs in once.",
    remedy: "Ask for a new link with POST /auth/magic-link. If you did not use the link yourself, someone else may have."
  },
  invalid_token: {
    status: 401,
    title: "Invalid Token",
    meaning: "The token is missing, names nothing, or was altered: it was not issued by this service, or it was cut short when copied.",
    remedy: "Open the link from the email exactly as it was sent, or ask for a new one."
  },
  invalid_signature: {
    status: 401,
    title: "Invalid Signature",
    meaning:
      "A provider event was not signed with the service's secret: the X-EmailProvider-Signature header (hex HMAC-SHA256 of the raw body) or the svix-id, svix-timestamp and svix-signature headers of an email provider event, or the Stripe-Signature header of a payment event, are missing, do not match the body, or are more than five minutes old. Nothing was changed.",
    remedy:
      "Sign the raw body with EMAIL_WEBHOOK_SECRET (email events) or STRIPE_WEBHOOK_SECRET (payment events), or configure the provider's webhook with the same secret. A provider retries what it could not deliver."
  },
  forbidden: {
    status: 403,
    title: "Forbidden",
    meaning:
      "The credential is valid but may not do this: it lacks the scope the operation needs (owner-only areas such as API keys need `*`, which members do not hold), the resource belongs to another organization, the signed-in user is not a member of the organization named in X-Organization-Id, a request with a session cookie came from another site, administration was asked of an organization without the platform-admin flag, or a script posted to a sign-up form (or asked to, in a CORS preflight) from an origin that is not among the form's allowed origins.",
    remedy:
      "Use a key with the scope named in the detail or a key of the organization that owns the resource; with a session, name an organization you are a member of, ask an owner, and send changes from the service's own pages. Administration needs a key with `*` or an owner's session of a platform-admin organization. A site whose script signs readers up must be added to the form's allowed_origins by its owner."
  },
  not_found: {
    status: 404,
    title: "Resource Not Found",
    meaning: "Nothing exists at this address: the resource was never created or has been deleted, or the path names no endpoint.",
    remedy: "Check the identifier and the path. Lists show which resources exist."
  },
  method_not_allowed: {
    status: 405,
    title: "Method Not Allowed",
    meaning: "The path exists but does not accept this HTTP method.",
    remedy: "Use one of the methods listed in the Allow header of the response."
  },
  conflict: {
    status: 409,
    title: "Conflict",
    meaning: "The request would break a uniqueness rule: a subscriber with this email address, or a tag with this name or slug, already exists in the organization, or an organization with this slug already exists. Email addresses and tag names compare regardless of letter case. A custom sending domain belongs to one organization, and an organization has one at a time.",
    remedy: "Update the existing resource instead, or choose another value."
  },
  member_already_exists: {
    status: 409,
    title: "Member Already Exists",
    meaning: "The person invited is a member of the organization already. Email addresses compare regardless of letter case.",
    remedy: "Change the member's role instead, or invite another address."
  },
  last_owner: {
    status: 409,
    title: "Last Owner",
    meaning: "The change would leave the organization without an owner: its only owner cannot be removed, leave, or become a member.",
    remedy: "Make another member an owner first, then send the request again."
  },
  invalid_status_transition: {
    status: 409,
    title: "Invalid Status Transition",
    meaning: "The subscriber's status cannot move to the one asked for through the API. A complained subscriber can only become active again through their own action in the preference center; bounced and complained are set by the email provider only.",
    remedy: "Leave the status as it is, or let the subscriber act through the preference center."
  },
  idempotency_request_in_progress: {
    status: 409,
    title: "Idempotent Request In Progress",
    meaning:
      "A request with this Idempotency-Key is still being processed; its answer is not known yet, so it can neither be replayed nor run a second time.",
    remedy: "Wait a moment and send the same request with the same key again: it then answers what the first request answered."
  },
  idempotency_key_reused: {
    status: 422,
    title: "Idempotency Key Reused",
    meaning:
      "This Idempotency-Key was used before with another request: another method, path or body. A key stands for one request and is kept 24 hours, per organization and credential.",
    remedy: "Use a new key (a fresh UUID, for example) for every new request; reuse a key only to retry exactly the same request."
  },
  limit_exceeded: {
    status: 402,
    title: "Plan Limit Exceeded",
    meaning: "The organization's plan does not allow more of this: its subscriber limit or its monthly email limit has been reached, or the feature (a custom sending domain) needs a higher plan. What it holds is kept; only growth is refused. The detail names the limit and the plan that lifts it.",
    remedy: "Delete subscribers that are no longer needed, wait for the next month, or move the organization to the plan the detail names (POST /api/v1/billing/create-checkout-session)."
  },
  tag_limit_reached: {
    status: 409,
    title: "Tag Limit Reached",
    meaning:
      "The change would take the organization past the tags it may hold (1,000), or a subscriber past the tags they may carry (200), on every plan. The detail names the limit (tags_per_organization or tags_per_subscriber) and the errors list the field that asked for too much. Nothing of the request was carried out; what is already held is kept.",
    remedy:
      "Delete tags the organization no longer needs, or detach tags the subscriber no longer needs (a PATCH may remove some while it adds others), then send the request again."
  },
  payload_too_large: {
    status: 413,
    title: "Payload Too Large",
    meaning:
      "The request body is larger than the service accepts: 1 MiB for a JSON body, 16 KiB for a sign-up posted to a form; for a CSV file sent to an import, the service's IMPORT_MAX_BYTES (100 MiB unless its operator set another), which the detail names. Nothing of it was kept.",
    remedy: "Send a smaller body, for example by splitting the work (or the file) into several requests."
  },
  unsupported_media_type: {
    status: 415,
    title: "Unsupported Media Type",
    meaning:
      "The request body is not of a type the endpoint takes: its Content-Type is not application/json, or, for an import of subscribers, neither text/csv nor multipart/form-data.",
    remedy:
      "Send the body as JSON with the header Content-Type: application/json; send an import's CSV file as the body with Content-Type: text/csv, or as the file field of a multipart/form-data form."
  },
  rate_limited: {
    status: 429,
    title: "Too Many Requests",
    meaning:
      "Too many requests came in a short time. Requests to /api/v1 are limited per organization, by the requests per minute of its plan, and those without a valid credential per client address; sign-in links are limited per email address and per client address; sign-up pages per client address, and sign-ups per form as well. The request was not carried out.",
    remedy:
      "Wait the number of seconds given in the Retry-After header, then try again. Every /api/v1 answer tells the budget in X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix time in seconds when the count starts again)."
  },
  internal_error: {
    status: 500,
    title: "Internal Server Error",
    meaning: "The service failed to answer because of a fault of its own. Nothing about the fault is disclosed.",
    remedy: "Try again later. If it persists, report it with the X-Request-Id of the response."
  },
  service_unavailable: {
    status: 503,
    title: "Service Unavailable",
    meaning:
      "A service the API depends on, such as the database or the email provider, cannot be reached at the moment. Nothing was changed.",
    remedy: "Try again shortly. GET /ready tells when the service is ready again."
  },
  billing_disabled: {
    status: 503,
    title: "Billing Disabled",
    meaning: "This deployment runs without plans (PLAN_LIMITS=off): no organization has a subscriber, email or rate limit of a plan, so there is no plan to show, buy or change. Every /api/v1/billing route answers this.",
    remedy: "Nothing to do: the organization is not held to a plan. An operator who wants plans and billing sets PLAN_LIMITS=on (the default) and STRIPE_SECRET_KEY."
  },
  billing_not_configured: {
    status: 503,
    title: "Billing Not Configured",
    meaning: "This deployment has no payment provider: its operator has not set STRIPE_SECRET_KEY. The plan and its use (GET /api/v1/billing/subscription) are still shown.",
    remedy: "Ask the operator to set STRIPE_SECRET_KEY (and STRIPE_PRICE_PRO, STRIPE_PRICE_ENTERPRISE, STRIPE_WEBHOOK_SECRET), or to change the plan for you."
  },
  payment_provider_unavailable: {
    status: 503,
    title: "Payment Provider Unavailable",
    meaning: "The payment provider could not be reached, did not answer in time, or failed on its side. Nothing was changed.",
    remedy: "Try again shortly; the same request is safe to repeat."
  },
  payment_provider_error: {
    status: 502,
    title: "Payment Provider Error",
    meaning: "The payment provider refused what the service asked of it: its key or a configured price is not accepted, for example. Nothing was changed.",
    remedy: "Report it to the operator with the X-Request-Id of the response: the billing configuration needs fixing."
  }
} as const satisfies Record<string, Omit<ErrorCodeEntry, "code">>

export type ErrorCode = keyof typeof entries

export const errorCodes = Object.keys(entries) as ReadonlyArray<ErrorCode>

export const errorCatalog = Object.fromEntries(
  errorCodes.map((code) => [code, { code, ...entries[code] }])
) as unknown as { readonly [C in ErrorCode]: ErrorCodeEntry & { readonly code: C } }

export const findErrorCode = (code: string): Option.Option<ErrorCodeEntry> =>
  Object.prototype.hasOwnProperty.call(entries, code) ? Option.some(errorCatalog[code as ErrorCode]) : Option.none()
