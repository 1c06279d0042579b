import { type TokenClaims, TokenSigner } from "@roster/application"
import { InvalidToken, MIN_SIGNING_SECRET_BYTES, TokenKind } from "@roster/domain"
import { Effect, Layer, Schema } from "effect"
import { errors, type JWTPayload, jwtVerify, SignJWT } from "jose"
import { createHmac, webcrypto } from "node:crypto"

/** The secret that signs tokens is missing, too short or unreadable. */
export class SigningSecretError extends Schema.TaggedError<SigningSecretError>()("SigningSecretError", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

const ALGORITHM = "HS256"
const ISSUER = "roster"
const TYPE = "JWT"

/** Far longer than any token we issue; anything longer is refused before it is parsed. */
const MAX_TOKEN_LENGTH = 4096

/** How far ahead of the verifier's clock a token's issue time may be: the issuer's clock may run a little ahead. */
const CLOCK_SKEW_SECONDS = 60

const invalid = (reason: string) => new InvalidToken({ reason })

const BASE64URL = /^[A-Za-z0-9_-]*$/

/**
 * Whether the token is three parts of base64url exactly as this service writes them: no padding,
 * no whitespace, no other alphabet, and no trailing bits that decode to the same bytes (a part that
 * would encode back differently). Each token has one spelling, so none can pass for a new one.
 */
const isCanonical = (token: string): boolean => {
  const parts = token.split(".")
  return parts.length === 3 &&
    parts.every((part) => BASE64URL.test(part) && Buffer.from(part, "base64url").toString("base64url") === part)
}

/**
 * A short reason for a refused token, in the product's words. jose's own messages name claims,
 * headers and library internals, so they never reach the caller.
 */
const refusal = (error: unknown): InvalidToken => {
  if (error instanceof errors.JWTExpired) return invalid("the token has expired")
  if (error instanceof errors.JWSSignatureVerificationFailed) return invalid("the token's signature does not match")
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return invalid("the token is not signed the way this service signs tokens")
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === "missing") return invalid("the token lacks a required claim")
    if (error.claim === "aud") return invalid("the token is not meant for this use")
    if (error.claim === "iss") return invalid("the token was not issued by this service")
    return invalid("the token's claims are not valid")
  }
  return invalid("the token is malformed")
}

const fromNumericDate = (seconds: number): Date => new Date(seconds * 1000)
const toNumericDate = (date: Date): number => Math.floor(date.getTime() / 1000)

/** The claims as {@link SignJWT} below sets them, in its order. */
const payloadOf = (kind: TokenKind, claims: TokenClaims): JWTPayload => ({
  ...(claims.organizationId === undefined ? {} : { org: claims.organizationId }),
  ...(claims.version === undefined ? {} : { ver: claims.version }),
  iss: ISSUER,
  aud: TokenKind[kind],
  sub: claims.subject,
  jti: claims.id,
  iat: toNumericDate(claims.issuedAt),
  exp: toNumericDate(claims.expiresAt)
})

const ENCODED_HEADER = Buffer.from(JSON.stringify({ alg: ALGORITHM, typ: TYPE })).toString("base64url")

/**
 * The claims of a verified payload; jose has checked presence, but not the types of these, nor
 * that the token was issued before `now` (give or take the clock skew).
 */
const claimsOf = (kind: TokenKind, payload: JWTPayload, now: Date): TokenClaims | InvalidToken => {
  const { aud, exp, iat, jti, org, sub, ver } = payload
  if (aud !== TokenKind[kind]) return invalid("the token is not meant for this use")
  if (typeof sub !== "string" || sub === "" || typeof jti !== "string" || jti === "") {
    return invalid("the token lacks a required claim")
  }
  if (typeof exp !== "number" || typeof iat !== "number") return invalid("the token lacks a required claim")
  if (iat > now.getTime() / 1000 + CLOCK_SKEW_SECONDS) return invalid("the token's issue time is in the future")
  if (org !== undefined && typeof org !== "string") return invalid("the token's claims are not valid")
  if (ver !== undefined && !(typeof ver === "number" && Number.isSafeInteger(ver) && ver >= 0)) {
    return invalid("the token's claims are not valid")
  }
  return {
    subject: sub,
    id: jti,
    organizationId: org,
    version: ver,
    issuedAt: fromNumericDate(iat),
    expiresAt: fromNumericDate(exp)
  }
}

