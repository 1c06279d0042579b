import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import {
  EmailAddress,
  emailAddressProblem,
  emailKey,
  isEmailAddress,
  MAX_EMAIL_LENGTH,
  MAX_LOCAL_PART_LENGTH
} from "./email-address.js"

const decode = Schema.decodeUnknownEither(EmailAddress)
const accepted = (candidate: string) => Either.isRight(decode(candidate))

/** A domain of `length` characters: labels of 63 letters joined by dots, ending in `.com`. */
const domainOfLength = (length: number): string => {
  const labels: Array<string> = []
  let remaining = length - ".com".length
  while (remaining > 0) {
    const size = Math.min(63, remaining - (labels.length > 0 ? 1 : 0))
    labels.push("d".repeat(size))
    remaining -= size + (labels.length > 1 ? 1 : 0)
  }
  const domain = `${labels.join(".")}.com`
  expect(domain).toHaveLength(length)
  return domain
}

describe("email addresses that real mailboxes use are accepted", () => {
  it.each([
    ["plain", "ada@example.com"],
    ["plus addressing", "ada+newsletter@example.com"],
    ["dots and hyphens", "ada.lovelace-king@mail.example.co.uk"],
    ["an IDN domain", "user@bücher.de"],
    ["a punycode domain", "user@xn--bcher-kva.de"],
    ["a unicode local part", "θσερ@παράδειγμα.δοκιμή"],
    ["a CJK address", "用户@例子.广告"],
    ["digits in the domain", "ada@123mail.com"],
    ["a local part of 64 characters", `${"a".repeat(MAX_LOCAL_PART_LENGTH)}@example.com`],
    ["a label of 63 characters", `ada@${"l".repeat(63)}.com`],
    ["upper case kept as given", "Ada.Lovelace@Example.COM"]
  ])("%s: %s", (_, address) => {
    expect(emailAddressProblem(address)).toBeUndefined()
    expect(decode(address)).toEqual(Either.right(address))
  })

  it("an address of exactly 254 characters", () => {
    const address = `${"a".repeat(64)}@${domainOfLength(MAX_EMAIL_LENGTH - 65)}`
    expect(address).toHaveLength(MAX_EMAIL_LENGTH)
    expect(emailAddressProblem(address)).toBeUndefined()
  })

  it("surrounding spaces are trimmed: ' a@b.co ' is stored as 'a@b.co'", () => {
    expect(decode(" a@b.co ")).toEqual(Either.right("a@b.co"))
    expect(decode("\tada@example.com\n")).toEqual(Either.right("ada@example.com"))
  })
})

describe("malformed email addresses are refused with a reason", () => {
  it.each([
    ["empty", "", "must not be empty"],
    ["no @", "ada.example.com", "must contain exactly one @"],
    ["two @", "ada@lovelace@example.com", "must contain exactly one @"],
    ["a space inside", "ada lovelace@example.com", "must not contain spaces or control characters"],
    ["a space in the domain", "ada@exa mple.com", "must not contain spaces or control characters"],
    ["a control character", "ada\u0000@example.com", "must not contain spaces or control characters"],
    ["a newline inside", "ada@example.com\nBcc: eve@example.com", "must not contain spaces or control characters"],
    ["a zero-width character", "ada\u200b@example.com", "must not contain spaces or control characters"],
    ["half of a surrogate pair", "ada\ud800@example.com", "must be valid Unicode text"],
    ["nothing before the @", "@example.com", "must have a local part before the @"],
    ["nothing after the @", "ada@", "must have a domain after the @"],
    ["no dot in the domain", "ada@localhost", "domain must contain a dot"],
    ["an empty label", "ada@example..com", "domain must not have empty labels"],
    ["a leading dot in the domain", "ada@.example.com", "domain must not have empty labels"],
    ["a trailing dot in the domain", "ada@example.com.", "domain must not have empty labels"],
    ["a leading dot", ".ada@example.com", "local part must not start or end with a dot or contain two dots in a row"],
    ["a trailing dot", "ada.@example.com", "local part must not start or end with a dot or contain two dots in a row"],
    ["a double dot", "ada..lovelace@example.com", "local part must not start or end with a dot or contain two dots in a row"],
    ["a quote", "\"ada\"@example.com", "local part contains a character that is not allowed"],
    ["angle brackets", "Ada <ada@example.com>", "must not contain spaces or control characters"],
    ["a comma", "ada,eve@example.com", "local part contains a character that is not allowed"],
    ["a label starting with a hyphen", "ada@-example.com", "domain contains a character that is not allowed"],
    ["an underscore in the domain", "ada@exa_mple.com", "domain contains a character that is not allowed"],
    ["a numeric top-level domain", "ada@192.168.0.1", "domain must end in a name, not a number"],
    ["an IP literal", "ada@[192.168.0.1]", "domain contains a character that is not allowed"],
    ["a local part of 65 characters", `${"a".repeat(65)}@example.com`, "local part must be at most 64 characters"],
    ["a label of 64 characters", `ada@${"l".repeat(64)}.com`, "domain labels must be at most 63 characters"]
  ])("%s", (_, address, problem) => {
    expect(emailAddressProblem(address)).toBe(problem)
    expect(accepted(address)).toBe(false)
    expect(isEmailAddress(address)).toBe(false)
  })

  it("an address of 255 characters", () => {
    const address = `${"a".repeat(64)}@${domainOfLength(MAX_EMAIL_LENGTH + 1 - 65)}`
    expect(address).toHaveLength(MAX_EMAIL_LENGTH + 1)
    expect(emailAddressProblem(address)).toBe("must be at most 254 characters")
  })

  it("the refusal names the reason in the parse error", () => {
    const result = decode("ada@localhost")
    if (Either.isRight(result)) expect.fail("ada@localhost should be refused")
    expect(result.left.message).toContain("domain must contain a dot")
  })
})

