import type { CampaignSendout } from "@roster/application"
import type {
  ApiKey,
  BillingAccount,
  Campaign,
  EmailTrigger,
  FiringStatus,
  ImportJob,
  DomainEvent,
  EmailSettings,
  EmailTemplate,
  Consent,
  Enrollment,
  Form,
  PendingSignUp,
  MagicLink,
  Membership,
  Message,
  MessageEvent,
  Note,
  Organization,
  Segment,
  Sequence,
  SequenceStep,
  SendingDomain,
  Session,
  Subscriber,
  Tag,
  User,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint
} from "@roster/domain"
import { Context, Effect, FiberRef, Layer, Option } from "effect"

/** Every table of the in-memory database. Entities are immutable; maps are replaced row by row. */
export interface Tables {
  readonly organizations: Map<string, Organization>
  readonly subscribers: Map<string, Subscriber>
  /** subscriber id -> the version its preference tokens are issued under, once moved from 0 */
  readonly preferenceTokenVersions: Map<string, number>
  /** Each organization's own time zone, once set. */
  readonly organizationTimeZones: Map<string, string>
  /** subscriber id -> when their erasure was asked for */
  readonly erasureRequests: Map<string, Date>
  readonly tags: Map<string, Tag>
  /** subscriber id -> tag id -> attached at */
  readonly assignments: Map<string, Map<string, Date>>
  readonly apiKeys: Map<string, ApiKey>
  readonly users: Map<string, User>
  /** {@link membershipKey} -> membership */
  readonly memberships: Map<string, Membership>
  /** token hash -> link */
  readonly magicLinks: Map<string, MagicLink>
  readonly sessions: Map<string, Session>
  readonly events: Array<DomainEvent>
  /** event id -> when it was dispatched; an event not here is undispatched */
  readonly dispatchedEvents: Map<string, Date>
  readonly webhookEndpoints: Map<string, WebhookEndpoint>
  readonly webhookDeliveries: Map<string, StoredDelivery>
  /** delivery id -> its attempts, oldest first (each list is replaced, never changed in place) */
  readonly webhookAttempts: Map<string, ReadonlyArray<WebhookAttempt>>
  readonly messages: Map<string, StoredMessage>
  /** provider report key -> message id: each report is recorded once */
  readonly messageReportKeys: Map<string, string>
  /** `organization id/report key` of provider reports applied -> when */
  readonly providerReports: Map<string, Date>
  /** `organization id/month` -> emails counted */
  readonly emailUsage: Map<string, number>
  /** organization id -> its sender settings, once changed */
  readonly emailSettings: Map<string, EmailSettings>
  readonly templates: Map<string, EmailTemplate>
  readonly forms: Map<string, Form>
  readonly signUps: Map<string, PendingSignUp>
  readonly consents: Map<string, Consent>
  readonly notes: Map<string, Note>
  readonly campaigns: Map<string, StoredCampaign>
  /** campaign id -> how far its audience was taken, once it started */
  readonly campaignAudiences: Map<string, CampaignAudienceProgress>
  readonly triggers: Map<string, EmailTrigger>
  readonly triggerFirings: Map<string, StoredFiring>
  /** organization id -> its custom sending domain */
  readonly sendingDomains: Map<string, SendingDomain>,
  /** organization id -> its account with the payment provider */
  readonly billingAccounts: Map<string, BillingAccount>
  /** the payment provider's event ids taken -> when */
  readonly billingEvents: Map<string, Date>
  readonly importJobs: Map<string, StoredImportJob>
  readonly segments: Map<string, Segment>
  readonly sequences: Map<string, Sequence>
  /** `sequence id/version` -> the steps of that version */
  readonly sequenceVersions: Map<string, ReadonlyArray<SequenceStep>>
  readonly enrollments: Map<string, Enrollment>
  /** enrollment id -> the steps it ran, in order (each list is replaced, never changed in place) */
  readonly stepRuns: Map<string, ReadonlyArray<StoredStepRun>>
}

/** A step an enrollment ran or ended in. */
export interface StoredStepRun {
  readonly sequenceId: string
  readonly step: string
  readonly outcome: "completed" | "exited"
  readonly messageId: string | null
  readonly at: Date
}

