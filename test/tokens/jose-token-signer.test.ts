import { type TokenClaims, TokenSigner } from "@roster/application"
import { InvalidToken, TokenKind } from "@roster/domain"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Either, Exit } from "effect"
import { base64url, type JWTPayload, SignJWT, UnsecuredJWT } from "jose"
import { randomBytes } from "node:crypto"
import { makeJoseTokenSigner, SigningSecretError } from "../../adapters/jose/index.js"

const secret = new Uint8Array(randomBytes(32))

const issuedAt = new Date("2026-11-02T10:00:00.000Z")
const expiresAt = new Date("2026-11-09T10:00:00.000Z")
const during = new Date("2026-11-05T08:30:00.000Z")

const claims: TokenClaims = {
  subject: "user-0192f3a4",
  id: "session-0192f3a5",
  organizationId: "org-0192f3a6",
  issuedAt,
  expiresAt
}

/** The payload this service would sign, for forging tokens it would not. */
const payloadOf = (kind: TokenKind = "session"): JWTPayload => ({
  iss: "roster",
  aud: TokenKind[kind],
  sub: claims.subject,
  jti: claims.id,
  org: claims.organizationId,
  iat: Math.floor(issuedAt.getTime() / 1000),
  exp: Math.floor(expiresAt.getTime() / 1000)
})

const forge = (
  payload: JWTPayload,
  options: { readonly alg?: string; readonly key?: Uint8Array; readonly typ?: string | null } = {}
) =>
  Effect.promise(() =>
    new SignJWT(payload)
      .setProtectedHeader({
        alg: options.alg ?? "HS256",
        ...(options.typ === null ? {} : { typ: options.typ ?? "JWT" })
      })
      .sign(options.key ?? secret)
  )

const without = (payload: JWTPayload, claim: string): JWTPayload =>
  Object.fromEntries(Object.entries(payload).filter(([name]) => name !== claim))

/** The reasons a refused token may give: short, in the product's words. */
const REASONS = [
  "the token has expired",
  "the token's signature does not match",
  "the token is not signed the way this service signs tokens",
  "the token lacks a required claim",
  "the token is not meant for this use",
  "the token was not issued by this service",
  "the token's claims are not valid",
  "the token's issue time is in the future",
  "the token is malformed"
]

/** Verifies and expects InvalidToken; returns its reason. */
const refused = (kind: TokenKind, token: string, now: Date = during) =>
  Effect.gen(function*() {
    const signer = yield* TokenSigner
    const result = yield* Effect.either(signer.verify(kind, token, now))
    if (Either.isRight(result)) throw new Error(`expected the token to be refused: ${token}`)
    expect(result.left).toBeInstanceOf(InvalidToken)
    expect(REASONS).toContain(result.left.reason)
    return result.left.reason
  })

