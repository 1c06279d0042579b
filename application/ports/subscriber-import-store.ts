import type { DomainEvent, Limit, OrganizationId, Subscriber, SubscriberId, TagId, TagSubscription } from "@roster/domain"
import { Context, type Effect } from "effect"

/** A subscriber an import found, with what it needs to know about them. */
export interface ImportedSubscriber {
  readonly subscriber: Subscriber
  /** Their tags, oldest attachment first. */
  readonly tags: ReadonlyArray<TagSubscription>
  /** They asked to be erased: an import leaves them alone. */
  readonly erasureRequested: boolean
}

/** An event an import records, and the change it is about: recorded only if that change was made. */
export interface ImportEvent {
  readonly event: DomainEvent
  readonly subscriberId: SubscriberId
  /** For `tag.subscribed`: the tag, whose attachment must be new. */
  readonly tagId: TagId | null
}

/** One batch of an import's changes, decided from what `find` returned. */
export interface ImportBatch {
  readonly organizationId: OrganizationId
  /** New subscribers, in the file's order; as many as the plan has room for are made. */
  readonly creates: ReadonlyArray<Subscriber>
  /** Changed subscribers, each with the `updatedAt` it had when read: changed by anyone since, it is left alone. */
  readonly updates: ReadonlyArray<{ readonly subscriber: Subscriber; readonly seen: Date }>
  /** Tags to attach (an attachment that exists stays as it is), to new and existing subscribers. */
  readonly attachments: ReadonlyArray<{ readonly subscriberId: SubscriberId; readonly tagIds: ReadonlyArray<TagId> }>
  readonly events: ReadonlyArray<ImportEvent>
  /** The most subscribers the organization may hold. */
  readonly max: Limit
  readonly at: Date
}

/**
 * A batch made ready to write: what the store can do for it before its transaction (encoding its
 * rows, say) done while the batch before it is written. Only `write` looks into it.
 */
export interface PreparedImportBatch {
  readonly batch: ImportBatch
}

export interface ImportBatchOutcome {
  readonly created: ReadonlySet<SubscriberId>
  readonly updated: ReadonlySet<SubscriberId>
  /** New subscribers the plan had no room for: nothing of theirs was written. */
  readonly overLimit: ReadonlySet<SubscriberId>
  /**
   * Subscribers someone else changed between `find` and `write`, or made meanwhile with the same
   * address: nothing of theirs was written; read them again and decide anew.
   */
  readonly conflicted: ReadonlySet<SubscriberId>
}

/**
 * The reads and writes of a subscriber import, a batch at a time: one read of the subscribers a
 * batch names, one write of everything the batch changes (subscribers, tag attachments and their
 * counts, the organization's count, events), all of it or none. Inside a transaction it joins it.
 */
export class SubscriberImportStore extends Context.Tag("roster/SubscriberImportStore")<SubscriberImportStore, {
  /** The organization's subscribers with these email keys (see `emailKey`), by key. */
  readonly find: (
    organizationId: OrganizationId,
    emailKeys: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, ImportedSubscriber>>
  /** Makes a batch ready to write, outside any transaction: it reads and changes nothing. */
  readonly prepare: (batch: ImportBatch) => Effect.Effect<PreparedImportBatch>
  readonly write: (prepared: PreparedImportBatch) => Effect.Effect<ImportBatchOutcome>
  /**
   * After a large import: brings the database's picture of the tables it grew up to date, so that
   * the next reads (an export, a page of subscribers) are planned for their new size at once
   * rather than whenever the database next takes stock.
   */
  readonly settle: Effect.Effect<void>
}>() {}
