import { expiresAt, type OrganizationId, PREFERENCE_TOKEN_LIFETIME, type SubscriberId } from "@roster/domain"
import { Effect } from "effect"
import type { TokenClaims, TokenSigner } from "../ports/token-signer.js"

/** A link a subscriber manages their own subscriptions with: the token, good until `expiresAt`. */
export interface PreferenceLink {
  readonly token: string
  readonly expiresAt: Date
}

/**
 * A preference token for a subscriber, 30 days long, under the subscriber's current token
 * version (revoking moves the version on, and every earlier token stops working).
 */
export const signPreferenceToken = (
  signer: TokenSigner["Type"],
  claims: PreferenceTokenRequest
): Effect.Effect<PreferenceLink> => {
  const signed = preferenceClaims(claims)
  return Effect.map(signer.sign("preference", signed), (token) => ({ token, expiresAt: signed.expiresAt }))
}

/** Preference tokens for many subscribers at once, in their order. */
export const signPreferenceTokens = (
  signer: TokenSigner["Type"],
  requests: ReadonlyArray<PreferenceTokenRequest>
): Effect.Effect<ReadonlyArray<string>> => signer.signEach("preference", requests.map(preferenceClaims))

export interface PreferenceTokenRequest {
  readonly tokenId: string
  readonly organizationId: OrganizationId
  readonly subscriberId: SubscriberId
  readonly version: number
  readonly issuedAt: Date
}

const preferenceClaims = (claims: PreferenceTokenRequest): TokenClaims => ({
  subject: claims.subscriberId,
  id: claims.tokenId,
  organizationId: claims.organizationId,
  version: claims.version,
  issuedAt: claims.issuedAt,
  // Whole seconds, as the token's own expiry says it.
  expiresAt: new Date(Math.floor(expiresAt(claims.issuedAt, PREFERENCE_TOKEN_LIFETIME).getTime() / 1000) * 1000)
})
