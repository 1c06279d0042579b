import type { InvalidToken, TokenKind } from "@roster/domain"
import { Context, type Effect } from "effect"

export interface TokenClaims {
  /** Whom the token is about: a user for sessions, a subscriber for preference tokens. */
  readonly subject: string
  /** The token's own id; sessions name their server-side record with it. */
  readonly id: string
  /** The organization, for tokens scoped to one. */
  readonly organizationId?: string | undefined
  /**
   * The version of the subject's tokens it was issued under, for tokens that can all be revoked
   * at once by moving the subject to the next version.
   */
  readonly version?: number | undefined
  readonly issuedAt: Date
  readonly expiresAt: Date
}

/**
 * Signed tokens (HS256 JWT). Each kind has its own audience: a token of one kind never verifies as
 * another. Verification pins the algorithm and requires every claim.
 */
export class TokenSigner extends Context.Tag("roster/TokenSigner")<TokenSigner, {
  readonly sign: (kind: TokenKind, claims: TokenClaims) => Effect.Effect<string>
  /** Tokens of one kind for many claims at once, in their order: a campaign batch's links. */
  readonly signEach: (kind: TokenKind, claims: ReadonlyArray<TokenClaims>) => Effect.Effect<ReadonlyArray<string>>
  /** The claims of a good token; expired, tampered, foreign or malformed tokens are InvalidToken. */
  readonly verify: (kind: TokenKind, token: string, now: Date) => Effect.Effect<TokenClaims, InvalidToken>
}>() {}
