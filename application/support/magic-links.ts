import {
  type EmailAddress,
  expiresAt,
  type Locale,
  MAGIC_LINK_LIFETIME,
  MAGIC_LINK_TOKEN_BYTES,
  MagicLink
} from "@roster/domain"
import { Duration, Effect, Encoding } from "effect"
import { MagicLinkRepository } from "../ports/magic-link-repository.js"
import { Secrets } from "../ports/secrets.js"
import { now } from "./clock.js"

/** How long a sign-in link is good, as its email tells it. */
export const MAGIC_LINK_MINUTES = Duration.toMinutes(MAGIC_LINK_LIFETIME)

/**
 * How a use case issues a single-use sign-in link for an address: the link is kept by its token's
 * hash, and the token is returned for the email that carries it.
 */
export const magicLinkIssuer = Effect.gen(function*() {
  const secrets = yield* Secrets
  const magicLinks = yield* MagicLinkRepository
  return (email: EmailAddress, locale: Locale): Effect.Effect<string> =>
    Effect.gen(function*() {
      const token = Encoding.encodeBase64Url(yield* secrets.randomBytes(MAGIC_LINK_TOKEN_BYTES))
      const at = yield* now
      yield* magicLinks.insert(
        new MagicLink({
          tokenHash: yield* secrets.sha256(token),
          email,
          locale,
          createdAt: at,
          expiresAt: expiresAt(at, MAGIC_LINK_LIFETIME),
          consumedAt: null
        })
      )
      return token
    })
})
