import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { Principal, SignedInUser } from "@roster/application"
import { type Locale, type Membership, type Organization, planLimits, type Reason, reasonText } from "@roster/domain"
import { Effect, Option } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { type ApplicationError, apiErrorOf } from "../shared/application-errors.js"
import type { HttpSettingsShape } from "../shared/http-settings.js"
import { crossSiteReason, sessionCookieOf } from "../shared/session-cookie.js"
import { negotiateLocale } from "../shared/sign-in-page.js"
import type { DashboardAssets } from "./assets.js"
import { dashboardTexts, type DashboardTexts } from "./texts.js"
import { type DashboardView, renderView } from "./views.js"

/**
 * What every screen of the dashboard shares: who is looking, in which language, how a page is
 * answered, how a form's refusal is shown beside its field, and the checks a form must pass before
 * anything changes. Screens call use cases; no rule of the product lives here.
 */

export const LOCALE_COOKIE = "roster_locale"
const FLASH_COOKIE = "roster_flash"

/** Only the dashboard's own script and stylesheet run; it talks to, and sends forms to, itself alone. */
export const DASHBOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'"
].join("; ")

const pageHeaders: Readonly<Record<string, string>> = {
  "Cache-Control": "no-store",
  "Referrer-Policy": "same-origin",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY"
}

/** A message shown once, on the page a form's success leads to. */
export interface Flash {
  readonly kind: "ok" | "error"
  readonly text: string
}

/** The person looking at a page: their language, and their session if they have one. */
export interface Visitor {
  readonly locale: Locale
  readonly t: DashboardTexts
  /** The path and query of the page, for links that come back to it. */
  readonly path: string
  readonly sessionToken: string | undefined
  readonly flash: Flash | undefined
}

/** A signed-in person, and the organizations they belong to. */
export interface Member extends Visitor {
  readonly sessionToken: string
  /** The session's user and organizations as the use case read them, once per request. */
  readonly signedIn: SignedInUser
  readonly user: { readonly id: string; readonly email: string }
  readonly organizations: ReadonlyArray<{ readonly membership: Membership; readonly organization: Organization }>
  /** The token every form of theirs carries, which another site cannot know. */
  readonly csrf: string
}

/** A signed-in person working inside one of their organizations. */
export interface Workspace extends Member {
  readonly organization: Organization
  readonly role: "owner" | "member"
  readonly principal: Principal
  /** The organization's pages start here: `/app/o/{slug}`. */
  readonly base: string
}

const readFlash = (value: string | undefined): Flash | undefined => {
  if (value === undefined) return undefined
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as Flash
    return (parsed.kind === "ok" || parsed.kind === "error") && typeof parsed.text === "string" ? parsed : undefined
  } catch {
    return undefined
  }
}

export const visitorOf = (request: HttpServerRequest.HttpServerRequest): Visitor => {
  const cookieLocale = request.cookies[LOCALE_COOKIE]
  const locale = negotiateLocale(cookieLocale, request.headers["accept-language"])
  return {
    locale,
    t: dashboardTexts[locale],
    path: request.url,
    sessionToken: sessionCookieOf(request),
    flash: readFlash(request.cookies[FLASH_COOKIE])
  }
}

/** The form token of a session: a digest of its cookie, which scripts of other sites cannot read. */
export const csrfTokenOf = (sessionToken: string): string =>
  createHash("sha256").update(`roster dashboard form\n${sessionToken}`).digest("base64url")

const sameToken = (a: string, b: string) => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)]
  return x.length === y.length && timingSafeEqual(x, y)
}

/** A form's fields, as the browser sent them (`application/x-www-form-urlencoded`). */
export type FormFields = ReadonlyMap<string, ReadonlyArray<string>>

export const readForm: Effect.Effect<FormFields, never, HttpServerRequest.HttpServerRequest> = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = yield* Effect.orElseSucceed(request.urlParamsBody, () => [] as ReadonlyArray<readonly [string, string]>)
  const fields = new Map<string, Array<string>>()
  for (const [name, value] of params) fields.set(name, [...(fields.get(name) ?? []), value])
  return fields
})

export const field = (fields: FormFields, name: string): string => fields.get(name)?.[0]?.trim() ?? ""

/**
 * Why a form must not change anything, or `undefined`: it came from another site (its origin, or
 * a missing or wrong form token for a signed-in person).
 */
export const forgedReason = (
  request: HttpServerRequest.HttpServerRequest,
  settings: HttpSettingsShape,
  fields: FormFields,
  sessionToken: string | undefined
): string | undefined => {
  const crossSite = crossSiteReason(request, settings.publicBaseUrl)
  if (crossSite !== undefined) return crossSite
  if (sessionToken === undefined) return undefined
  const presented = request.headers["x-csrf-token"] ?? field(fields, "csrf")
  return sameToken(presented, csrfTokenOf(sessionToken)) ? undefined : "the form token is missing or wrong"
}

