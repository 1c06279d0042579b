import { SegmentRepository } from "@roster/application"
import type { Segment } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore } from "./memory-store.js"
import { compareBy } from "./ordering.js"

const oldestFirst = compareBy((segment: Segment) => segment.createdAt.toISOString(), "asc")

export const MemorySegmentRepositoryLive = Layer.effect(
  SegmentRepository,
  Effect.map(MemoryStore, (store) => {
    const ofOrganization = (segments: Iterable<Segment>, organizationId: string) =>
      [...segments].filter((segment) => segment.organizationId === organizationId)
    return SegmentRepository.of({
      insert: (segment) => store.write((t) => void t.segments.set(segment.id, segment)),
      update: (segment) =>
        store.write((t) => {
          if (t.segments.get(segment.id)?.organizationId === segment.organizationId) t.segments.set(segment.id, segment)
        }),
      findById: (organizationId, id) =>
        store.read((t) => Option.filter(Option.fromNullable(t.segments.get(id)), (x) => x.organizationId === organizationId)),
      organizationOf: (id) => store.read((t) => Option.fromNullable(t.segments.get(id)?.organizationId)),
      list: ({ after, limit, offset = 0, organizationId }) =>
        store.read((t) =>
          ofOrganization(t.segments.values(), organizationId)
            .filter((x) => after === undefined || oldestFirst(x, { id: after.id, createdAt: new Date(after.value) } as Segment) > 0)
            .sort(oldestFirst)
            .slice(offset, offset + limit)
        ),
      count: (organizationId) => store.read((t) => ofOrganization(t.segments.values(), organizationId).length),
      delete: (organizationId, id) =>
        store.write((t) => {
          if (t.segments.get(id)?.organizationId !== organizationId) return false
          t.segments.delete(id)
          return true
        })
    })
  })
)
