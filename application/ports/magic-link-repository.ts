import type { MagicLink } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

export class MagicLinkRepository extends Context.Tag("roster/MagicLinkRepository")<MagicLinkRepository, {
  readonly insert: (link: MagicLink) => Effect.Effect<void>
  /**
   * Marks the link with this token hash used at `now`, if it is neither used nor expired: one
   * conditional write, so of concurrent consumers exactly one gets the link.
   */
  readonly consume: (tokenHash: string, now: Date) => Effect.Effect<Option.Option<MagicLink>>
  readonly findByHash: (tokenHash: string) => Effect.Effect<Option.Option<MagicLink>>
}>() {}