/** The policy, with the places the page's forms may lead to when they are more than the dashboard's own. */
const policyWith = (formAction: string | undefined, frameSrc?: string) => {
  const policy = formAction === undefined
    ? DASHBOARD_CONTENT_SECURITY_POLICY
    : DASHBOARD_CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action ${formAction}`)
  return frameSrc === undefined ? policy : `${policy}; frame-src ${frameSrc}`
}

const html = (body: string, status: number, formAction?: string, frameSrc?: string) =>
  HttpServerResponse.text(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { ...pageHeaders, "Content-Security-Policy": policyWith(formAction, frameSrc) }
  })

/** The values every page is rendered with, beside its own. */
const common = (visitor: Visitor, assets: DashboardAssets) => {
  const member = "user" in visitor ? (visitor as Member) : undefined
  const workspace = "organization" in visitor ? (visitor as Workspace) : undefined
  return {
    locale: visitor.locale,
    t: visitor.t,
    path: visitor.path,
    flash: visitor.flash,
    assets: { script: assets.script.path, style: assets.style.path },
    csrf: member?.csrf,
    user: member === undefined ? undefined : { email: member.user.email },
    organizations: member?.organizations.map(({ membership, organization }) => ({
      name: organization.name,
      slug: organization.slug,
      role: membership.role
    })) ?? [],
    organization: workspace === undefined
      ? undefined
      : { name: workspace.organization.name, slug: workspace.organization.slug, role: workspace.role },
    base: workspace?.base
  }
}

/** The screens of an organization's menu, the current one marked; owners see theirs too. */
const menuOf = (workspace: Workspace, current: string) => {
  const items: Array<{ readonly key: keyof DashboardTexts["nav"]; readonly path: string; readonly ownerOnly?: boolean }> = [
    { key: "overview", path: "" },
    { key: "subscribers", path: "/subscribers" },
    { key: "tags", path: "/tags" },
    { key: "segments", path: "/segments" },
    { key: "forms", path: "/forms" },
    { key: "templates", path: "/templates" },
    { key: "campaigns", path: "/campaigns" },
    { key: "sequences", path: "/sequences" },
    { key: "triggers", path: "/triggers" },
    { key: "imports", path: "/imports" },
    { key: "apiKeys", path: "/api-keys", ownerOnly: true },
    { key: "members", path: "/members" },
    { key: "webhooks", path: "/webhooks", ownerOnly: true },
    { key: "emailActivity", path: "/email" },
    { key: "settings", path: "/settings" }
  ]
  return items
    .filter((item) => item.ownerOnly !== true || workspace.role === "owner")
    .map((item) => ({ label: workspace.t.nav[item.key], href: `${workspace.base}${item.path}`, current: item.key === current }))
}

/** Answers a page; a flash it showed is then forgotten. */
export const page = (
  assets: DashboardAssets,
  visitor: Visitor,
  view: DashboardView,
  values: object,
  options: {
    readonly status?: number
    readonly menu?: string
    /** The CSP `form-action` sources, for a page whose forms lead off the dashboard (by a redirect). */
    readonly formAction?: string
    /** The CSP `frame-src` sources, for a page that shows a frame of the dashboard's own (a template's preview). */
    readonly frameSrc?: string
  } = {}
): HttpServerResponse.HttpServerResponse => {
  const menu = "organization" in visitor ? menuOf(visitor as Workspace, options.menu ?? "") : []
  const response = html(renderView(view, { ...common(visitor, assets), menu, ...values }), options.status ?? 200, options.formAction, options.frameSrc)
  return visitor.flash === undefined
    ? response
    : HttpServerResponse.expireCookie(response, FLASH_COOKIE, { path: "/app" })
}

/** A screen's words for asking before one of its records is deleted; the title fills `{{ name }}`. */
export interface DeletionTexts {
  readonly deleteTitle: string
  readonly deleteConsequence: string
  readonly deleteConfirm: string
  readonly cancel: string
}

/** The page that asks before a record is deleted: the form posts to `action`, `cancel` leads back. */
export const confirmDeletion = (
  assets: DashboardAssets,
  workspace: Workspace,
  texts: DeletionTexts,
  record: {
    readonly name: string
    readonly action: string
    readonly cancel: string
    readonly menu: string
    /** The consequence's places filled, where it has any. */
    readonly consequence?: Readonly<Record<string, string | number>>
  }
): HttpServerResponse.HttpServerResponse =>
  page(assets, workspace, "confirm-delete", {
    title: fill(texts.deleteTitle, { name: record.name }),
    consequence: fill(texts.deleteConsequence, record.consequence ?? {}),
    confirm: texts.deleteConfirm,
    cancelLabel: texts.cancel,
    action: record.action,
    cancel: record.cancel
  }, { menu: record.menu })

/** Answers a part of a page, for the script that puts it in place (it asked with `HX-Request: true`). */
export const fragment = (assets: DashboardAssets, visitor: Visitor, view: DashboardView, values: object): HttpServerResponse.HttpServerResponse =>
  html(renderView(view, { ...common(visitor, assets), ...values }), 200)

/** After a form did its work: to the page that shows the outcome (303), with a message for it. */
export const redirect = (location: string, flash?: Flash): HttpServerResponse.HttpServerResponse => {
  const response = HttpServerResponse.empty({ status: 303, headers: { Location: location, "Cache-Control": "no-store" } })
  return flash === undefined
    ? response
    : HttpServerResponse.unsafeSetCookie(response, FLASH_COOKIE, Buffer.from(JSON.stringify(flash)).toString("base64url"), {
      path: "/app",
      httpOnly: true,
      sameSite: "lax",
      maxAge: "1 minute"
    })
}

/** How a refusal of a use case reads on a screen: beside a field it names, or for the form as a whole. */
export interface Refusal {
  readonly status: number
  /** The form field it concerns, when it names one. */
  readonly field: string | undefined
  readonly text: string
}

/** Fills a text's `{{ name }}` places. */
export const fill = (text: string, values: Readonly<Record<string, string | number>>): string =>
  Object.entries(values).reduce((filled, [name, value]) => filled.split(`{{ ${name} }}`).join(String(value)), text)

/** A catalogued reason in the person's language. */
export const reasonIn = (t: DashboardTexts, reason: Reason): string => reasonText(reason, t.reasons)

const tierIn = (t: DashboardTexts, tier: string) => t.overview.tiers[tier as keyof DashboardTexts["overview"]["tiers"]] ?? tier
const statusIn = (t: DashboardTexts, status: string) =>
  t.subscribers.statuses[status as keyof DashboardTexts["subscribers"]["statuses"]] ?? status

type ErrorTag = ApplicationError["_tag"]

/**
 * What each refusal of the use cases says on a page, in the person's language: a row an error,
 * keyed as the wire forms' table is (an error without words here does not compile). Validation
 * refusals say their catalogued reason; limits say what the plan allows from the error's data.
 */
const refusalTexts: { readonly [Tag in ErrorTag]: (error: Extract<ApplicationError, { readonly _tag: Tag }>, t: DashboardTexts) => string } = {
  MissingScope: (_, t) => t.refusal.forbidden,
  NotPlatformAdmin: (_, t) => t.refusal.forbidden,
  ResourceOfAnotherOrganization: (_, t) => t.refusal.notFound,
  NotAMember: (_, t) => t.refusal.forbidden,
  ResourceNotFound: (_, t) => t.refusal.notFound,
  NoSendingDomain: (_, t) => t.refusal.notFound,
  EmailAlreadyExists: (_, t) => t.refusal.exists,
  TagAlreadyExists: (_, t) => t.refusal.exists,
  OrganizationSlugTaken: (_, t) => t.refusal.slugTaken,
  CampaignStateConflict: (error, t) => fill(t.refusal.campaignState, { status: error.status }),
  SegmentInUse: (_, t) => t.refusal.segmentInUse,
  SequenceStateConflict: (error, t) => fill(t.refusal.sequenceState, { status: error.status }),
  SendingDomainTaken: (_, t) => t.refusal.exists,
  SendingDomainExists: (_, t) => t.refusal.exists,
  SubscriptionAlreadyActive: (_, t) => t.refusal.exists,
  MemberAlreadyExists: (_, t) => t.refusal.memberExists,
  LastOwner: (_, t) => t.refusal.lastOwner,
  InvalidStatusTransition: (error, t) => fill(t.refusal.statusMove, { from: statusIn(t, error.from), to: statusIn(t, error.to) }),
  PlanLimitExceeded: (error, t) => {
    const format = (n: number | null) => n === null ? t.refusal.unlimited : n.toLocaleString(t === dashboardTexts.de ? "de-DE" : "en-US")
    const what = t.refusal.limited[error.limit]
    const allowed = fill(t.refusal.planLimit, { tier: tierIn(t, error.tier), max: format(error.max), what })
    const upgrade = error.upgradeTo
    if (upgrade === undefined) return allowed
    const limits = planLimits[upgrade]
    const upgradeMax = error.limit === "subscribers" ? limits.maxSubscribers : limits.maxEmailsPerMonth
    return `${allowed} ${fill(t.refusal.planUpgrade, { upgrade: tierIn(t, upgrade), upgradeMax: `${format(upgradeMax)} ${what}` })}`
  },
  PlanFeatureUnavailable: (error, t) =>
    fill(t.refusal.planFeature, { tier: tierIn(t, error.tier), requiredTier: tierIn(t, error.requiredTier) }),
  TagLimitReached: (error, t) => fill(t.refusal.tagLimit[error.limit], { max: error.max }),
  InvalidInput: (error, t) => reasonIn(t, error.reason),
  OrganizationNotChosen: (_, t) => t.refusal.notFound,
  Unauthenticated: (_, t) => t.refusal.signedOut,
  SignInRateLimited: (_, t) => t.refusal.rateLimited,
  MagicLinkExpired: (_, t) => t.refusal.linkUsed,
  MagicLinkAlreadyUsed: (_, t) => t.refusal.linkUsed,
  InvalidToken: (_, t) => t.refusal.linkUsed,
  IdempotencyKeyReused: (_, t) => t.refusal.busy,
  IdempotentRequestInProgress: (_, t) => t.refusal.busy,
  DomainProviderUnavailable: (_, t) => t.refusal.unavailable,
  BillingDisabled: (_, t) => t.refusal.billingOff,
  BillingNotConfigured: (_, t) => t.refusal.billingOff,
  PaymentProviderUnavailable: (_, t) => t.refusal.paymentUnavailable,
  // The provider's own words, which the dashboard cannot translate.
  PaymentProviderRefused: (error, t) => fill(t.refusal.paymentRefused, { detail: error.message }),
  UploadTooLarge: (error, t) =>
    fill(t.refusal.fileTooLarge, { size: `${Math.floor(error.maxBytes / (1024 * 1024)).toLocaleString("en-US")} MB` })
}

/** The form field a refusal without a field of its own concerns, among those a form has. */
const fieldOfRefusal = (error: ApplicationError, fieldNames: ReadonlyArray<string>): string | undefined => {
  const concerned = error._tag === "OrganizationSlugTaken"
    ? "slug"
    : error._tag === "TagAlreadyExists" || error._tag === "EmailAlreadyExists"
    ? "name"
    : error._tag === "MemberAlreadyExists"
    ? "email"
    : error._tag === "LastOwner"
    ? "role"
    : error._tag === "SendingDomainTaken" || error._tag === "SendingDomainExists"
    ? "domain"
    : undefined
  return fieldNames.find((name) => name === concerned)
}

export const refusalOf = (error: ApplicationError, t: DashboardTexts, fieldNames: ReadonlyArray<string> = []): Refusal => {
  // What belongs to another organization is, on these pages, simply not there.
  if (error._tag === "ResourceOfAnotherOrganization") return { status: 404, field: undefined, text: t.refusal.notFound }
  const answer = apiErrorOf(error)
  const named = answer.fields.find((issue) => fieldNames.includes(issue.field))
  const text = (refusalTexts[error._tag] as (error: ApplicationError, t: DashboardTexts) => string)(error, t)
  return { status: answer.status, field: named?.field ?? fieldOfRefusal(error, fieldNames), text }
}

/** A form's errors by field (`form` for those of no field), as its template shows them. */
export const errorsOf = (refusal: Refusal): Readonly<Record<string, string>> =>
  refusal.field === undefined ? { form: refusal.text } : { [refusal.field]: refusal.text }

/** The organization a path names, among the person's own. */
export const membershipAt = (member: Member, slug: string) =>
  Option.fromNullable(member.organizations.find(({ organization }) => organization.slug === slug))

/** What the page's address names as `name` (`?email=`, `?q=`), trimmed; empty when it names none. */
export const queryOf = (request: HttpServerRequest.HttpServerRequest, name: string): string =>
  (new URL(request.url, "http://dashboard").searchParams.get(name) ?? "").trim()

/** The page number a list's address asks for (`?page=2`); the first for none or one that is not a number. */
export const pageNumberOf = (request: HttpServerRequest.HttpServerRequest): number => {
  const value = Number(new URL(request.url, "http://dashboard").searchParams.get("page") ?? "1")
  return Number.isSafeInteger(value) && value >= 1 ? value : 1
}

/** The links between the pages of a numbered list at `path`. */
export const pagerOf = (path: string, found: { readonly page: number; readonly totalPages: number }) => ({
  pageNumber: found.page,
  totalPages: found.totalPages,
  previous: found.page > 1 ? `${path}?page=${found.page - 1}` : "",
  next: found.page < found.totalPages ? `${path}?page=${found.page + 1}` : ""
})
