import {
  ApiKeyRepository,
  type BillingAccountRepository,
  type CampaignRepository,
  type DatabaseHealth,
  type EmailSettingsRepository,
  type EmailUsage,
  type KeysetPosition,
  type MagicLinkRepository,
  MembershipRepository,
  type MessageRepository,
  type NoteRepository,
  OrganizationRepository,
  Outbox,
  type OutgoingMail,
  type SessionRepository,
  SubscriberIntake,
  SubscriberRepository,
  TagRepository,
  type TagAssignments,
  type TemplateRepository,
  type FormRepository,
  type SignUpRepository,
  type ConsentRepository,
  type TriggerRepository,
  type SequenceRepository,
  type UnitOfWork,
  UserRepository,
  type SendingDomainRepository,
  WebhookDeliveryRepository,
  WebhookEndpointRepository,
  type WorkBacklog,
  type SubscriberImportStore,
  ImportJobRepository,
  type SegmentAudience,
  type SegmentRepository
} from "@roster/application"
import {
  ApiKey,
  ApiKeyId,
  DomainEvent,
  EmailAddress,
  EventId,
  type EventType,
  ImportId,
  type ImportJob,
  type Locale,
  MagicLink,
  Membership,
  noImportCounts,
  Organization,
  OrganizationId,
  type TagVisibility,
  type PlanTier,
  type Role,
  type Scope,
  Session,
  TEST_EVENT_TYPE,
  Slug,
  Subscriber,
  SubscriberId,
  type SubscriberStatus,
  Tag,
  TagId,
  User,
  UserId,
  WebhookAttempt,
  type WebhookAttemptStatus,
  WebhookDelivery,
  WebhookDeliveryId,
  type WebhookDeliveryStatus,
  type WebhookDisabledReason,
  WebhookEndpoint,
  WebhookEndpointId,
  type WebhookEndpointStatus
} from "@roster/domain"
import { Effect, type Layer, Schema } from "effect"
import { randomBytes, randomInt, randomUUID } from "node:crypto"

/** Every persistence port; each contract suite runs against a layer that provides them all. */
export type Persistence =
  | SubscriberRepository
  | SubscriberIntake
  | TagRepository
  | TagAssignments
  | OrganizationRepository
  | ApiKeyRepository
  | UserRepository
  | MembershipRepository
  | MagicLinkRepository
  | SessionRepository
  | Outbox
  | WebhookEndpointRepository
  | WebhookDeliveryRepository
  | MessageRepository
  | OutgoingMail
  | EmailUsage
  | TemplateRepository
  | FormRepository
  | SignUpRepository
  | ConsentRepository
  | EmailSettingsRepository
  | NoteRepository
  | CampaignRepository
  | TriggerRepository
  | SequenceRepository
  | UnitOfWork
  | DatabaseHealth
  | SendingDomainRepository
  | BillingAccountRepository
  | WorkBacklog
  | SubscriberImportStore
  | ImportJobRepository
  | SegmentRepository
  | SegmentAudience

export type PersistenceLayer = Layer.Layer<Persistence, unknown>

/** A moment of the test's story, to the millisecond: `instant(3)` is three seconds after the start. */
export const instant = (seconds: number): Date => new Date(Date.UTC(2025, 0, 1) + seconds * 1000)

/**
 * A second in the 1990s of this test alone: rows created from it on come before every row other
 * tests make (they start in 2025), and no other test's rows fall among them.
 */
export const anEarlierEra = (): Date => new Date(Date.UTC(1990, 0, 1) + randomInt(0, 10 * 365 * 24 * 3600) * 1000)

const unique = (): string => randomBytes(6).toString("hex")

export const email = (address: string) => Schema.decodeSync(EmailAddress)(address)

export const anOrganization = (
  fields: {
    readonly tier?: PlanTier
    readonly subscriberCount?: number
    readonly slug?: string
    readonly createdAt?: Date
  } = {}
) =>
  new Organization({
    id: OrganizationId.make(randomUUID()),
    name: "Acme Newsletters",
    slug: Slug.make(fields.slug ?? `acme-${unique()}`),
    tier: fields.tier ?? "free",
    isPlatformAdmin: false,
    suspendedAt: null,
    customRateLimit: null,
    subscriberCount: fields.subscriberCount ?? 0,
    createdAt: fields.createdAt ?? instant(0),
    updatedAt: fields.createdAt ?? instant(0)
  })

/** A new organization of this test alone, so that tests never see each other's rows. */
export const givenOrganization = (fields: Parameters<typeof anOrganization>[0] = {}) =>
  Effect.gen(function*() {
    const organization = anOrganization(fields)
    yield* (yield* OrganizationRepository).insert(organization).pipe(Effect.orDie)
    return organization
  })

