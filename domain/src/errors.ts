import { Schema } from "effect"
import { planLimits, PlanTier, tierLifting } from "./plan.js"
import { type PlainReason, reason, ReasonSchema, reasonText } from "./reason.js"

/** Errors of the product's rules. They carry data; the wire forms choose status codes and wording. */

export class InvalidStatusTransition extends Schema.TaggedError<InvalidStatusTransition>()("InvalidStatusTransition", {
  from: Schema.String,
  to: Schema.String,
  actor: Schema.String
}) {
  /** Why, as a catalogued reason. */
  get reason(): PlainReason {
    return reason("statusMove", { from: this.from, to: this.to, actor: this.actor })
  }

  override get message() {
    return reasonText(this.reason)
  }
}

export class EmailAlreadyExists extends Schema.TaggedError<EmailAlreadyExists>()("EmailAlreadyExists", {
  email: Schema.String
}) {
  override get message() {
    return `a subscriber with email ${this.email} already exists`
  }
}

export class TagAlreadyExists extends Schema.TaggedError<TagAlreadyExists>()("TagAlreadyExists", {
  field: Schema.Literal("name", "slug"),
  value: Schema.String
}) {
  override get message() {
    return `a tag with ${this.field} '${this.value}' already exists`
  }
}

export class OrganizationSlugTaken extends Schema.TaggedError<OrganizationSlugTaken>()("OrganizationSlugTaken", {
  slug: Schema.String
}) {
  override get message() {
    return `an organization with slug '${this.slug}' already exists`
  }
}

export const ResourceKind = Schema.Literal(
  "subscriber",
  "tag",
  "organization",
  "api_key",
  "user",
  "membership",
  "webhook",
  "webhook_delivery",
  "template",
  "message",
  "note",
  "campaign",
  "trigger",
  "import",
  "form",
  "segment",
  "sequence",
  "enrollment"
)
export type ResourceKind = typeof ResourceKind.Type

export class ResourceNotFound extends Schema.TaggedError<ResourceNotFound>()("ResourceNotFound", {
  resource: ResourceKind,
  id: Schema.String
}) {
  override get message() {
    return this.resource === "membership"
      ? `user ${this.id} is not a member of the organization`
      : `no ${this.resource.replace("_", " ")} ${this.id}`
  }
}

/** The resource exists but belongs to another organization; nothing else of it is told. */
export class ResourceOfAnotherOrganization
  extends Schema.TaggedError<ResourceOfAnotherOrganization>()("ResourceOfAnotherOrganization", {
    resource: ResourceKind,
    id: Schema.String
  })
{
  override get message() {
    return `${this.resource.replace("_", " ")} ${this.id} belongs to another organization`
  }
}

export class PlanLimitExceeded extends Schema.TaggedError<PlanLimitExceeded>()("PlanLimitExceeded", {
  limit: Schema.Literal("subscribers", "emails_per_month"),
  tier: Schema.String,
  max: Schema.Number
}) {
  /** The plan that would lift the limit, if one does. */
  get upgradeTo(): PlanTier | undefined {
    return Schema.is(PlanTier)(this.tier) ? tierLifting(this.limit, this.tier) : undefined
  }

  override get message() {
    const what = this.limit.replaceAll("_", " ")
    const upgrade = this.upgradeTo
    if (upgrade === undefined) return `the ${this.tier} plan allows ${this.max} ${what}`
    const max = this.limit === "subscribers" ? planLimits[upgrade].maxSubscribers : planLimits[upgrade].maxEmailsPerMonth
    return `the ${this.tier} plan allows ${this.max} ${what}; the ${upgrade} plan allows ` +
      `${max === null ? "unlimited" : max} ${what}: upgrade to ${upgrade} to add more`
  }
}

/**
 * A change would take an organization past the tags it may hold, or a subscriber past the tags
 * they may carry (see limits.ts). What is already held stays; only growth is refused.
 */
export class TagLimitReached extends Schema.TaggedError<TagLimitReached>()("TagLimitReached", {
  limit: Schema.Literal("tags_per_organization", "tags_per_subscriber"),
  max: Schema.Number,
  /** Where the request asked for the growth: `name`, `tags`, `add`, `tag_ids`. */
  field: Schema.String
}) {
  /** What is wrong, without the field. */
  get problem() {
    return this.limit === "tags_per_organization"
      ? `an organization may hold at most ${this.max} tags (tags_per_organization), and this one holds that many; ` +
        "delete tags it no longer needs to make new ones"
      : `a subscriber may carry at most ${this.max} tags (tags_per_subscriber), and this change would take them past it; ` +
        "detach tags they no longer need first"
  }

  override get message() {
    return `${this.field}: ${this.problem}`
  }
}

