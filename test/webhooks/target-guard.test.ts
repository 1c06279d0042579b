import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { classifyAddress, inspectTarget, resolvedRefusal } from "../../adapters/http-client/index.js"

/** The guard's reason for refusing `url` (private targets not allowed); fails the test if it was accepted. */
const refusalOf = (url: string, allowPrivateTargets = false): string => {
  const inspected = inspectTarget(url, allowPrivateTargets)
  if (Either.isRight(inspected)) throw new Error(`expected ${url} to be refused, it was accepted as ${inspected.right._tag}`)
  return inspected.left
}

const accepted = (url: string, allowPrivateTargets = false) => {
  const inspected = inspectTarget(url, allowPrivateTargets)
  if (Either.isLeft(inspected)) throw new Error(`expected ${url} to be accepted, it was refused: ${inspected.left}`)
  return inspected.right
}

describe("the webhook target guard", () => {
  it("refuses every scheme but http and https, even where private targets are allowed", () => {
    for (const url of ["ftp://example.com/hook", "file:///etc/passwd", "javascript:alert(1)", "gopher://example.com/"]) {
      expect(refusalOf(url)).toBe("must use http or https")
      expect(refusalOf(url, true)).toBe("must use http or https")
    }
    expect(refusalOf("not a url")).toContain("absolute URL")
  })

  it.each([
    ["http://127.0.0.1/", "127.0.0.1", "loopback"],
    ["http://127.8.9.10:8080/hook", "127.8.9.10", "loopback"],
    ["http://10.1.2.3/", "10.1.2.3", "private"],
    ["http://172.16.0.1/", "172.16.0.1", "private"],
    ["http://172.31.255.254/", "172.31.255.254", "private"],
    ["http://192.168.1.1/", "192.168.1.1", "private"],
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254", "cloud metadata"],
    ["http://169.254.1.1/", "169.254.1.1", "link-local"],
    ["http://100.64.0.1/", "100.64.0.1", "carrier-grade NAT"],
    ["http://0.0.0.0/", "0.0.0.0", "unspecified"],
    ["http://255.255.255.255/", "255.255.255.255", "broadcast"],
    ["http://224.0.0.1/", "224.0.0.1", "multicast"],
    ["http://192.0.2.10/", "192.0.2.10", "reserved"],
    ["http://240.0.0.1/", "240.0.0.1", "reserved"],
    ["http://[::1]/", "::1", "loopback"],
    ["http://[::]/", "::", "unspecified"],
    ["http://[::ffff:127.0.0.1]/", "127.0.0.1", "loopback"],
    ["http://[::ffff:7f00:1]/", "127.0.0.1", "loopback"],
    ["http://[::ffff:10.0.0.1]/", "10.0.0.1", "private"],
    ["http://[fd00:ec2::254]/", "fd00:ec2::254", "cloud metadata"],
    ["http://[fc00::1]/", "fc00::1", "unique local"],
    ["http://[fe80::1]/", "fe80::1", "link-local"],
    ["http://[ff02::1]/", "ff02::1", "multicast"],
    ["http://[64:ff9b::7f00:1]/", "64:ff9b::7f00:1", "NAT64"],
    ["http://[2002:7f00:1::]/", "2002:7f00:1::", "6to4"],
    ["http://[2001::1]/", "2001::1", "Teredo"],
    ["http://[2001:db8::1]/", "2001:db8::1", "reserved"],
    ["http://[::7f00:1]/", "::7f00:1", "reserved"]
  ])("refuses %s, naming %s as %s", (url, address, kind) => {
    const reason = refusalOf(url)
    expect(reason).toContain(address)
    expect(reason).toContain(kind)
    expect(reason).toContain("WEBHOOK_ALLOW_PRIVATE_TARGETS=true")
    expect(reason).not.toContain("\n")
  })

  it.each([
    ["http://2130706433/", "decimal"],
    ["http://0x7f.0.0.1/", "hex first part"],
    ["http://0x7f000001/", "hex"],
    ["http://017700000001/", "octal"],
    ["http://0177.0.0.1/", "octal first part"],
    ["http://127.1/", "two parts"],
    ["http://127.0.1/", "three parts"]
  ])("refuses the loopback address written as %s (%s)", (url) => {
    const reason = refusalOf(url)
    expect(reason).toContain("127.0.")
    expect(reason).toContain("loopback")
  })

  it("refuses private addresses written in other IPv4 forms too", () => {
    expect(refusalOf("http://0xa.1.2.3/")).toContain("10.1.2.3, a private address")
    expect(refusalOf("http://2852039166/")).toContain("169.254.169.254, a cloud metadata address")
  })

  it("names the address it judged when that is an IPv4-mapped IPv6 address", () => {
    expect(refusalOf("http://[::ffff:7f00:1]:8080/")).toBe(
      "points at ::ffff:7f00:1 (127.0.0.1), a loopback address; set WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow it"
    )
  })

  it.each([
    ["http://localhost:3000/", "loopback name"],
    ["http://LOCALHOST./", "loopback name"],
    ["http://api.localhost/", "loopback name"],
    ["http://metadata.google.internal/computeMetadata/v1/", "cloud metadata name"],
    ["http://metadata/", "cloud metadata name"],
    ["http://service.internal/", "private-network name"],
    ["http://printer.local/", "private-network name"],
    ["http://redis:6379/", "single-label name"]
  ])("refuses %s by name, as a %s", (url, kind) => {
    const reason = refusalOf(url)
    expect(reason).toContain(kind)
    expect(reason).toContain(new URL(url).hostname)
  })

  it("accepts public addresses and hostnames, which are left for DNS to judge", () => {
    expect(accepted("https://93.184.215.14/hook")).toMatchObject({ _tag: "Address", address: "93.184.215.14" })
    expect(accepted("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook")).toMatchObject({
      _tag: "Address",
      address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c"
    })
    expect(accepted("https://hooks.example.com/roster?x=1")).toMatchObject({
      _tag: "Hostname",
      hostname: "hooks.example.com"
    })
    // 172.32/12 is just past the private 172.16/12.
    expect(accepted("http://172.32.0.1/")).toMatchObject({ _tag: "Address", address: "172.32.0.1" })
  })

  it("lets private addresses and local names through when private targets are allowed", () => {
    expect(accepted("http://127.0.0.1:8080/", true)).toMatchObject({ _tag: "Address", address: "127.0.0.1" })
    expect(accepted("http://[::1]:8080/", true)).toMatchObject({ _tag: "Address", address: "::1" })
    expect(accepted("http://localhost:8080/", true)).toMatchObject({ _tag: "Hostname", hostname: "localhost" })
  })

  it("judges a resolved host on every address it has, and refuses one without any", () => {
    expect(resolvedRefusal("hooks.example.com", ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]))
      .toBeUndefined()
    expect(resolvedRefusal("mixed.example.com", ["93.184.215.14", "10.0.0.5"])).toBe(
      "host mixed.example.com resolves to 10.0.0.5, a private address; set WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow it"
    )
    expect(resolvedRefusal("mapped.example.com", ["::ffff:169.254.169.254"])).toContain("cloud metadata")
    expect(resolvedRefusal("nowhere.example.com", [])).toBe("host nowhere.example.com does not resolve")
    expect(resolvedRefusal("odd.example.com", ["not-an-address"])).toContain("not an IP address")
  })

  it("classifies addresses, brackets or not", () => {
    expect(classifyAddress("8.8.8.8")).toMatchObject({ isPublic: true, range: "unicast" })
    expect(classifyAddress("[::1]")).toMatchObject({ isPublic: false, range: "loopback", address: "::1" })
    expect(classifyAddress("::ffff:7f00:1")).toMatchObject({ isPublic: false, range: "loopback", address: "127.0.0.1" })
    expect(classifyAddress("example.com")).toBeUndefined()
    expect(classifyAddress("2130706433")).toBeUndefined()
  })
})