export interface SubscriberFields {
  readonly email?: string
  readonly status?: SubscriberStatus
  readonly metadata?: Record<string, unknown>
  readonly firstName?: string | null
  readonly createdAt?: Date
  readonly updatedAt?: Date
}

export const aSubscriber = (organizationId: OrganizationId, fields: SubscriberFields = {}) =>
  new Subscriber({
    id: SubscriberId.make(randomUUID()),
    organizationId,
    email: email(fields.email ?? `reader-${unique()}@example.com`),
    status: fields.status ?? "active",
    metadata: fields.metadata ?? {},
    firstName: fields.firstName ?? null,
    lastName: null,
    createdAt: fields.createdAt ?? instant(0),
    updatedAt: fields.updatedAt ?? fields.createdAt ?? instant(0)
  })

export const givenSubscriber = (organizationId: OrganizationId, fields: SubscriberFields = {}) =>
  Effect.gen(function*() {
    const subscriber = aSubscriber(organizationId, fields)
    yield* (yield* SubscriberRepository).insert(subscriber).pipe(Effect.orDie)
    return subscriber
  })

export interface TagFields {
  readonly name?: string
  readonly slug?: string
  readonly displayName?: string | null
  readonly category?: string | null
  readonly visibility?: TagVisibility
  readonly createdAt?: Date
}

export const aTag = (organizationId: OrganizationId, fields: TagFields = {}) => {
  const name = fields.name ?? `Tag ${unique()}`
  return new Tag({
    id: TagId.make(randomUUID()),
    organizationId,
    name,
    slug: Slug.make(fields.slug ?? `tag-${unique()}`),
    description: null,
    displayName: fields.displayName ?? null,
    category: fields.category ?? null,
    visibility: fields.visibility ?? "public",
    metadata: {},
    subscriberCount: 0,
    createdAt: fields.createdAt ?? instant(0),
    updatedAt: fields.createdAt ?? instant(0)
  })
}

export const givenTag = (organizationId: OrganizationId, fields: TagFields = {}) =>
  Effect.gen(function*() {
    const tag = aTag(organizationId, fields)
    yield* (yield* TagRepository).insert(tag, null).pipe(Effect.orDie)
    return tag
  })

export const anApiKey = (
  organizationId: OrganizationId,
  fields: { readonly scopes?: ReadonlyArray<Scope>; readonly createdAt?: Date; readonly revokedAt?: Date | null } = {}
) =>
  new ApiKey({
    id: ApiKeyId.make(randomUUID()),
    organizationId,
    name: "Production import",
    environment: "test",
    keyHash: randomBytes(32).toString("hex"),
    prefix: "svc_test_AbCd",
    lastFour: "wxyz",
    scopes: [...(fields.scopes ?? ["subscribers:read"])],
    createdAt: fields.createdAt ?? instant(0),
    lastUsedAt: null,
    revokedAt: fields.revokedAt ?? null
  })

export const givenApiKey = (organizationId: OrganizationId, fields: Parameters<typeof anApiKey>[1] = {}) =>
  Effect.gen(function*() {
    const apiKey = anApiKey(organizationId, fields)
    yield* (yield* ApiKeyRepository).insert(apiKey)
    return apiKey
  })

export const aUser = (fields: { readonly email?: string; readonly createdAt?: Date } = {}) =>
  new User({
    id: UserId.make(randomUUID()),
    email: email(fields.email ?? `user-${unique()}@example.com`),
    createdAt: fields.createdAt ?? instant(0),
    lastSignedInAt: fields.createdAt ?? instant(0)
  })

/** A user of this test alone, stored by a first sign-in. */
export const givenUser = (fields: Parameters<typeof aUser>[0] = {}) =>
  Effect.gen(function*() {
    const user = aUser(fields)
    return yield* (yield* UserRepository).signIn(user, user.createdAt)
  })

export const givenMembership = (
  organizationId: OrganizationId,
  userId: UserId,
  fields: { readonly role?: Role; readonly createdAt?: Date } = {}
) =>
  Effect.gen(function*() {
    const membership = new Membership({
      organizationId,
      userId,
      role: fields.role ?? "member",
      createdAt: fields.createdAt ?? instant(0)
    })
    yield* (yield* MembershipRepository).upsert(membership)
    return membership
  })