/** An import sent over HTTP, with its file's parts (until it ends) and its worker's lease. */
export interface StoredImportJob {
  readonly job: ImportJob
  /** Replaced, never changed in place. */
  readonly parts: ReadonlyArray<Uint8Array>
  readonly leaseUntil: Date | null
  /** The token of the worker holding the running import. */
  readonly leaseToken: string | null
  /** A `receiving` import whose file is all there, waiting for the person it names to start it. */
  readonly draft: { readonly heldBy: string | null } | null
}

/** A trigger's firing for one subscriber. */
export interface StoredFiring {
  readonly id: string
  readonly triggerId: string
  readonly organizationId: string
  readonly subscriberId: string
  readonly eventId: string
  readonly status: FiringStatus
  readonly dueAt: Date
  readonly messageId: string | null
  readonly detail: string | null
}

/** A campaign, with what its emails are made of once it sends. */
export interface StoredCampaign {
  readonly campaign: Campaign
  readonly sendout: CampaignSendout | null
}

export interface CampaignAudienceProgress {
  readonly fixedAt: Date
  /** The audience's subscriber ids, in order, as it was when sending started; emptied once taken whole or cancelled. */
  readonly members: ReadonlyArray<string>
  /** The last subscriber id taken into the audience. */
  readonly cursor: string | null
  readonly complete: boolean
}

/** A message with its history and the batch a worker leased it in, if any. */
export interface StoredMessage {
  readonly message: Message
  readonly history: ReadonlyArray<MessageEvent>
  readonly leaseToken: string | null
  /** When the message is due (again); `null` once it is settled. */
  readonly nextAttemptAt: Date | null
}

/**
 * Removes the notes kept on a subscriber and their trigger firings, as the database's cascades do
 * (what was sent to them goes with `deleteSubscriberMail`).
 */
export const deleteSubscriberRecords = (t: Tables, subscriberId: string): void => {
  for (const [id, note] of t.notes) if (note.subscriberId === subscriberId) t.notes.delete(id)
  for (const [id, consent] of t.consents) if (consent.subscriberId === subscriberId) t.consents.delete(id)
  for (const [id, firing] of t.triggerFirings) if (firing.subscriberId === subscriberId) t.triggerFirings.delete(id)
  for (const [id, enrollment] of t.enrollments) {
    if (enrollment.subscriberId !== subscriberId) continue
    t.enrollments.delete(id)
    t.stepRuns.delete(id)
  }
}

/** Removes a sequence with its versions, enrollments and their runs, as the database's cascades do. */
export const deleteSequenceRecords = (t: Tables, sequenceId: string): void => {
  t.sequences.delete(sequenceId)
  for (const key of t.sequenceVersions.keys()) if (key.startsWith(`${sequenceId}/`)) t.sequenceVersions.delete(key)
  for (const [id, enrollment] of t.enrollments) {
    if (enrollment.sequenceId !== sequenceId) continue
    t.enrollments.delete(id)
    t.stepRuns.delete(id)
  }
}

/** A delivery with the lease a worker holds on it, if one does. */
export interface StoredDelivery {
  readonly delivery: WebhookDelivery
  readonly leaseToken: string | null
}

/** The key of a membership in its table: one per organization and user. */
export const membershipKey = (organizationId: string, userId: string): string => `${organizationId}/${userId}`

const emptyTables = (): Tables => ({
  organizations: new Map(),
  subscribers: new Map(),
  preferenceTokenVersions: new Map(),
  organizationTimeZones: new Map(),
  erasureRequests: new Map(),
  tags: new Map(),
  assignments: new Map(),
  apiKeys: new Map(),
  users: new Map(),
  memberships: new Map(),
  magicLinks: new Map(),
  sessions: new Map(),
  events: [],
  dispatchedEvents: new Map(),
  webhookEndpoints: new Map(),
  webhookDeliveries: new Map(),
  webhookAttempts: new Map(),
  messages: new Map(),
  messageReportKeys: new Map(),
  providerReports: new Map(),
  emailUsage: new Map(),
  emailSettings: new Map(),
  templates: new Map(),
  forms: new Map(),
  signUps: new Map(),
  consents: new Map(),
  notes: new Map(),
  campaigns: new Map(),
  campaignAudiences: new Map(),
  triggers: new Map(),
  triggerFirings: new Map(),
  sendingDomains: new Map(),
  billingAccounts: new Map(),
  billingEvents: new Map(),
  importJobs: new Map(),
  segments: new Map(),
  sequences: new Map(),
  sequenceVersions: new Map(),
  enrollments: new Map(),
  stepRuns: new Map()
})

