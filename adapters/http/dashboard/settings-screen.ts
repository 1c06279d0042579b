import { Billing, OrganizationSettings, SenderSettings, type SenderSettingsView, SendingDomains } from "@roster/application"
import { TOP_TIER } from "@roster/domain"
import { Effect, Either } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import type { DashboardAssets } from "./assets.js"
import { errorsOf, field, type FormFields, page, redirect, refusalOf, type Workspace } from "./pages.js"
import type { Screen } from "./screen.js"

/**
 * Settings: the sender of the organization's email, its own time zone, its custom sending domain
 * (added, its DNS records shown, checked, removed) and its billing. Which of them a person may see or change is
 * the use cases' word: what they refuse to show is left out, what they refuse to do is a 403 page.
 */

/** The page's forms leave for the payment provider's hosted pages, which live on other origins. */
const FORM_ACTION = "'self' https:"

const senderValuesOf = (view: SenderSettingsView, timeZone: string) => ({
  from_name: view.fromName ?? "",
  from_address: view.fromAddress ?? "",
  domain: "",
  time_zone: timeZone
})

/** The zones offered as the time zone is typed. */
const TIME_ZONES: ReadonlyArray<string> = Intl.supportedValuesOf("timeZone")

/** What the page's forms sent, shown again beside a refusal; a form sends only its own fields. */
const formValuesOf = (form: FormFields, saved: ReturnType<typeof senderValuesOf>) => ({
  from_name: !form.has("from_name") ? saved.from_name : field(form, "from_name"),
  from_address: !form.has("from_address") ? saved.from_address : field(form, "from_address"),
  domain: field(form, "domain"),
  time_zone: !form.has("time_zone") ? saved.time_zone : field(form, "time_zone")
})