/** A sign-in link asked for at `createdAt`, good for 15 minutes. */
export const aMagicLink = (fields: { readonly email?: string; readonly locale?: Locale; readonly createdAt?: Date } = {}) => {
  const createdAt = fields.createdAt ?? instant(0)
  return new MagicLink({
    tokenHash: randomBytes(32).toString("hex"),
    email: email(fields.email ?? `user-${unique()}@example.com`),
    locale: fields.locale ?? "en",
    createdAt,
    expiresAt: new Date(createdAt.getTime() + 15 * 60_000),
    consumedAt: null
  })
}

export const aSession = (
  userId: UserId,
  fields: { readonly createdAt?: Date; readonly expiresAt?: Date; readonly revokedAt?: Date | null } = {}
) =>
  new Session({
    id: randomUUID(),
    userId,
    createdAt: fields.createdAt ?? instant(0),
    expiresAt: fields.expiresAt ?? instant(7 * 24 * 3600),
    revokedAt: fields.revokedAt ?? null
  })

export const anEvent = (
  organizationId: OrganizationId,
  type: EventType = "subscriber.created",
  data: Record<string, unknown> = {}
) =>
  new DomainEvent({ id: EventId.make(randomUUID()), organizationId, type, occurredAt: instant(0), data })

/**
 * Pages through a list that runs oldest first, `pageSize` rows a page, each page starting after the
 * last row of the one before (its creation as an ISO string, as a cursor holds it), until the list
 * ends or a page reaches past `until`. Every row seen, in order.
 */
export const walkOldestFirst = <A extends { readonly id: string; readonly createdAt: Date }, R>(
  list: (query: { readonly after?: KeysetPosition | undefined; readonly limit: number }) => Effect.Effect<ReadonlyArray<A>, never, R>,
  until: Date,
  pageSize: number
) =>
  Effect.gen(function*() {
    const seen: Array<A> = []
    let after: KeysetPosition | undefined
    for (;;) {
      const page = yield* list({ after, limit: pageSize })
      seen.push(...page)
      const last = page[page.length - 1]
      if (page.length < pageSize || last === undefined || last.createdAt.getTime() > until.getTime()) return seen
      after = { value: last.createdAt.toISOString(), id: last.id }
    }
  })

/** Orders text as PostgreSQL's "C" collation does: by code point (UTF-8 bytes). */
export const compareCodePoints = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

/** The ids that a keyset walk must see, in order: by sort value, ties by id, in the given direction. */
export const expectedOrder = <A extends { readonly id: string }>(
  rows: ReadonlyArray<A>,
  value: (row: A) => string | number,
  order: "asc" | "desc"
): ReadonlyArray<string> =>
  [...rows]
    .sort((a, b) => {
      const [x, y] = [value(a), value(b)]
      const byValue = typeof x === "number" && typeof y === "number" ? x - y : compareCodePoints(String(x), String(y))
      const result = byValue || compareCodePoints(a.id, b.id)
      return order === "asc" ? result : -result
    })
    .map((row) => row.id)

/** One key of an expected order over several fields; a null comes after every value ascending. */
export interface ExpectedKey<A> {
  readonly value: (row: A) => string | number | null
  readonly order: "asc" | "desc"
}

/**
 * The ids that a numbered page walk must see, in order: by each key in turn, then by id in the
 * direction of the last key (ascending when there is none).
 */
export const expectedOrderByKeys = <A extends { readonly id: string }>(
  rows: ReadonlyArray<A>,
  keys: ReadonlyArray<ExpectedKey<A>>
): ReadonlyArray<string> => {
  const compare = (x: string | number | null, y: string | number | null): number => {
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1
    return typeof x === "number" && typeof y === "number" ? x - y : compareCodePoints(String(x), String(y))
  }
  const lastOrder = keys[keys.length - 1]?.order ?? "asc"
  return [...rows]
    .sort((a, b) => {
      for (const key of keys) {
        const byKey = compare(key.value(a), key.value(b))
        if (byKey !== 0) return key.order === "asc" ? byKey : -byKey
      }
      const byId = compareCodePoints(a.id, b.id)
      return lastOrder === "asc" ? byId : -byId
    })
    .map((row) => row.id)
}

/**
 * Walks a numbered list page by page, `perPage` rows a page, until a page comes back short. Every
 * row seen, in order; each page also checked to hold at most `perPage` rows.
 */
export const walkNumberedPages = <A, R>(
  listPage: (window: { readonly offset: number; readonly limit: number }) => Effect.Effect<ReadonlyArray<A>, never, R>,
  perPage: number
) =>
  Effect.gen(function*() {
    const seen: Array<A> = []
    for (let page = 1;; page++) {
      const rows = yield* listPage({ offset: (page - 1) * perPage, limit: perPage })
      if (rows.length > perPage) throw new Error(`page ${page} holds ${rows.length} rows, more than ${perPage}`)
      seen.push(...rows)
      if (rows.length < perPage) return seen
    }
  })