const copyTables = (t: Tables): Tables => ({
  organizations: new Map(t.organizations),
  subscribers: new Map(t.subscribers),
  preferenceTokenVersions: new Map(t.preferenceTokenVersions),
  organizationTimeZones: new Map(t.organizationTimeZones),
  erasureRequests: new Map(t.erasureRequests),
  tags: new Map(t.tags),
  assignments: new Map([...t.assignments].map(([id, tags]) => [id, new Map(tags)])),
  apiKeys: new Map(t.apiKeys),
  users: new Map(t.users),
  memberships: new Map(t.memberships),
  magicLinks: new Map(t.magicLinks),
  sessions: new Map(t.sessions),
  events: [...t.events],
  dispatchedEvents: new Map(t.dispatchedEvents),
  webhookEndpoints: new Map(t.webhookEndpoints),
  webhookDeliveries: new Map(t.webhookDeliveries),
  webhookAttempts: new Map(t.webhookAttempts),
  messages: new Map(t.messages),
  messageReportKeys: new Map(t.messageReportKeys),
  providerReports: new Map(t.providerReports),
  emailUsage: new Map(t.emailUsage),
  emailSettings: new Map(t.emailSettings),
  templates: new Map(t.templates),
  forms: new Map(t.forms),
  signUps: new Map(t.signUps),
  consents: new Map(t.consents),
  notes: new Map(t.notes),
  campaigns: new Map(t.campaigns),
  campaignAudiences: new Map(t.campaignAudiences),
  triggers: new Map(t.triggers),
  triggerFirings: new Map(t.triggerFirings),
  sendingDomains: new Map(t.sendingDomains),
  billingAccounts: new Map(t.billingAccounts),
  billingEvents: new Map(t.billingEvents),
  importJobs: new Map(t.importJobs),
  segments: new Map(t.segments),
  sequences: new Map(t.sequences),
  sequenceVersions: new Map(t.sequenceVersions),
  enrollments: new Map(t.enrollments),
  stepRuns: new Map(t.stepRuns)
})

/**
 * The in-memory database. A transaction works on a copy of the tables and replaces the committed
 * tables when it succeeds; transactions and writes outside them take turns, reads outside a
 * transaction see the last commit.
 */
export class MemoryStore extends Context.Tag("roster/MemoryStore")<MemoryStore, {
  readonly read: <A>(f: (tables: Tables) => A) => Effect.Effect<A>
  readonly write: <A>(f: (tables: Tables) => A) => Effect.Effect<A>
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>() {}

export const MemoryStoreLive = Layer.scoped(
  MemoryStore,
  Effect.gen(function*() {
    let committed = emptyTables()
    const draft = yield* FiberRef.make<Option.Option<Tables>>(Option.none())
    const turn = yield* Effect.makeSemaphore(1)
    const current = Effect.map(FiberRef.get(draft), Option.getOrElse(() => committed))

    return MemoryStore.of({
      read: (f) => Effect.map(current, f),
      write: (f) =>
        Effect.flatMap(FiberRef.get(draft), Option.match({
          onSome: (tables) => Effect.sync(() => f(tables)),
          onNone: () => turn.withPermits(1)(Effect.sync(() => f(committed)))
        })),
      transaction: (effect) =>
        Effect.flatMap(FiberRef.get(draft), Option.match({
          onSome: () => effect,
          onNone: () =>
            turn.withPermits(1)(Effect.suspend(() => {
              const tables = copyTables(committed)
              return effect.pipe(
                Effect.locally(draft, Option.some(tables)),
                Effect.tap(() => Effect.sync(() => { committed = tables }))
              )
            }))
        }))
    })
  })
)
