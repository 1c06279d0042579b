import { type DomainEvent, EnrollmentId, entersOn, eventSubscriberId, SubscriberId } from "@roster/domain"
import { Effect, Option } from "effect"
import { Ids } from "../ports/ids.js"
import { SegmentAudience } from "../ports/segment-audience.js"
import { SegmentRepository } from "../ports/segment-repository.js"
import { type NewEnrollment, SequenceRepository } from "../ports/sequence-repository.js"

/**
 * Enters the subscribers of `events` into the active sequences that hear them; how many it
 * enrolled. A segment's entry is looked at when the subscriber is created, confirmed, changed, or
 * given or relieved of a tag: one the segment matches then is entered (by the sequence's re-entry
 * rule). Run it in the transaction that takes the events, as webhook fan-out does.
 */
export const makeSequenceEntries = Effect.gen(function*() {
  const sequences = yield* SequenceRepository
  const segments = yield* SegmentRepository
  const audience = yield* SegmentAudience
  const ids = yield* Ids
  return (events: ReadonlyArray<DomainEvent>, at: Date) =>
    Effect.gen(function*() {
      const about = events.filter((event) => eventSubscriberId(event) !== null)
      if (about.length === 0) return 0
      const listening = yield* sequences.listening([...new Set(about.map((e) => e.organizationId))])
      if (listening.length === 0) return 0
      const entries: Array<NewEnrollment> = []
      const seen = new Set<string>()
      for (const event of about) {
        for (const sequence of listening) {
          if (sequence.organizationId !== event.organizationId || !entersOn(sequence.entry, event)) continue
          const subscriberId = SubscriberId.make(eventSubscriberId(event)!)
          if (sequence.entry.event === "segment.entered") {
            // One look per subscriber and sequence in a batch.
            const key = `${sequence.id}/${subscriberId}`
            if (seen.has(key)) continue
            seen.add(key)
            const segment = yield* segments.findById(sequence.organizationId, sequence.entry.segmentId)
            if (Option.isNone(segment)) continue
            if (!(yield* audience.matches(sequence.organizationId, segment.value.filter, at, subscriberId))) continue
          }
          entries.push({ id: EnrollmentId.make(yield* ids.next), sequence, subscriberId })
        }
      }
      return (yield* sequences.enroll(entries, at)).length
    })
})
