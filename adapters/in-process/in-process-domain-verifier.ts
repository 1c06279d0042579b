import { DomainNotAtProvider, DomainVerifier } from "@roster/application"
import { DnsRecord } from "@roster/domain"
import { Effect, Layer } from "effect"

/** The ids this verifier gives its domains: the domain's name, so that nothing needs remembering. */
const PREFIX = "local:"

const recordsOf = (name: string, status: string): ReadonlyArray<DnsRecord> => [
  new DnsRecord({ record: "SPF", name: "send", type: "MX", value: `feedback.${name}`, ttl: "Auto", priority: 10, status }),
  new DnsRecord({ record: "SPF", name: "send", type: "TXT", value: "\"v=spf1 -all\"", ttl: "Auto", priority: null, status }),
  new DnsRecord({
    record: "DKIM",
    name: "roster._domainkey",
    type: "TXT",
    value: "p=not-a-real-key-the-console-mailer-signs-nothing",
    ttl: "Auto",
    priority: null,
    status
  })
]

/**
 * Domains without an email provider (the console mailer prints email rather than sending it):
 * a domain is registered with placeholder DNS records, `pending` as every new domain is, and
 * verified the first time it is checked, since nothing is sent from it. So the whole way from
 * adding a domain to sending from it can be tried on one machine. It keeps nothing: a domain's
 * id holds its name, and a domain of another provider's id is unknown here.
 */
export const InProcessDomainVerifierLive = Layer.succeed(
  DomainVerifier,
  DomainVerifier.of({
    register: (name) =>
      Effect.succeed({ id: `${PREFIX}${name}`, name, status: "not_started", records: recordsOf(name, "not_started") }),
    status: (id) =>
      id.startsWith(PREFIX)
        ? Effect.succeed({ id, name: id.slice(PREFIX.length), status: "verified", records: recordsOf(id.slice(PREFIX.length), "verified") })
        : Effect.fail(new DomainNotAtProvider({ id })),
    verify: (id) => id.startsWith(PREFIX) ? Effect.void : Effect.fail(new DomainNotAtProvider({ id })),
    remove: () => Effect.void
  })
)
