import {
  ApiKeyRepository,
  type DatabaseHealth,
  type KeysetPosition,
  type MagicLinkRepository,
  MembershipRepository,
  OrganizationRepository,
  type Outbox,
  type SessionRepository,
  SubscriberRepository,
  TagRepository,
  type TagAssignments,
  type UnitOfWork,
  UserRepository
} from "@roster/application"
import {
  ApiKey,
  ApiKeyId,
  DomainEvent,
  EmailAddress,
  EventId,
  type EventType,
  type Locale,
  MagicLink,
  Membership,
  Organization,
  OrganizationId,
  type PlanTier,
  type Role,
  type Scope,
  Session,
  Slug,
  Subscriber,
  SubscriberId,
  type SubscriberStatus,
  Tag,
  TagId,
  User,
  UserId
} from "@roster/domain"
import { Effect, type Layer, Schema } from "effect"
import { randomBytes, randomInt, randomUUID } from "node:crypto"

/** Every persistence port; each contract suite runs against a layer that provides them all. */
export type Persistence =
  | SubscriberRepository
  | TagRepository
  | TagAssignments
  | OrganizationRepository
  | ApiKeyRepository
  | UserRepository
  | MembershipRepository
  | MagicLinkRepository
  | SessionRepository
  | Outbox
  | UnitOfWork
  | DatabaseHealth

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
    metadata: {},
    subscriberCount: 0,
    createdAt: fields.createdAt ?? instant(0),
    updatedAt: fields.createdAt ?? instant(0)
  })
}

export const givenTag = (organizationId: OrganizationId, fields: TagFields = {}) =>
  Effect.gen(function*() {
    const tag = aTag(organizationId, fields)
    yield* (yield* TagRepository).insert(tag).pipe(Effect.orDie)
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
