/**
 * The DomainVerifier contract against Resend's domains adapter, talking to a local server that
 * speaks Resend's domains API (the test plays the DNS side), and against the in-process verifier.
 */
import { describe } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { InProcessDomainVerifierLive } from "../../adapters/in-process/index.js"
import { makeResendDomainVerifier } from "../../adapters/resend/index.js"
import { domainVerifierContract } from "../contract/domain-verifier-contract.js"
import { startResendApi } from "../support/resend-api.js"

describe("Resend domain verifier against a Resend stand-in", () => {
  domainVerifierContract({
    checkedStatus: "pending",
    names: "checked",
    removed: "forgotten",
    failures: "scripted",
    start: Effect.map(
      Effect.acquireRelease(Effect.promise(() => startResendApi()), (api) => Effect.promise(() => api.close())),
      (api) => ({
        layer: makeResendDomainVerifier({ apiKey: Redacted.make(api.apiKey), baseUrl: api.url, attemptTimeout: "2 seconds" }),
        provider: {
          recordsFound: (name) => api.setDomainStatus(name, "verified"),
          failNext: (failure) =>
            api.script(
              failure._tag === "Failing"
                ? { status: 500, name: "internal_server_error", message: "An unexpected error occurred." }
                : {
                  status: 429,
                  name: "rate_limit_exceeded",
                  message: "Too many requests.",
                  retryAfterSeconds: failure.retryAfterSeconds
                }
            )
        }
      })
    )
  })
})

describe("in-process domain verifier", () => {
  domainVerifierContract({
    checkedStatus: "verified",
    names: "taken as given",
    removed: "still answers",
    failures: "none",
    start: Effect.succeed({ layer: InProcessDomainVerifierLive, provider: undefined })
  })
})
