import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Auth, Organizations } from "@roster/application"
import { EmailAddress, Locale, Slug } from "@roster/domain"
import { Duration, Effect, Option, Schema } from "effect"
import { HttpSettings } from "../shared/http-settings.js"
import { clearSessionCookie, sessionCookieOf } from "../shared/session-cookie.js"
import { type DashboardAssets, loadDashboardAssets } from "./assets.js"
import {
  csrfTokenOf,
  errorsOf,
  field,
  forgedReason,
  LOCALE_COOKIE,
  type Member,
  membershipAt,
  page,
  readForm,
  redirect,
  refusalOf,
  type Visitor,
  visitorOf,
  type Workspace
} from "./pages.js"
import { makeApiKeysScreen } from "./api-keys-screen.js"
import { makeCampaignsScreen } from "./campaigns-screen.js"
import { makeFormsScreen } from "./forms-screen.js"
import { makeSegmentsScreen } from "./segments-screen.js"
import { makeMembersScreen } from "./members-screen.js"
import { makeImportsScreen } from "./imports-screen.js"
import { makeOverviewScreen } from "./overview-screen.js"
import { makeSettingsScreen } from "./settings-screen.js"
import { makeSubscribersScreen } from "./subscribers-screen.js"
import { makeTagsScreen } from "./tags-screen.js"
import { makeTemplatesScreen } from "./templates-screen.js"
import { makeWebhooksScreen } from "./webhooks-screen.js"
import { makeEmailActivityScreen } from "./email-activity-screen.js"
import { makeSequencesScreen } from "./sequences-screen.js"
import { makeTriggersScreen } from "./triggers-screen.js"
import type { Screen } from "./screen.js"
import { closingConnection, readUpload } from "./upload.js"

/**
 * The dashboard at `/app`: pages rendered by the server over the same use cases as the two wire
 * forms, in every deployment. A person signs in with the magic link, chooses or creates an
 * organization, and works in it at `/app/o/{slug}/...`. Forms post back to the page they belong to
 * and lead on with a redirect (post/redirect/get); each checks its origin and the session's form
 * token before anything changes.
 */

const isEmail = Schema.decodeUnknownOption(EmailAddress)
const isSlug = Schema.decodeUnknownOption(Slug)
const isLocale = Schema.is(Locale)

/** Where `back` leads, if it is one of the dashboard's own pages; else its start. */
const withinDashboard = (back: string | undefined) =>
  back !== undefined && back.startsWith("/app") && !back.startsWith("//") && !back.includes("\\") ? back : "/app"

const firstParam = (request: HttpServerRequest.HttpServerRequest, name: string) =>
  new URL(request.url, "http://dashboard").searchParams.get(name) ?? undefined