/** A campaign asked to do what its state does not allow: sending a campaign that is sending, say. */
export class CampaignStateConflict extends Schema.TaggedError<CampaignStateConflict>()("CampaignStateConflict", {
  id: Schema.String,
  status: Schema.String,
  action: Schema.String,
  allowed: Schema.Array(Schema.String)
}) {
  override get message() {
    return `campaign ${this.id} is ${this.status}; ${this.action} needs a campaign that is ${this.allowed.join(" or ")}`
  }
}

/** A sequence asked to do what its state does not allow: enrolling into a draft, say. */
export class SequenceStateConflict extends Schema.TaggedError<SequenceStateConflict>()("SequenceStateConflict", {
  id: Schema.String,
  status: Schema.String,
  action: Schema.String
}) {
  override get message() {
    return `sequence ${this.id} is ${this.status}; ${this.action} needs an active sequence`
  }
}

/**
 * A segment that campaigns not started yet, triggers, or sequences' entries still read: deleting it would leave them
 * without an audience or a condition.
 */
export class SegmentInUse extends Schema.TaggedError<SegmentInUse>()("SegmentInUse", {
  id: Schema.String,
  campaignIds: Schema.Array(Schema.String),
  triggerIds: Schema.Array(Schema.String),
  /** Sequences whose entry is the segment. */
  sequenceIds: Schema.Array(Schema.String)
}) {
  override get message() {
    const uses = [
      ...(this.campaignIds.length === 0 ? [] : [`the audience of campaign ${this.campaignIds.join(", ")}`]),
      ...(this.triggerIds.length === 0 ? [] : [`the condition of trigger ${this.triggerIds.join(", ")}`]),
      ...(this.sequenceIds.length === 0 ? [] : [`the entry of sequence ${this.sequenceIds.join(", ")}`])
    ]
    return `segment ${this.id} is ${uses.join(" and ")}; give them another audience or condition, or delete them, first`
  }
}

/**
 * Input that is well-formed but breaks a rule a schema cannot see (a tag id of no tag, say): the
 * field it concerns and the catalogued reason (reason.ts), which each wire form and the dashboard
 * word in their own language.
 */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  field: Schema.String,
  reason: ReasonSchema
}) {
  /** What is wrong, in English, without the field. */
  get problem(): string {
    return reasonText(this.reason)
  }

  override get message() {
    return `${this.field}: ${this.problem}`
  }
}

/** A magic link past its 15 minutes. */
export class MagicLinkExpired extends Schema.TaggedError<MagicLinkExpired>()("MagicLinkExpired", {}) {
  override get message() {
    return "this sign-in link has expired; ask for a new one"
  }
}

/** A magic link that was used already. */
export class MagicLinkAlreadyUsed extends Schema.TaggedError<MagicLinkAlreadyUsed>()("MagicLinkAlreadyUsed", {}) {
  override get message() {
    return "this sign-in link has been used already; ask for a new one"
  }
}

/** A token that names nothing, was tampered with, or is of another kind. */
export class InvalidToken extends Schema.TaggedError<InvalidToken>()("InvalidToken", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/** A feature the organization's plan does not include: a custom sending domain below the top plan. */
export class PlanFeatureUnavailable extends Schema.TaggedError<PlanFeatureUnavailable>()("PlanFeatureUnavailable", {
  feature: Schema.String,
  tier: Schema.String,
  requiredTier: Schema.String
}) {
  override get message() {
    return `${this.feature} needs the ${this.requiredTier} plan; this organization is on the ${this.tier} plan`
  }
}

/** A sending domain another organization has added already. */
export class SendingDomainTaken extends Schema.TaggedError<SendingDomainTaken>()("SendingDomainTaken", {
  domain: Schema.String
}) {
  override get message() {
    return `the domain ${this.domain} is already used by another organization`
  }
}

/** An organization has one custom sending domain at a time. */
export class SendingDomainExists extends Schema.TaggedError<SendingDomainExists>()("SendingDomainExists", {
  domain: Schema.String
}) {
  override get message() {
    return `the organization already has the custom domain ${this.domain}; delete it before adding another`
  }
}

/** The organization has no custom sending domain. */
export class NoSendingDomain extends Schema.TaggedError<NoSendingDomain>()("NoSendingDomain", {}) {
  override get message() {
    return "the organization has no custom sending domain; add one first"
  }
}

/** An uploaded file is larger than the service keeps. */
export class UploadTooLarge extends Schema.TaggedError<UploadTooLarge>()("UploadTooLarge", {
  maxBytes: Schema.Number
}) {
  override get message() {
    return `the file is larger than ${this.maxBytes} bytes, the most an upload may be`
  }
}
