import type { Subscriber, SubscriberStatus } from "@roster/domain"

/** Where a subscriber manages their preferences, from a preference token. */
export const preferencesUrl = (publicBaseUrl: string, token: string): string =>
  `${publicBaseUrl.replace(/\/+$/, "")}/preference-center?token=${encodeURIComponent(token)}`

/** The one-click unsubscribe URL (RFC 8058) of a preference token. */
export const unsubscribeUrl = (publicBaseUrl: string, token: string): string =>
  `${publicBaseUrl.replace(/\/+$/, "")}/unsubscribe?token=${encodeURIComponent(token)}`

/** The subscriber as templates see it. */
export interface TemplateSubscriber {
  readonly email: string
  readonly first_name: string | null
  readonly last_name: string | null
  readonly status: SubscriberStatus
  readonly metadata: Readonly<Record<string, unknown>>
  /** The names of the subscriber's tags. */
  readonly tags: ReadonlyArray<string>
}

export const templateSubscriber = (subscriber: Subscriber, tagNames: ReadonlyArray<string>): TemplateSubscriber => ({
  email: subscriber.email,
  first_name: subscriber.firstName,
  last_name: subscriber.lastName,
  status: subscriber.status,
  metadata: subscriber.metadata,
  tags: tagNames
})

/** Who a preview without a subscriber renders for. */
export const sampleSubscriber: TemplateSubscriber = {
  email: "jane@example.com",
  first_name: "Jane",
  last_name: "Doe",
  status: "active",
  metadata: {},
  tags: []
}

export interface TemplateScopeParts {
  readonly subscriber: TemplateSubscriber
  readonly organizationName: string
  readonly unsubscribeUrl: string
  readonly preferencesUrl: string
  /** What the caller passed along for this email. */
  readonly data: Readonly<Record<string, unknown>>
}

/**
 * The variables a template renders with: `subscriber` (email, first_name, last_name, status,
 * metadata, tags), `organization.name`, `unsubscribe_url`, `preferences_url` and the caller's
 * `data`. Sends and previews build it here alike.
 */
export const templateScope = (parts: TemplateScopeParts): Readonly<Record<string, unknown>> => ({
  subscriber: parts.subscriber,
  organization: { name: parts.organizationName },
  unsubscribe_url: parts.unsubscribeUrl,
  preferences_url: parts.preferencesUrl,
  data: parts.data
})
