import { type HttpApi, HttpApiBuilder, type HttpApiGroup, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Auth, Organizations, type SignedIn as SignedInResult } from "@roster/application"
import {
  DEFAULT_LOCALE,
  InvalidToken,
  type Membership,
  MAGIC_LINK_LIFETIME,
  type Organization as DomainOrganization
} from "@roster/domain"
import { Duration, Effect, Option } from "effect"
import { CurrentSessionUser } from "./current-session-user.js"
import { clearSessionCookie, sessionCookieOf, setSessionCookie } from "./session-cookie.js"
import { negotiateLocale, signInPage, signInPageHeaders } from "./sign-in-page.js"
import type { makeAuthGroup } from "./auth-group.js"
import type { SignedIn, UserOrganization } from "./auth-schemas.js"
import { answering } from "./respond.js"

const toUserOrganization = (
  { membership, organization }: { readonly membership: Membership; readonly organization: DomainOrganization }
): typeof UserOrganization.Type => ({
  id: organization.id,
  name: organization.name,
  slug: organization.slug,
  role: membership.role
})

const toSignedIn = ({ organizations, user }: SignedInResult): typeof SignedIn.Type => ({
  user_id: user.id,
  email: user.email,
  has_organizations: organizations.length > 0,
  organizations: organizations.map(toUserOrganization)
})

/** The first of a query value that may be repeated. */
const firstOf = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value?.[0]

/**
 * Where the request comes from: the address of the connection itself. Headers such as
 * X-Forwarded-For are the client's to write, so limits never trust them.
 */
const clientAddressOf = (request: HttpServerRequest.HttpServerRequest): string =>
  Option.getOrElse(request.remoteAddress, () => "unknown")

const linkSent = `A sign-in link is on its way to this address. It works once, within ${
  Duration.toMinutes(MAGIC_LINK_LIFETIME)
} minutes.`

type AuthGroup = ReturnType<typeof makeAuthGroup>

/** The `/auth/*` handlers, the same in every form. */
// The API's own errors and requirements do not matter to these handlers; any API with the group will do.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const makeAuthHandlersLive = <ApiId extends string>(api: HttpApi.HttpApi<ApiId, HttpApiGroup.HttpApiGroup.Any, any, any>) =>
  HttpApiBuilder.group(api as unknown as HttpApi.HttpApi<ApiId, AuthGroup>, "auth", (handlers) =>
  Effect.gen(function*() {
    const auth = yield* Auth
    const organizations = yield* Organizations
    return handlers
      .handle("requestMagicLink", ({ payload, request }) =>
        auth.requestSignInLink(payload.email, payload.locale ?? DEFAULT_LOCALE, clientAddressOf(request)).pipe(
          Effect.as({ message: linkSent }),
          answering
        ))
      .handle("signInPage", ({ request, urlParams }) =>
        Effect.succeed(
          HttpServerResponse.text(
            signInPage(negotiateLocale(firstOf(urlParams.locale), request.headers["accept-language"])),
            { contentType: "text/html; charset=utf-8", headers: signInPageHeaders }
          )
        ))
      .handle("verify", ({ urlParams }) => {
        const token = urlParams.token?.trim() ?? ""
        const verified = token === ""
          ? Effect.fail(new InvalidToken({ reason: "the sign-in link carries no token" }))
          : auth.verify(token)
        return verified.pipe(
          Effect.tap((signedIn) => setSessionCookie(signedIn.sessionToken, signedIn.expiresAt)),
          Effect.map(toSignedIn),
          answering
        )
      })
      .handle("createOrganization", ({ payload }) =>
        CurrentSessionUser.pipe(
          Effect.flatMap(({ user }) => organizations.createForUser(user.id, { name: payload.name, slug: payload.slug })),
          Effect.map((organization) => ({ id: organization.id, name: organization.name, slug: organization.slug })),
          answering
        ))
      .handle("listOrganizations", () =>
        CurrentSessionUser.pipe(
          Effect.flatMap(({ user }) => organizations.listForUser(user.id)),
          Effect.map((memberships) => memberships.map(toUserOrganization))
        ))
      .handle("logout", ({ request }) =>
        auth.signOut(sessionCookieOf(request) ?? "").pipe(
          Effect.zipRight(clearSessionCookie),
          Effect.as({ message: "You are signed out." }),
          answering
        ))
  }))