layer(makeJoseTokenSigner(secret))("signed tokens (HS256 JWT)", (it) => {
  it.effect("a good token verifies to the claims it was signed with", () =>
    Effect.gen(function*() {
      const signer = yield* TokenSigner
      const token = yield* signer.sign("session", claims)
      expect(yield* signer.verify("session", token, during)).toEqual(claims)
    }))

  it.effect("a token without an organization verifies without one", () =>
    Effect.gen(function*() {
      const signer = yield* TokenSigner
      const { organizationId: _, ...rest } = claims
      const token = yield* signer.sign("preference", rest)
      const verified = yield* signer.verify("preference", token, during)
      expect(verified.organizationId).toBeUndefined()
      expect(verified.subject).toBe(claims.subject)
    }))

  it.effect("a revocable token carries the version it was issued under", () =>
    Effect.gen(function*() {
      const signer = yield* TokenSigner
      const token = yield* signer.sign("preference", { ...claims, version: 3 })
      expect((yield* signer.verify("preference", token, during)).version).toBe(3)
      expect((yield* signer.verify("session", yield* signer.sign("session", claims), during)).version).toBeUndefined()
    }))

  it.effect("tokens signed many at once are the very tokens signed one by one, and verify alike", () =>
    Effect.gen(function*() {
      const signer = yield* TokenSigner
      const { organizationId: _, ...withoutOrganization } = claims
      const each: ReadonlyArray<TokenClaims> = [
        claims,
        withoutOrganization,
        { ...claims, version: 0 },
        { ...claims, version: 7, subject: "sub-\u00e9\"quoted\"", issuedAt: new Date(issuedAt.getTime() + 999) }
      ]
      for (const kind of ["preference", "session"] as const) {
        const many = yield* signer.signEach(kind, each)
        const one = yield* Effect.forEach(each, (c) => signer.sign(kind, c))
        expect(many).toStrictEqual(one)
        for (const token of many) expect((yield* signer.verify(kind, token, during)).id).toBe(claims.id)
      }
      expect(yield* signer.signEach("preference", [])).toStrictEqual([])
    }))

  it.effect("the token is a JWT with the pinned header and the kind's audience", () =>
    Effect.gen(function*() {
      const token = yield* (yield* TokenSigner).sign("preference", claims)
      const [header, payload] = token.split(".").slice(0, 2).map((part) => JSON.parse(new TextDecoder().decode(base64url.decode(part!))))
      expect(header).toEqual({ alg: "HS256", typ: "JWT" })
      expect(payload).toEqual(payloadOf("preference"))
    }))

  it.effect("times are whole seconds, never later than asked", () =>
    Effect.gen(function*() {
      const signer = yield* TokenSigner
      const token = yield* signer.sign("session", {
        ...claims,
        issuedAt: new Date(issuedAt.getTime() + 999),
        expiresAt: new Date(expiresAt.getTime() + 999)
      })
      const verified = yield* signer.verify("session", token, during)
      expect(verified.issuedAt).toEqual(issuedAt)
      expect(verified.expiresAt).toEqual(expiresAt)
    }))

  it.effect("a token is good until its expiry and refused 1 ms after it", () =>
    Effect.gen(function*() {
      const signer = yield* TokenSigner
      const token = yield* signer.sign("session", claims)
      yield* signer.verify("session", token, new Date(expiresAt.getTime() - 1))
      expect(yield* refused("session", token, expiresAt)).toBe("the token has expired")
      expect(yield* refused("session", token, new Date(expiresAt.getTime() + 1))).toBe("the token has expired")
    }))

  it.effect("a tampered payload is refused", () =>
    Effect.gen(function*() {
      const token = yield* (yield* TokenSigner).sign("session", claims)
      const [header, , signature] = token.split(".")
      const tampered = base64url.encode(JSON.stringify({ ...payloadOf(), sub: "user-of-someone-else" }))
      expect(yield* refused("session", `${header}.${tampered}.${signature}`)).toBe("the token's signature does not match")
    }))

  it.effect("a token signed with HS512, even with the same secret, is refused", () =>
    Effect.gen(function*() {
      const token = yield* forge(payloadOf(), { alg: "HS512" })
      expect(yield* refused("session", token)).toBe("the token is not signed the way this service signs tokens")
    }))

  it.effect("a token signed with another secret is refused", () =>
    Effect.gen(function*() {
      const token = yield* forge(payloadOf(), { key: new Uint8Array(randomBytes(32)) })
      expect(yield* refused("session", token)).toBe("the token's signature does not match")
    }))

  it.effect("an unsigned token (alg none) is refused", () =>
    Effect.gen(function*() {
      const token = new UnsecuredJWT(payloadOf()).encode()
      expect(yield* refused("session", token)).toBe("the token is not signed the way this service signs tokens")
      const [, payload] = token.split(".")
      const noneWithSignature = `${base64url.encode(JSON.stringify({ alg: "none", typ: "JWT" }))}.${payload}.c2lnbmF0dXJl`
      yield* refused("session", noneWithSignature)
    }))

  it.effect("a preference token never passes as a session, nor a session as a preference token", () =>
    Effect.gen(function*() {
      const signer = yield* TokenSigner
      const preference = yield* signer.sign("preference", claims)
      const session = yield* signer.sign("session", claims)
      expect(yield* refused("session", preference)).toBe("the token is not meant for this use")
      expect(yield* refused("preference", session)).toBe("the token is not meant for this use")
    }))

  it.effect("a token naming several audiences, ours among them, is refused", () =>
    Effect.gen(function*() {
      const token = yield* forge({ ...payloadOf(), aud: [TokenKind.session, "someone-else"] })
      expect(yield* refused("session", token)).toBe("the token is not meant for this use")
    }))

  it.effect("a token from another issuer is refused", () =>
    Effect.gen(function*() {
      const token = yield* forge({ ...payloadOf(), iss: "another-service" })
      expect(yield* refused("session", token)).toBe("the token was not issued by this service")
    }))

  it.effect("a token missing any required claim is refused", () =>
    Effect.gen(function*() {
      for (const claim of ["jti", "sub", "exp", "iat"]) {
        const token = yield* forge(without(payloadOf(), claim))
        expect(yield* refused("session", token)).toBe("the token lacks a required claim")
      }
      const noIssuer = yield* forge(without(payloadOf(), "iss"))
      yield* refused("session", noIssuer)
      const noType = yield* forge(payloadOf(), { typ: null })
      yield* refused("session", noType)
    }))

  it.effect("claims of the wrong type are refused", () =>
    Effect.gen(function*() {
      yield* refused("session", yield* forge({ ...payloadOf(), sub: 42 } as unknown as JWTPayload))
      yield* refused("session", yield* forge({ ...payloadOf(), jti: "" }))
      yield* refused("session", yield* forge({ ...payloadOf(), org: { id: "org" } }))
      for (const ver of [-1, 1.5, "2", null]) {
        expect(yield* refused("preference", yield* forge({ ...payloadOf("preference"), ver } as JWTPayload)))
          .toBe("the token's claims are not valid")
      }
      yield* refused("session", yield* forge({ ...payloadOf(), exp: "2030-01-01" } as unknown as JWTPayload))
    }))

  it.effect("a token spelt otherwise than the service spells it is refused, though its bytes are the same", () =>
    Effect.gen(function*() {
      const signer = yield* TokenSigner
      const good = yield* signer.sign("session", claims)
      const [header, payload, signature] = good.split(".") as [string, string, string]
      // 32 signature bytes take 43 characters; the last one carries two bits that decode to nothing.
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
      const last = alphabet.indexOf(signature.at(-1)!)
      const otherBits = `${signature.slice(0, -1)}${alphabet[last ^ 1]}`
      expect(Buffer.from(otherBits, "base64url")).toStrictEqual(Buffer.from(signature, "base64url"))
      const spellings = [
        `${header}.${payload}.${otherBits}`,
        `${header}.${payload}.${signature}=`,
        `${header}=.${payload}.${signature}`,
        `${header}.${payload}.${signature.slice(0, 20)} ${signature.slice(20)}`,
        `${header}.${payload}.${signature.slice(0, 20)}\n${signature.slice(20)}`,
        `${header}.${payload}.${Buffer.from(signature, "base64url").toString("base64")}`
      ]
      for (const token of spellings) expect(yield* refused("session", token)).toBe("the token is malformed")
      expect((yield* signer.verify("session", good, during)).subject).toBe(claims.subject)
    }))

  it.effect("a token issued more than a minute ahead of the clock is refused; within a minute it verifies", () =>
    Effect.gen(function*() {
      const signer = yield* TokenSigner
      const ahead = yield* signer.sign("session", { ...claims, issuedAt: new Date(during.getTime() + 61_000) })
      expect(yield* refused("session", ahead)).toBe("the token's issue time is in the future")
      const skewed = yield* signer.sign("session", { ...claims, issuedAt: new Date(during.getTime() + 59_000) })
      expect((yield* signer.verify("session", skewed, during)).id).toBe(claims.id)
    }))

  it.effect("garbage is refused as malformed", () =>
    Effect.gen(function*() {
      const signer = yield* TokenSigner
      const good = yield* signer.sign("session", claims)
      const garbage = [
        "",
        "not-a-token",
        "a.b.c",
        "...",
        "eyJhbGciOiJIUzI1NiJ9",
        `${good}.extra`,
        ` ${good}`,
        good.split(".").slice(0, 2).join("."),
        "x".repeat(100_000),
        "\u0000\u0001.\u0002.\u0003"
      ]
      for (const token of garbage) yield* refused("session", token)
    }))
})

describe("the signing secret", () => {
  it.effect("a secret shorter than 32 bytes is refused when the signer is made", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.provide(TokenSigner, makeJoseTokenSigner(new Uint8Array(31))))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        expect(exit.cause).toMatchObject({ _tag: "Fail", error: expect.any(SigningSecretError) })
      }
    }))

  it.effect("a token signed with one secret does not verify with another", () =>
    Effect.gen(function*() {
      const token = yield* Effect.flatMap(TokenSigner, (s) => s.sign("session", claims)).pipe(
        Effect.provide(makeJoseTokenSigner(new Uint8Array(randomBytes(32))))
      )
      yield* refused("session", token).pipe(Effect.provide(makeJoseTokenSigner(secret)))
    }))
})
