import { Schema } from "effect"
import { OrganizationId } from "./ids.js"
import { PlanTier, requestsPerMinute } from "./plan.js"
import { Slug } from "./slug.js"
import { isStorableText, UNSTORABLE_TEXT, longerThan } from "./text.js"

export const MAX_ORGANIZATION_NAME_LENGTH = 100

export const OrganizationName = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty"
    if (longerThan(s, MAX_ORGANIZATION_NAME_LENGTH)) return `must be at most ${MAX_ORGANIZATION_NAME_LENGTH} characters`
    if (/\p{Cc}/u.test(s)) return "must not contain control characters"
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return undefined
  }, { identifier: "OrganizationName", examples: ["Acme Newsletters"] })
)

/** The time zone of an organization that has not chosen one. */
export const DEFAULT_TIME_ZONE = "UTC"

export class Organization extends Schema.Class<Organization>("Organization")({
  id: OrganizationId,
  name: Schema.String,
  slug: Slug,
  tier: PlanTier,
  isPlatformAdmin: Schema.Boolean,
  suspendedAt: Schema.NullOr(Schema.DateFromSelf),
  /** Requests per minute on the top tier instead of its plan's; `0` is none, `null` the plan's. */
  customRateLimit: Schema.NullOr(Schema.Number),
  subscriberCount: Schema.Number,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
}) {
  get isSuspended(): boolean {
    return this.suspendedAt !== null
  }

  /** Requests per minute the organization may make; `null` when it has no limit. */
  get requestsPerMinute(): number | null {
    return requestsPerMinute(this.tier, this.customRateLimit)
  }
}