export const DashboardLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const assets: DashboardAssets = yield* loadDashboardAssets
    const auth = yield* Auth
    const organizations = yield* Organizations
    const settings = yield* HttpSettings

    /** The signed-in person of the request, if its session is valid. */
    const memberOf = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const visitor = visitorOf(request)
        if (visitor.sessionToken === undefined) return Option.none<Member>()
        const signed = yield* Effect.option(auth.signedIn(visitor.sessionToken))
        if (Option.isNone(signed)) return Option.none<Member>()
        return Option.some<Member>({
          ...visitor,
          sessionToken: visitor.sessionToken,
          signedIn: signed.value,
          user: { id: signed.value.user.id, email: signed.value.user.email },
          organizations: signed.value.organizations,
          csrf: csrfTokenOf(visitor.sessionToken)
        })
      })

    const toSignIn = redirect("/app/sign-in")

    /** Runs `f` for a signed-in person; anyone else is sent to sign in. */
    const signedIn = <E, R>(f: (member: Member, request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        Effect.flatMap(memberOf(request), Option.match({ onNone: () => Effect.succeed(toSignIn), onSome: (member) => f(member, request) })))

    const notFound = (member: Member) => page(assets, member, "not-found", {}, { status: 404 })

    /** Runs `f` inside the organization the path names, as the person's role there allows. */
    const inOrganization = <E, R>(f: (workspace: Workspace, request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      signedIn((member, request) =>
        Effect.gen(function*() {
          const { slug } = yield* HttpRouter.params
          const found = membershipAt(member, slug ?? "")
          if (Option.isNone(found)) return notFound(member)
          // The organizations were read with the session: acting in one reads nothing again.
          const principal = yield* Effect.either(auth.actFor(member.signedIn, found.value.organization.id))
          if (principal._tag === "Left") return toSignIn
          return yield* f({
            ...member,
            organization: found.value.organization,
            role: found.value.membership.role,
            principal: principal.right,
            base: `/app/o/${found.value.organization.slug}`
          }, request)
        }))

    /** A form that came from elsewhere changes nothing, and says so. */
    const refusedAsForged = (visitor: Visitor) =>
      page(assets, visitor, "refusal", { message: visitor.t.refusal.crossSite, back: "/app" }, { status: 403 })

    /** A form with a file whose body stopped coming before the file did: nothing of it was read. */
    const stalledUpload = (workspace: Workspace) =>
      closingConnection(page(assets, workspace, "refusal", {
        message: workspace.t.refusal.stalled.replace("{{ seconds }}", String(settings.uploadIdleSeconds)),
        back: workspace.path
      }, { status: 408 }))

    // The assets, named by their content: a browser keeps them for a year.
    for (const asset of [assets.script, assets.style]) {
      yield* router.get(asset.path as HttpRouter.PathInput, Effect.succeed(
        HttpServerResponse.text(asset.body, {
          contentType: asset.contentType,
          headers: { "Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff" }
        })
      ))
    }

    yield* router.get("/app", signedIn((member) => {
      if (member.organizations.length === 1) return Effect.succeed(redirect(`/app/o/${member.organizations[0]!.organization.slug}`))
      return Effect.succeed(redirect("/app/organizations"))
    }))

    yield* router.get("/app/sign-in", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const member = yield* memberOf(request)
      if (Option.isSome(member)) return redirect("/app")
      return page(assets, visitorOf(request), "sign-in", { email: "" })
    }))

    yield* router.post("/app/sign-in", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const visitor = visitorOf(request)
      const fields = yield* readForm
      if (forgedReason(request, settings, fields, undefined) !== undefined) {
        return refusedAsForged(visitor)
      }
      const email = isEmail(field(fields, "email"))
      if (Option.isNone(email)) {
        return page(assets, visitor, "sign-in", { email: field(fields, "email"), errors: { email: visitor.t.signIn.invalidEmail } }, {
          status: 400
        })
      }
      const address = Option.getOrElse(request.remoteAddress, () => "unknown")
      return yield* auth.requestSignInLink(email.value, visitor.locale, address).pipe(
        Effect.as(page(assets, visitor, "sign-in-sent", { email: email.value })),
        Effect.catchAll((error) => {
          const refusal = refusalOf(error, visitor.t, ["email"])
          return Effect.succeed(page(assets, visitor, "sign-in", { email: email.value, errors: { email: refusal.text } }, {
            status: refusal.status
          }))
        })
      )
    }))

    yield* router.post("/app/sign-out", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const fields = yield* readForm
      const token = sessionCookieOf(request)
      if (token === undefined) return redirect("/app/sign-in")
      if (forgedReason(request, settings, fields, token) !== undefined) return refusedAsForged(visitorOf(request))
      yield* Effect.ignore(auth.signOut(token))
      yield* Effect.provideService(clearSessionCookie, HttpSettings, settings)
      return redirect("/app/sign-in")
    }))

    yield* router.get("/app/locale/:locale", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { locale } = yield* HttpRouter.params
      const back = withinDashboard(firstParam(request, "back"))
      if (locale === undefined || !isLocale(locale)) return redirect(back)
      return HttpServerResponse.unsafeSetCookie(redirect(back), LOCALE_COOKIE, locale, {
        path: "/",
        sameSite: "lax",
        maxAge: "365 days"
      })
    }))

    yield* router.get("/app/organizations", signedIn((member) => Effect.succeed(page(assets, member, "organizations", { values: {} }))))

    yield* router.post("/app/organizations", signedIn((member, request) =>
      Effect.gen(function*() {
        const fields = yield* readForm
        if (forgedReason(request, settings, fields, member.sessionToken) !== undefined) return refusedAsForged(member)
        const values = { name: field(fields, "name"), slug: field(fields, "slug") }
        const slug = isSlug(values.slug)
        const errors = {
          ...(values.name === "" ? { name: member.t.organizations.missingName } : {}),
          ...(Option.isNone(slug) ? { slug: member.t.organizations.invalidSlug } : {})
        }
        if (Option.isNone(slug) || Object.keys(errors).length > 0) {
          return page(assets, member, "organizations", { values, errors }, { status: 400 })
        }
        return yield* organizations.createForUser(member.user.id as never, { name: values.name, slug: slug.value }).pipe(
          Effect.map((organization) => redirect(`/app/o/${organization.slug}`)),
          Effect.catchAll((error) => {
            const refusal = refusalOf(error, member.t, ["name", "slug"])
            return Effect.succeed(page(assets, member, "organizations", { values, errors: errorsOf(refusal) }, { status: refusal.status }))
          })
        )
      })))

    const screens: ReadonlyArray<Screen> = [
      yield* makeOverviewScreen(assets),
      yield* makeSubscribersScreen(assets),
      yield* makeTagsScreen(assets),
      yield* makeSegmentsScreen(assets),
      yield* makeFormsScreen(assets),
      yield* makeTemplatesScreen(assets),
      yield* makeCampaignsScreen(assets),
      yield* makeApiKeysScreen(assets),
      yield* makeMembersScreen(assets),
      yield* makeImportsScreen(assets),
      yield* makeSettingsScreen(assets),
      yield* makeWebhooksScreen(assets),
      yield* makeEmailActivityScreen(assets),
      yield* makeSequencesScreen(assets),
      yield* makeTriggersScreen(assets)
    ]
    for (const screen of screens) {
      for (const route of screen.routes) {
        const handler = inOrganization((workspace, request) =>
          route.method === "GET"
            ? route.handle(workspace, request, new Map())
            : route.body === "file"
            // The form token comes before the file: checked before a byte of the file is kept.
            ? Effect.scoped(Effect.flatMap(readUpload(request, Duration.seconds(settings.uploadIdleSeconds)), ({ fields, file, stalled }) =>
              stalled
                ? Effect.succeed(stalledUpload(workspace))
                : forgedReason(request, settings, fields, workspace.sessionToken) !== undefined
                ? Effect.succeed(refusedAsForged(workspace))
                : route.handle(workspace, request, fields, file)))
            : Effect.flatMap(readForm, (fields) =>
              forgedReason(request, settings, fields, workspace.sessionToken) !== undefined
                ? Effect.succeed(refusedAsForged(workspace))
                : route.handle(workspace, request, fields)))
        const path = `/app/o/:slug${route.path}` as HttpRouter.PathInput
        yield* route.method === "GET" ? router.get(path, handler) : router.post(path, handler)
      }
    }

    // Any other address under /app is a page that says so, not an API's error.
    yield* router.get("/app/*", Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
      page(assets, visitorOf(request), "not-found", {}, { status: 404 })))
  })
)
