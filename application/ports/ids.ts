import { Context, type Effect } from "effect"

/** New identifiers: time-ordered UUIDs (version 7), so that fresh rows land together in indexes. */
export class Ids extends Context.Tag("roster/Ids")<Ids, {
  readonly next: Effect.Effect<string>
  /** `count` new identifiers at once, in the order `next` would have made them. */
  readonly take: (count: number) => Effect.Effect<ReadonlyArray<string>>
}>() {}