/**
 * Signed tokens as HS256 JWTs: header `typ: JWT`; claims `iss: roster`, `aud` of the token's kind,
 * `sub`, `jti`, `iat`, `exp`, for tokens of one organization `org`, and for revocable ones `ver`. Times are whole seconds
 * (JWT NumericDate): a token's `exp` is its end rounded down, so it never outlives what was asked.
 *
 * Verification pins the algorithm, issuer, type and audience, requires every claim, takes only
 * the one base64url spelling of a token, and judges expiry and the issue time (at most a minute
 * ahead) at the `now` it is given. A secret shorter than 32 bytes is refused.
 */
export const makeJoseTokenSigner = (secret: Uint8Array): Layer.Layer<TokenSigner, SigningSecretError> =>
  Layer.effect(
    TokenSigner,
    Effect.gen(function*() {
      if (secret.byteLength < MIN_SIGNING_SECRET_BYTES) {
        return yield* new SigningSecretError({
          reason: `a signing secret needs at least ${MIN_SIGNING_SECRET_BYTES} bytes; this one has ${secret.byteLength}`
        })
      }
      // The key is bound to HMAC SHA-256: even a verifier left unpinned could not use it for another algorithm.
      const key = yield* Effect.promise(() =>
        webcrypto.subtle.importKey("raw", Uint8Array.from(secret), { name: "HMAC", hash: "SHA-256" }, false, [
          "sign",
          "verify"
        ])
      )

      const signOne = (kind: TokenKind, claims: TokenClaims) => {
        const { aud, exp, iat, iss, jti, sub, ...custom } = payloadOf(kind, claims)
        return new SignJWT(custom)
          .setProtectedHeader({ alg: ALGORITHM, typ: TYPE })
          .setIssuer(iss!)
          .setAudience(aud!)
          .setSubject(sub!)
          .setJti(jti!)
          .setIssuedAt(iat!)
          .setExpirationTime(exp!)
          .sign(key)
      }

      /**
       * The same compact HS256 serialization as {@link signOne}, byte for byte (a test holds them
       * to it), signed with Node's synchronous HMAC: a campaign signs a token per email, and
       * WebCrypto's asynchronous job per signature cost a campaign worker more than its rendering.
       * Verification stays with jose.
       */
      const signNow = (kind: TokenKind, claims: TokenClaims) => {
        const signingInput = `${ENCODED_HEADER}.${Buffer.from(JSON.stringify(payloadOf(kind, claims))).toString("base64url")}`
        return `${signingInput}.${createHmac("sha256", secret).update(signingInput).digest("base64url")}`
      }

      const sign = (kind: TokenKind, claims: TokenClaims) =>
        Effect.promise(() => signOne(kind, claims))

      const signEach = (kind: TokenKind, claims: ReadonlyArray<TokenClaims>) =>
        Effect.sync(() => claims.map((c) => signNow(kind, c)))

      const verify = (kind: TokenKind, token: string, now: Date) =>
        Effect.gen(function*() {
          if (typeof token !== "string" || token.length === 0 || token.length > MAX_TOKEN_LENGTH || !isCanonical(token)) {
            return yield* invalid("the token is malformed")
          }
          const { payload } = yield* Effect.tryPromise({
            try: () =>
              jwtVerify(token, key, {
                algorithms: [ALGORITHM],
                issuer: ISSUER,
                audience: TokenKind[kind],
                typ: TYPE,
                requiredClaims: ["sub", "jti", "exp", "iat"],
                currentDate: now
              }),
            catch: refusal
          })
          const claims = claimsOf(kind, payload, now)
          return claims instanceof InvalidToken ? yield* claims : claims
        })

      return TokenSigner.of({ sign, signEach, verify })
    })
  )
