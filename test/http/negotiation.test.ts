import { describe, expect, it } from "vitest"
import { preferredEncoding } from "../../adapters/http/shared/compression.js"
import { negotiateLocale } from "../../adapters/http/shared/sign-in-page.js"

describe("the language of a page", () => {
  it.each([
    [undefined, undefined, "en"],
    ["de", "en", "de"],
    [" DE ", undefined, "de"],
    ["fr", "de", "de"],
    [undefined, "de-CH,de;q=0.9,en;q=0.8", "de"],
    [undefined, "fr, de-AT;q=0.5", "de"],
    [undefined, "en-US,en;q=0.9,de;q=0.8", "en"],
    [undefined, "de;q=0, en;q=0.1", "en"],
    [undefined, "de;q=0", "en"],
    [undefined, "fr, es", "en"],
    [undefined, "", "en"],
    [undefined, "de;q=nonsense;;,,", "en"]
  ])("?locale=%j with Accept-Language %j is %s", (requested, acceptLanguage, locale) => {
    expect(negotiateLocale(requested, acceptLanguage)).toBe(locale)
  })
})

describe("the encoding of an answer", () => {
  it.each([
    [undefined, undefined],
    ["gzip, br", "br"],
    ["gzip, deflate", "gzip"],
    ["gzip;q=1, br;q=0.5", "gzip"],
    ["br;q=0, gzip", "gzip"],
    ["br;q=0, gzip;q=0", undefined],
    ["*", "br"],
    ["*, br;q=0", "gzip"],
    ["identity", undefined],
    ["", undefined]
  ])("Accept-Encoding %j is %s", (acceptEncoding, encoding) => {
    expect(preferredEncoding(acceptEncoding)).toBe(encoding)
  })
})
