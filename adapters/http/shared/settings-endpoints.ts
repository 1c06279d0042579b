import { HttpApiEndpoint } from "@effect/platform"
import { withoutBody } from "./action-body.js"
import { AddSendingDomainRequest } from "./email-settings-schemas.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"

/** The settings endpoints as every wire form describes them. */

const plan = "Enterprise plan only (402 `limit_exceeded` on the others). Owner only: scope `*`."

export const settingsEndpoints = {
  getEmail: sharedEndpoint({
    endpoint: HttpApiEndpoint.get("getEmail", "/settings/email"),
    summary: "Get the email settings",
    description: "The sender settings and the From header they make. Scope `*`.",
    errors: []
  }),
  updateEmail: endpointDescription({
    summary: "Update the email settings",
    description: "Sets `from_name` (null goes back to the organization's name) and `from_address` (null goes back " +
      "to the service's address); fields left out stay. A `from_address` must be on the organization's verified " +
      "custom domain, or be the service's own address: anything else is 400 `validation_error`. Scope `*`.",
    errors: BODY_ERRORS
  }),
  addDomain: sharedEndpoint({
    endpoint: HttpApiEndpoint.post("addDomain", "/settings/email/domain").setPayload(AddSendingDomainRequest),
    summary: "Add a custom sending domain",
    description: "Registers the domain with the email provider and answers 201 with `status: pending` and the DNS records to " +
      "add at the domain's DNS host (as the provider gives them). The provider looks for them from then on; the worker " +
      "asks it while the domain is pending (a minute after it is added, then less often, at most an hour apart), and " +
      "`GET` asks at once. A domain that is not a host name, or is the service's own, is 400 `validation_error` on " +
      "`domain`; one another organization added, or a second domain, is 409 `conflict`; while the provider cannot be " +
      `reached, 503 \`service_unavailable\` and nothing is kept. ${plan}`,
    errors: ["limit_exceeded", "conflict", ...POST_ERRORS]
  }),
  checkDomain: sharedEndpoint({
    endpoint: HttpApiEndpoint.get("checkDomain", "/settings/email/domain"),
    summary: "Check the custom sending domain",
    description: "Asks the email provider where the domain stands, stores it and answers it: `pending`, `verified` (the " +
      "organization may now set a `from_address` on it) or `failed`. A failed domain is looked for again (fix the " +
      "records first). 404 `not_found` without a domain; 503 `service_unavailable` while the provider cannot be " +
      "reached. Owner only: scope `*`.",
    errors: ["not_found"]
  }),
  getOrganization: sharedEndpoint({
    endpoint: HttpApiEndpoint.get("getOrganization", "/settings/organization"),
    summary: "Get the organization's settings",
    description: "The organization's own time zone (`UTC` until set). Owner only: scope `*`.",
    errors: []
  }),
  updateOrganization: endpointDescription({
    summary: "Update the organization's settings",
    description: "Sets `time_zone`, an IANA time zone (a name that is not one is 400 `validation_error` on " +
      "`time_zone`); a field left out stays. A sequence made from then on without a `time_zone` of its own takes " +
      "this one; sequences made before keep theirs. Owner only: scope `*`.",
    errors: BODY_ERRORS
  }),
  removeDomain: sharedEndpoint({
    endpoint: HttpApiEndpoint.del("removeDomain", "/settings/email/domain")
      .pipe(withoutBody),
    summary: "Remove the custom sending domain",
    description: "Removes the domain at the email provider and here; a `from_address` on it goes back to the service's " +
      "address. While the provider cannot be reached, 503 `service_unavailable` and nothing changes. Owner only: scope `*`.",
    errors: ["not_found", ...BODY_ERRORS]
  })
}