/** Strings that look like addresses often, so that properties see accepted ones as well. */
const addressLike = fc.oneof(
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.tuple(
    fc.string({ unit: fc.constantFrom("a", "Z", "ä", "θ", ".", "+", "-", "_", "@", " ", "\u0000", "\"", "9"), maxLength: 80 }),
    fc.array(
      fc.string({ unit: fc.constantFrom("b", "Ü", "7", "-", "ß", "\u0301", "."), minLength: 0, maxLength: 70 }),
      { minLength: 1, maxLength: 5 }
    )
  ).map(([local, labels]) => `${local}@${labels.join(".")}`),
  fc.tuple(fc.emailAddress(), fc.constantFrom("", " ", "\t", "\n")).map(([address, pad]) => `${pad}${address}${pad}`)
)

/**
 * Text rich in letters whose case or composition changes under lower-casing and normalization
 * (Greek with iota subscript, dotted capital I, final sigma, combining marks).
 */
const caseAndMarks = fc.string({
  unit: fc.oneof(
    fc.constantFrom("T", "t", "Ά", "Ω", "Ϊ", "İ", "Σ", "ß", "A", "Å", "É", "\u0308", "\u0345", "\u0301", "\u0307", "\u030a", "@", "."),
    fc.string({ unit: "grapheme-composite", minLength: 1, maxLength: 1 })
  ),
  maxLength: 12
})

describe("email properties", () => {
  it.prop("judging any string never throws", [fc.string({ unit: "binary", maxLength: 400 })], ([candidate]) => {
    const problem = emailAddressProblem(candidate)
    expect(problem === undefined || problem.length > 0).toBe(true)
    expect(() => decode(candidate)).not.toThrow()
  })

  it.prop("anything accepted has exactly one @ and stays within the lengths", [addressLike], ([candidate]) => {
    const result = decode(candidate)
    if (Either.isLeft(result)) return
    const address: string = result.right
    expect(address).toBe(candidate.trim())
    const [local, domain, ...rest] = address.split("@")
    expect(rest).toEqual([])
    expect(domain).toContain(".")
    expect([...local!].length).toBeGreaterThan(0)
    expect([...local!].length).toBeLessThanOrEqual(MAX_LOCAL_PART_LENGTH)
    expect([...address].length).toBeLessThanOrEqual(MAX_EMAIL_LENGTH)
    expect(address).not.toMatch(/\s/u)
  })

  it.prop("every address fast-check considers valid is accepted", [fc.emailAddress()], ([address]) => {
    fc.pre([...address].length <= MAX_EMAIL_LENGTH && !/\.[0-9]+$/.test(address) && !/["(),:;<>[\\\]]/.test(address))
    expect(emailAddressProblem(address)).toBeUndefined()
  })

  it.prop("decoding trims and then judges the trimmed address", [addressLike], ([candidate]) => {
    expect(accepted(candidate)).toBe(emailAddressProblem(candidate.trim()) === undefined)
  })

  it.prop("the email key is idempotent", [fc.oneof(caseAndMarks, fc.string({ unit: "grapheme", maxLength: 40 }))], ([address]) => {
    expect(emailKey(emailKey(address))).toBe(emailKey(address))
  }, { fastCheck: { numRuns: 400 } })

  it.prop("the email key ignores letter case", [fc.emailAddress()], ([address]) => {
    expect(emailKey(address.toUpperCase())).toBe(emailKey(address))
    expect(emailKey(address.toLowerCase())).toBe(emailKey(address))
  })

  it.prop(
    "the email key ignores letter case and composition in any script",
    [caseAndMarks],
    ([text]) => {
      expect(emailKey(text.toLowerCase())).toBe(emailKey(text))
      expect(emailKey(text.normalize("NFD"))).toBe(emailKey(text))
      expect(emailKey(text.normalize("NFC"))).toBe(emailKey(text))
      expect(emailKey(`  ${text}\n`)).toBe(emailKey(text.trim()))
    },
    { fastCheck: { numRuns: 400 } }
  )

  it("the same mailbox written two ways has one key", () => {
    expect(emailKey("Ada@Example.com")).toBe(emailKey("ada@example.COM"))
    expect(emailKey("ANDRÉ@bücher.de")).toBe(emailKey("andre\u0301@BÜCHER.DE"))
    expect(emailKey("T\u0308@example.com")).toBe(emailKey("\u1e97@example.com"))
    expect(emailKey("ada@example.com")).not.toBe(emailKey("ada@example.co"))
  })
})
