/**
 * The SSRF guard of outgoing webhooks: which URLs, names and addresses a delivery may reach.
 *
 * A URL must be http or https, always. Unless the operator allows private targets, its host may
 * not be a local or private-network name, and every address it points at (the literal address, or
 * each address its name resolves to) must be public unicast: IPv4 in ipaddr.js's "unicast" range,
 * IPv6 in "unicast" and inside the global unicast block 2000::/3. IPv4-mapped IPv6 addresses are
 * judged as the IPv4 address they carry. Resolving names is the transport's job; this module only
 * judges what it is given.
 */
import { Either } from "effect"
import ipaddr from "ipaddr.js"
import { isIP } from "node:net"

/** Said in every refusal that allowing private targets would lift. */
export const ALLOW_PRIVATE_HINT = "set WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow it"

/** What an IP address is, as far as the guard cares. */
export interface AddressClass {
  /** The address as the guard judged it; an IPv4-mapped IPv6 address is given as its IPv4. */
  readonly address: string
  /** ipaddr.js's name of the address's range ("unicast", "loopback", "private", ...). */
  readonly range: string
  /** Whether a webhook may be sent there without allowing private targets. */
  readonly isPublic: boolean
  /** The kind of address, for a reason: "a loopback address". */
  readonly description: string
}

/** Where a URL points once its scheme is accepted: an IP address, or a name still to resolve. */
export type WebhookTarget =
  | { readonly _tag: "Address"; readonly url: URL; readonly address: string }
  | { readonly _tag: "Hostname"; readonly url: URL; readonly hostname: string }

const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3")

/** Cloud metadata services, named as such in reasons (their ranges are refused anyway). */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set(["169.254.169.254", "169.254.170.2", "fd00:ec2::254"])

const RANGE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  loopback: "a loopback address",
  private: "a private address",
  uniqueLocal: "a private (unique local) address",
  linkLocal: "a link-local address",
  carrierGradeNat: "a carrier-grade NAT address",
  unspecified: "an unspecified address",
  broadcast: "a broadcast address",
  multicast: "a multicast address",
  reserved: "a reserved address",
  benchmarking: "a benchmarking address",
  rfc6052: "a NAT64 address",
  rfc6145: "an IPv4-translated address",
  "6to4": "a 6to4 address",
  teredo: "a Teredo address",
  ipv4Mapped: "an IPv4-mapped address"
}

/** The range of an address that ipaddr.js calls unicast but that is outside IPv6's global unicast block. */
const NOT_GLOBAL_UNICAST = "reserved"

const describe = (address: string, range: string): string => {
  if (METADATA_ADDRESSES.has(address)) return "a cloud metadata address"
  return RANGE_DESCRIPTIONS[range] ?? `a non-public address (${range})`
}

/**
 * Classifies an IP address (IPv6 with or without brackets); `undefined` when `address` is not an
 * IP address in its standard text form.
 */
export const classifyAddress = (address: string): AddressClass | undefined => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  if (isIP(bare) === 0) return undefined
  let parsed = ipaddr.parse(bare)
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  }
  const text = parsed.toString()
  let range: string = parsed.range()
  if (range === "unicast" && parsed.kind() === "ipv6" && !parsed.match(IPV6_GLOBAL_UNICAST)) {
    range = NOT_GLOBAL_UNICAST
  }
  const isPublic = range === "unicast"
  return { address: text, range, isPublic, description: isPublic ? "a public address" : describe(text, range) }
}

/**
 * Why webhooks may not go to `address`, or `undefined` when they may. `verb` says how the URL got
 * there: "points at" for a literal address, "resolves to" for a resolved name.
 */
export const addressRefusal = (address: string, verb: "points at" | "resolves to"): string | undefined => {
  const judged = classifyAddress(address)
  if (judged === undefined) return `${verb} ${address}, which is not an IP address`
  if (judged.isPublic) return undefined
  const shown = judged.address === address.replace(/^\[|\]$/g, "") ? judged.address : `${address} (${judged.address})`
  return `${verb} ${shown}, ${judged.description}; ${ALLOW_PRIVATE_HINT}`
}

/**
 * Why webhooks may not go to a host that resolved to `addresses`, or `undefined` when they may:
 * every address must be allowed, and there must be at least one.
 */
export const resolvedRefusal = (hostname: string, addresses: ReadonlyArray<string>): string | undefined => {
  if (addresses.length === 0) return `host ${hostname} does not resolve`
  for (const address of addresses) {
    const refusal = addressRefusal(address, "resolves to")
    if (refusal !== undefined) return `host ${hostname} ${refusal}`
  }
  return undefined
}

const METADATA_NAMES: ReadonlySet<string> = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.azure.internal",
  "instance-data",
  "instance-data.ec2.internal"
])

/** Suffixes of names that only mean something on a private network. */
const PRIVATE_SUFFIXES: ReadonlyArray<string> = [".internal", ".local", ".lan", ".home.arpa", ".intranet", ".corp"]

/**
 * Why a hostname may not be called by its name alone, or `undefined`. Loopback and metadata names,
 * private-network suffixes, and single-label names (`redis`, `metadata`: they only resolve through
 * a private network's search domains) are refused.
 */
export const hostnameRefusal = (hostname: string): string | undefined => {
  const name = hostname.toLowerCase().replace(/\.+$/, "")
  const refused = (description: string) => `host ${hostname} is ${description}; ${ALLOW_PRIVATE_HINT}`
  if (name === "localhost" || name.endsWith(".localhost")) return refused("a loopback name")
  if (METADATA_NAMES.has(name)) return refused("a cloud metadata name")
  if (PRIVATE_SUFFIXES.some((suffix) => name.endsWith(suffix))) return refused("a private-network name")
  if (!name.includes(".")) return refused("a single-label name, which only resolves on a private network")
  return undefined
}

/**
 * Reads `url` as a webhook target, judging everything that needs no DNS: the scheme (http or https,
 * always), and, unless `allowPrivateTargets`, a literal address or the name itself. A name that
 * passes must still have every address it resolves to judged by {@link resolvedRefusal}.
 * The failure is a one-line reason.
 */
export const inspectTarget = (url: string, allowPrivateTargets: boolean): Either.Either<WebhookTarget, string> => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return Either.left("must be an absolute URL such as https://example.com/webhooks")
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return Either.left("must use http or https")
  // The WHATWG parser already turned decimal, octal and hex IPv4 forms (2130706433, 0x7f.1) into
  // dotted quads, and keeps IPv6 in brackets.
  const host = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname
  if (host === "") return Either.left("must name a host")
  if (isIP(host) !== 0) {
    const refusal = allowPrivateTargets ? undefined : addressRefusal(host, "points at")
    return refusal === undefined ? Either.right({ _tag: "Address", url: parsed, address: host }) : Either.left(refusal)
  }
  const refusal = allowPrivateTargets ? undefined : hostnameRefusal(host)
  return refusal === undefined ? Either.right({ _tag: "Hostname", url: parsed, hostname: host }) : Either.left(refusal)
}