/**
 * A time-ordered id (UUIDv7) made at `at`, as the service makes delivery ids: ids made at later
 * milliseconds sort after.
 */
export const aTimeOrderedId = (at: Date): string => {
  const random = randomBytes(10).toString("hex")
  const variant = (8 | (parseInt(random[3]!, 16) & 3)).toString(16)
  const hex = at.getTime().toString(16).padStart(12, "0") + "7" + random.slice(0, 3) + variant + random.slice(4, 19)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

export interface EndpointFields {
  readonly events?: ReadonlyArray<EventType>
  readonly status?: WebhookEndpointStatus
  readonly disabledReason?: WebhookDisabledReason | null
  readonly failingSince?: Date | null
  readonly createdAt?: Date
}

export const anEndpoint = (organizationId: OrganizationId, fields: EndpointFields = {}) =>
  new WebhookEndpoint({
    id: WebhookEndpointId.make(randomUUID()),
    organizationId,
    url: `https://hooks.example.com/${unique()}`,
    events: fields.events ?? ["subscriber.created", "tag.subscribed"],
    description: "Syncs the CRM",
    status: fields.status ?? "active",
    disabledReason: fields.disabledReason ?? (fields.status === "disabled" ? "by_user" : null),
    signingSecret: `whsec_${randomBytes(32).toString("base64")}`,
    previousSigningSecret: null,
    previousSigningSecretExpiresAt: null,
    failingSince: fields.failingSince ?? null,
    createdAt: fields.createdAt ?? instant(0),
    updatedAt: fields.createdAt ?? instant(0)
  })

export const givenEndpoint = (organizationId: OrganizationId, fields: EndpointFields = {}) =>
  Effect.gen(function*() {
    const endpoint = anEndpoint(organizationId, fields)
    yield* (yield* WebhookEndpointRepository).insert(endpoint, null)
    return endpoint
  })

export interface DeliveryFields {
  readonly status?: WebhookDeliveryStatus
  readonly attemptCount?: number
  /** Left out: due at its creation (unless it is done). */
  readonly nextAttemptAt?: Date | null
  readonly createdAt?: Date
}

/** A delivery of `event` to `endpoint`, with a time-ordered id made at its creation. */
export const aDelivery = (endpoint: WebhookEndpoint, event: DomainEvent, fields: DeliveryFields = {}) => {
  const createdAt = fields.createdAt ?? instant(0)
  const status = fields.status ?? "pending"
  return new WebhookDelivery({
    id: WebhookDeliveryId.make(aTimeOrderedId(createdAt)),
    organizationId: endpoint.organizationId,
    endpointId: endpoint.id,
    eventId: event.id,
    eventType: event.type,
    status,
    attemptCount: fields.attemptCount ?? 0,
    nextAttemptAt: fields.nextAttemptAt === undefined ? (status === "pending" ? createdAt : null) : fields.nextAttemptAt,
    createdAt,
    updatedAt: createdAt
  })
}

/** A test event's delivery to `endpoint`, sent once at `at` with `status`, its message `testBody`. */
export const aTestDelivery = (
  endpoint: WebhookEndpoint,
  fields: { readonly at: Date; readonly status: "succeeded" | "failed"; readonly testBody: string }
) =>
  new WebhookDelivery({
    id: WebhookDeliveryId.make(aTimeOrderedId(fields.at)),
    organizationId: endpoint.organizationId,
    endpointId: endpoint.id,
    eventId: EventId.make(randomUUID()),
    eventType: TEST_EVENT_TYPE,
    status: fields.status,
    attemptCount: 1,
    nextAttemptAt: null,
    createdAt: fields.at,
    updatedAt: fields.at,
    test: true,
    testBody: fields.testBody
  })

/** An event recorded in the outbox and its delivery to `endpoint`, stored. */
export const givenDelivery = (endpoint: WebhookEndpoint, fields: DeliveryFields = {}) =>
  Effect.gen(function*() {
    const event = anEvent(endpoint.organizationId, "subscriber.created", { subscriber: { id: randomUUID() } })
    yield* (yield* Outbox).record([event])
    const delivery = aDelivery(endpoint, event, fields)
    yield* (yield* WebhookDeliveryRepository).insertMany([delivery])
    return delivery
  })

/**
 * A stretch of time of this test alone, in the 1970s and 1980s, for deliveries to come due in:
 * claiming is not limited to an organization, and nothing that other tests leave behind is due
 * this early (they make deliveries due from 2025 on). A test that claims deletes its
 * organizations afterwards (see {@link deletingAfterwards}), so that nothing of it is left to
 * claim either. `era(3)` is three seconds into it.
 */
export const anEraOfItsOwn = (): ((seconds: number) => Date) => {
  const start = Date.UTC(1970, 0, 1) + randomInt(0, 19 * 365 * 24 * 3600) * 1000
  return (seconds) => new Date(start + seconds * 1000)
}

/** Runs `effect`, then deletes the organizations, whatever came of it. */
export const deletingAfterwards = (organizationIds: ReadonlyArray<OrganizationId>) =>
<A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.ensuring(
    effect,
    Effect.flatMap(OrganizationRepository, (organizations) =>
      Effect.forEach(organizationIds, (id) => organizations.delete(id), { discard: true }))
  )

export interface AttemptFields {
  readonly status: WebhookAttemptStatus
  readonly at: Date
  readonly durationMs?: number
}

/** An attempt as the worker judges it: a failure answered 503 and is tried again a minute later. */
export const anAttempt = (number: number, fields: AttemptFields) =>
  new WebhookAttempt({
    number,
    attemptedAt: fields.at,
    status: fields.status,
    responseStatus: fields.status === "succeeded" ? 200 : 503,
    responseExcerpt: fields.status === "succeeded" ? "{\"ok\":true}" : "Service <Unavailable> – später",
    durationMs: fields.durationMs ?? 40,
    error: fields.status === "succeeded" ? null : "answered 503",
    nextAttemptAt: fields.status === "succeeded" ? null : new Date(fields.at.getTime() + 60_000)
  })

/**
 * Sends `delivery` as a worker would, once per attempt: leases it at its due time (which must be
 * in the test's era, and every delivery of the test due before it done or due later), records the
 * attempt, and leaves it due again at the same time until the last, after which it is `end`.
 * The delivery as it ends.
 */
export const givenAttempts = (
  delivery: WebhookDelivery,
  attempts: ReadonlyArray<AttemptFields>,
  end: { readonly status: WebhookDeliveryStatus; readonly nextAttemptAt: Date | null }
) =>
  Effect.gen(function*() {
    const deliveries = yield* WebhookDeliveryRepository
    const due = delivery.nextAttemptAt
    if (due === null) throw new Error("a delivery that is not due cannot be attempted")
    const made: Array<WebhookAttempt> = []
    for (const [index, fields] of attempts.entries()) {
      const leaseToken = randomUUID()
      const leased = yield* deliveries.claimDue({
        now: due,
        limit: 1,
        leaseToken,
        leasedUntil: new Date(due.getTime() + 60_000)
      })
      if (leased[0]?.delivery.id !== delivery.id) throw new Error("another delivery came due before this one")
      const attempt = anAttempt(delivery.attemptCount + index + 1, fields)
      const last = index === attempts.length - 1
      const recorded = yield* deliveries.recordAttempt({
        deliveryId: delivery.id,
        leaseToken,
        attempt,
        status: last ? end.status : "pending",
        nextAttemptAt: last ? end.nextAttemptAt : due
      })
      if (!recorded) throw new Error("the lease did not hold")
      made.push(attempt)
    }
    const last = made[made.length - 1]
    return {
      delivery: last === undefined ? delivery : new WebhookDelivery({
        ...delivery,
        status: end.status,
        attemptCount: last.number,
        nextAttemptAt: end.nextAttemptAt,
        updatedAt: last.attemptedAt
      }),
      attempts: made
    }
  })

/** An import sent over HTTP, queued unless told. */
export const anImportJob = (organizationId: OrganizationId, fields: Partial<ImportJob> = {}): ImportJob => ({
  id: ImportId.make(randomUUID()),
  organizationId,
  status: "queued",
  fileName: "subscribers.csv",
  byteSize: 0,
  options: { resubscribe: false, createTags: true, encoding: "utf-8" },
  counts: noImportCounts,
  recordsDone: 0,
  problems: [],
  problemCount: 0,
  ignoredColumns: [],
  failure: null,
  createdAt: instant(0),
  startedAt: null,
  finishedAt: null,
  updatedAt: instant(0),
  ...fields
})

export const givenImportJob = (organizationId: OrganizationId, fields: Partial<ImportJob> = {}) =>
  Effect.gen(function*() {
    const job = anImportJob(organizationId, fields)
    yield* (yield* ImportJobRepository).insert(job)
    return job
  })
