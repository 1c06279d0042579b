import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Option, Schema } from "effect"
import {
  API_KEY_SECRET_LENGTH,
  apiKeyFromRandomBytes,
  apiKeyHint,
  ApiKeyName,
  apiKeyPrefix,
  MAX_API_KEY_LENGTH,
  parseApiKey
} from "./api-key.js"

const secret32 = "0123456789ABCDEFGHIJKLMNOPQRSTUV"
const environment = fc.constantFrom("live" as const, "test" as const)

describe("reading a presented API key", () => {
  it.each([
    [`svc_live_${secret32}`, "live"],
    [`svc_test_${secret32}`, "test"],
    [`svc_live_${"aZ9".repeat(20)}`, "live"]
  ])("%s is a %s key", (key, env) => {
    expect(parseApiKey(key)).toEqual(Option.some({ environment: env, key }))
  })

  it.each([
    ["an empty string", ""],
    ["the prefix alone", "svc_live_"],
    ["31 characters after the prefix", `svc_live_${secret32.slice(1)}`],
    ["another environment", `svc_prod_${secret32}`],
    ["another service's prefix", `sk_live_${secret32}`],
    ["upper-case prefix", `SVC_LIVE_${secret32}`],
    ["a character outside base62", `svc_live_${secret32.slice(1)}-`],
    ["an underscore in the secret", `svc_live_${secret32}_x`],
    ["a bearer header", `Bearer svc_live_${secret32}`],
    ["spaces around it", ` svc_live_${secret32} `],
    ["a line break at the end", `svc_live_${secret32}\n`],
    ["more than 128 characters", `svc_live_${"a".repeat(MAX_API_KEY_LENGTH)}`]
  ])("%s is not a key", (_, presented) => {
    expect(parseApiKey(presented)).toEqual(Option.none())
  })

  it.prop("never throws and accepts only svc_live_/svc_test_ with 32 or more base62 characters", [
    fc.oneof(
      fc.string({ unit: "binary", maxLength: 150 }),
      fc.tuple(
        fc.constantFrom("svc_live_", "svc_test_", "svc_demo_", "svc_live", ""),
        fc.string({ unit: fc.constantFrom("a", "Z", "0", "9", "_", "-", " "), maxLength: 130 })
      ).map(([prefix, rest]) => prefix + rest)
    )
  ], ([presented]) => {
    const parsed = parseApiKey(presented)
    const shaped = /^svc_(live|test)_[0-9A-Za-z]{32,}$/.test(presented) && presented.length <= MAX_API_KEY_LENGTH
    expect(Option.isSome(parsed)).toBe(shaped)
    if (Option.isSome(parsed)) expect(presented.startsWith(apiKeyPrefix(parsed.value.environment))).toBe(true)
  })
})

describe("making a key from random bytes", () => {
  it.prop(
    "with enough random bytes, the key always parses and carries its environment's prefix",
    [environment, fc.uint8Array({ minLength: API_KEY_SECRET_LENGTH + 16, maxLength: 96 })],
    ([env, bytes]) => {
      fc.pre(bytes.filter((b) => b < 248).length >= API_KEY_SECRET_LENGTH)
      const key = Option.getOrThrow(apiKeyFromRandomBytes(env, bytes))
      expect(key.startsWith(apiKeyPrefix(env))).toBe(true)
      expect(key).toHaveLength(apiKeyPrefix(env).length + API_KEY_SECRET_LENGTH)
      expect(parseApiKey(key)).toEqual(Option.some({ environment: env, key }))
    }
  )

  it.prop(
    "when the usable bytes run out there is no key",
    [environment, fc.uint8Array({ maxLength: 96 })],
    ([env, bytes]) => {
      const usable = bytes.filter((b) => b < 248).length
      expect(Option.isSome(apiKeyFromRandomBytes(env, bytes))).toBe(usable >= API_KEY_SECRET_LENGTH)
    }
  )

  it("skips bytes of 248 and above so that every character is equally likely", () => {
    const bytes = new Uint8Array([248, 255, ...Array.from({ length: API_KEY_SECRET_LENGTH }, (_, i) => i)])
    expect(apiKeyFromRandomBytes("live", bytes)).toEqual(Option.some(`svc_live_${"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcd"}`))
    expect(apiKeyFromRandomBytes("test", new Uint8Array([61, 62, 125, 247, ...new Array(36).fill(0)])))
      .toEqual(Option.some(`svc_test_z01z${"0".repeat(36)}`))
  })

  it("different bytes make different keys", () => {
    const a = apiKeyFromRandomBytes("live", new Uint8Array(56).fill(1))
    const b = apiKeyFromRandomBytes("live", new Uint8Array(56).fill(2))
    expect(a).not.toEqual(b)
  })
})

describe("what listings show of a key", () => {
  it("the prefix with four characters and the last four", () => {
    expect(apiKeyHint(`svc_live_AbCd${"x".repeat(32)}WxYz`)).toEqual({ prefix: "svc_live_AbCd", lastFour: "WxYz" })
    expect(apiKeyHint(`svc_test_9876${"x".repeat(32)}0001`)).toEqual({ prefix: "svc_test_9876", lastFour: "0001" })
  })

  it.prop("never shows more than eight characters of the secret", [environment, fc.uint8Array({ minLength: 64, maxLength: 64 })], ([env, bytes]) => {
    fc.pre(bytes.filter((b) => b < 248).length >= API_KEY_SECRET_LENGTH)
    const key = Option.getOrThrow(apiKeyFromRandomBytes(env, bytes))
    const hint = apiKeyHint(key)
    expect(hint.prefix).toBe(key.slice(0, apiKeyPrefix(env).length + 4))
    expect(hint.lastFour).toBe(key.slice(-4))
  })
})

describe("key names", () => {
  it("are trimmed, not empty, at most 100 characters, without control characters", () => {
    const decode = Schema.decodeUnknownEither(ApiKeyName)
    expect(decode("  Production import ")).toEqual(Either.right("Production import"))
    expect(Either.isLeft(decode("   "))).toBe(true)
    expect(Either.isLeft(decode("k".repeat(101)))).toBe(true)
    expect(Either.isLeft(decode("CI\u0000key"))).toBe(true)
  })
})