export const makeSettingsScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const senders = yield* SenderSettings
    const organizationSettings = yield* OrganizationSettings
    const domains = yield* SendingDomains
    const billing = yield* Billing

    const tierName = (workspace: Workspace, tier: string) =>
      workspace.t.overview.tiers[tier as keyof Workspace["t"]["overview"]["tiers"]] ?? tier

    /** What the billing section shows: the plan and its use, and the buttons the deployment allows. */
    const billingOf = (workspace: Workspace) =>
      Effect.gen(function*() {
        const subscription = yield* Effect.either(billing.subscription(workspace.principal))
        if (Either.isLeft(subscription)) {
          if (subscription.left._tag === "BillingDisabled") return { off: true }
          return yield* Effect.fail(subscription.left)
        }
        const plans = yield* Effect.either(billing.checkoutPlans(workspace.principal))
        if (Either.isLeft(plans) && plans.left._tag !== "BillingNotConfigured") return yield* Effect.fail(plans.left)
        const view = subscription.right
        const format = new Intl.NumberFormat(workspace.locale)
        const used = (n: number, limit: number | null) =>
          limit === null
            ? format.format(n)
            : workspace.t.settings.ofLimit.replace("{{ used }}", format.format(n)).replace("{{ limit }}", format.format(limit))
        return {
          off: false,
          tier: tierName(workspace, view.tier),
          status: view.status,
          periodEnd: view.currentPeriodEnd?.toISOString() ?? null,
          cancelAtPeriodEnd: view.cancelAtPeriodEnd,
          subscribers: used(view.subscriberCount, view.maxSubscribers),
          emails: used(view.emailsSentThisMonth, view.maxEmailsPerMonth),
          notConfigured: Either.isLeft(plans),
          plans: Either.isLeft(plans)
            ? []
            : plans.right.filter((plan) => plan.tier !== view.tier).map((plan) => ({ ...plan, name: tierName(workspace, plan.tier) }))
        }
      })

    const settingsPage = (
      workspace: Workspace,
      form: { readonly sent?: FormFields; readonly errors?: object } = {},
      status = 200
    ) =>
      Effect.gen(function*() {
        const sender = yield* Effect.either(senders.get(workspace.principal))
        if (Either.isLeft(sender)) {
          if (sender.left._tag !== "MissingScope") return yield* Effect.fail(sender.left)
          return page(assets, workspace, "settings", { sender: null }, { status, menu: "settings" })
        }
        const view = sender.right
        const saved = senderValuesOf(view, (yield* organizationSettings.get(workspace.principal)).timeZone)
        return page(assets, workspace, "settings", {
          sender: { effectiveFrom: view.effectiveFrom },
          values: form.sent === undefined ? saved : formValuesOf(form.sent, saved),
          timeZones: TIME_ZONES,
          errors: form.errors ?? {},
          domain: view.customDomain === null ? null : {
            name: view.customDomain.name,
            status: view.customDomain.status,
            records: view.customDomain.records.map((r) => ({ record: r.record, type: r.type, name: r.name, value: r.value }))
          },
          canAddDomain: view.canAddCustomDomain,
          tierName: tierName(workspace, workspace.organization.tier),
          requiredTierName: tierName(workspace, TOP_TIER),
          billing: yield* billingOf(workspace)
        }, { status, menu: "settings", formAction: FORM_ACTION })
      })

    const refused = (workspace: Workspace, error: ApplicationError) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: `${workspace.base}/settings`
      }, { status: refusal.status, menu: "settings" })
    }

    /** A form's refusal beside its field on the page again; one the person may not make, a page of its own. */
    const refusedForm = (workspace: Workspace, form: FormFields, fieldNames: ReadonlyArray<string>, section: string) =>
    (error: ApplicationError) => {
      const refusal = refusalOf(error, workspace.t, fieldNames)
      return refusal.status === 403 || refusal.status === 404
        ? Effect.succeed(refused(workspace, error))
        : settingsPage(workspace, {
          sent: form,
          errors: refusal.field === undefined ? { [section]: refusal.text } : errorsOf(refusal)
        }, refusal.status)
    }

    const back = (workspace: Workspace, text: string) => redirect(`${workspace.base}/settings`, { kind: "ok", text })
    const orRefused = (workspace: Workspace) => Effect.catchAll((error: ApplicationError) => Effect.succeed(refused(workspace, error)))

    return {
      routes: [
        {
          method: "GET",
          path: "/settings",
          handle: (workspace) => settingsPage(workspace).pipe(orRefused(workspace))
        },
        {
          method: "POST",
          path: "/settings/sender",
          handle: (workspace, _request, form) =>
            senders.update(workspace.principal, {
              fromName: field(form, "from_name") === "" ? null : field(form, "from_name"),
              fromAddress: field(form, "from_address") === "" ? null : field(form, "from_address")
            }).pipe(
              Effect.map(() => back(workspace, workspace.t.settings.senderSaved)),
              Effect.catchAll(refusedForm(workspace, form, ["from_name", "from_address"], "form")),
              orRefused(workspace)
            )
        },
        {
          method: "POST",
          path: "/settings/organization",
          handle: (workspace, _request, form) =>
            organizationSettings.update(workspace.principal, { timeZone: field(form, "time_zone") }).pipe(
              Effect.map(() => back(workspace, workspace.t.settings.timeZoneSaved)),
              Effect.catchAll(refusedForm(workspace, form, ["time_zone"], "time_zone")),
              orRefused(workspace)
            )
        },
        {
          method: "POST",
          path: "/settings/domain",
          handle: (workspace, _request, form) =>
            (field(form, "domain") === ""
              ? settingsPage(workspace, { sent: form, errors: { domain: workspace.t.settings.missingDomain } }, 400)
              : domains.add(workspace.principal, { domain: field(form, "domain") }).pipe(
                Effect.map((domain) => back(workspace, workspace.t.settings.domainAdded.replace("{{ name }}", domain.name))),
                Effect.catchAll(refusedForm(workspace, form, ["domain"], "domain"))
              )).pipe(orRefused(workspace))
        },
        {
          method: "POST",
          path: "/settings/domain/check",
          handle: (workspace) =>
            domains.check(workspace.principal).pipe(
              Effect.map((domain) =>
                back(workspace, workspace.t.settings.checked.replace("{{ status }}", workspace.t.settings.statuses[domain.status]))
              ),
              orRefused(workspace)
            )
        },
        {
          method: "POST",
          path: "/settings/domain/remove",
          handle: (workspace) =>
            domains.remove(workspace.principal).pipe(
              Effect.as(back(workspace, workspace.t.settings.domainRemoved)),
              orRefused(workspace)
            )
        },
        {
          method: "POST",
          path: "/settings/billing/checkout",
          handle: (workspace, _request, form) =>
            billing.createCheckoutSession(workspace.principal, { priceId: field(form, "price_id") }).pipe(
              Effect.map(({ checkoutUrl }) => redirect(checkoutUrl)),
              orRefused(workspace)
            )
        },
        {
          method: "POST",
          path: "/settings/billing/portal",
          handle: (workspace) =>
            billing.customerPortal(workspace.principal).pipe(
              Effect.map(({ portalUrl }) => redirect(portalUrl)),
              orRefused(workspace)
            )
        }
      ]
    } satisfies Screen
  })
