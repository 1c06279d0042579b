import { Context, type Effect } from "effect"

/** Randomness and one-way hashing. */
export class Secrets extends Context.Tag("roster/Secrets")<Secrets, {
  readonly randomBytes: (count: number) => Effect.Effect<Uint8Array>
  /** SHA-256 of the UTF-8 text, lower-case hex. */
  readonly sha256: (text: string) => Effect.Effect<string>
}>() {}
