import type { OrganizationId } from "@roster/domain"
import { Effect, Option, Stream } from "effect"
import type { ExportedSubscriber, KeysetPosition, SubscriberFilter, SubscriberRepository } from "../ports/subscriber-repository.js"

/**
 * An export's rows as pages read one after another by keyset (oldest first, by creation then
 * id), each read when the one before was taken: for stores that cannot stream a whole export in
 * one statement. Subscribers added meanwhile come at the end, and none is read twice.
 */
export const exportByKeyset = (
  exportPage: SubscriberRepository["Type"]["exportPage"],
  organizationId: OrganizationId,
  filter: SubscriberFilter,
  pageSize: number
): Stream.Stream<ReadonlyArray<ExportedSubscriber>> =>
  Stream.paginateEffect<KeysetPosition | undefined, ReadonlyArray<ExportedSubscriber>, never, never>(
    undefined,
    (after) =>
      Effect.map(exportPage(organizationId, { ...filter, after, limit: pageSize }), (rows) => {
        const last = rows[rows.length - 1]
        const next = rows.length < pageSize || last === undefined
          ? Option.none<KeysetPosition | undefined>()
          : Option.some({ value: last.createdAt, id: last.id })
        return [rows, next] as const
      })
  ).pipe(Stream.filter((rows) => rows.length > 0))
