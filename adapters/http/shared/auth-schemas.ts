import { HttpApiSchema } from "@effect/platform"
import { Locale, MAX_ORGANIZATION_NAME_LENGTH, OrganizationName, Role } from "@roster/domain"
import { Schema } from "effect"
import { EmailInput, oneOf, SlugInput, strictInput, Uuid } from "./wire-fields.js"

/** Signing in and a signed-in user's organizations, as the `/auth` routes show and accept them. */

export const Message = Schema.Struct({
  message: Schema.String.annotations({ description: "what happened, for people" })
}).annotations({ identifier: "Message" })

export const MagicLinkRequest = Schema.Struct({
  email: EmailInput("the address to email a sign-in link to; a single address"),
  locale: Schema.optionalWith(oneOf(Locale, "language of the email: `en` (default) or `de`"), { exact: true })
}).annotations({ identifier: "MagicLinkRequest", ...strictInput })

/** A query value as sent: once, or repeated. */
const QueryText = Schema.Union(Schema.String, Schema.Array(Schema.String))

export const SignInPageParams = Schema.Struct({
  token: Schema.optional(QueryText.annotations({
    description: "the token of the sign-in link; the page hands it to `GET /auth/verify` when its button is pressed"
  })),
  locale: Schema.optional(QueryText.annotations({
    description: "`en` or `de`; otherwise the language comes from `Accept-Language`, English by default"
  }))
})

export const SignInPage = HttpApiSchema.Text({ contentType: "text/html" }).annotations({
  description: "a self-contained page (no external assets) with a button that signs in"
})

export const VerifyParams = Schema.Struct({
  token: Schema.optional(Schema.String.annotations({
    description: "the token of the sign-in link, as emailed; a missing token is `invalid_token`"
  }))
})

export const UserOrganization = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  slug: Schema.String,
  role: Role.annotations({ description: "the user's role: `owner` (everything) or `member` (subscribers and tags)" })
}).annotations({ identifier: "UserOrganization", description: "an organization the user belongs to, with their role" })

export const UserOrganizations = Schema.Array(UserOrganization).annotations({
  identifier: "UserOrganizations",
  description: "the user's organizations, oldest membership first"
})

export const SignedIn = Schema.Struct({
  user_id: Uuid,
  email: Schema.String.annotations({ description: "the address the link was sent to" }),
  has_organizations: Schema.Boolean.annotations({
    description: "false for a new user, who creates one with `POST /auth/organizations`"
  }),
  organizations: UserOrganizations
}).annotations({ identifier: "SignedIn" })

export const CreateOrganizationRequest = Schema.Struct({
  name: OrganizationName.annotations({
    jsonSchema: {
      type: "string",
      minLength: 1,
      maxLength: MAX_ORGANIZATION_NAME_LENGTH,
      description: "the organization's name; trimmed"
    }
  }),
  slug: SlugInput("unique among all organizations")
}).annotations({ identifier: "CreateOrganizationRequest", ...strictInput })

export const Organization = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  slug: Schema.String
}).annotations({ identifier: "Organization" })
