import { InvalidInput, reason } from "@roster/domain"
import { Effect, Exit, Schema } from "effect"
import { IdempotencyStore, type StoredResponse } from "./ports/idempotency-store.js"
import type { Principal } from "./support/principal.js"
import { operations } from "./support/operation.js"

/** The key was used before with another body, route or method. */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {}) {
  override get message() {
    return "this Idempotency-Key was used with another request; use a new key for a new request"
  }
}

/** The first request with this key has not finished yet. */
export class IdempotentRequestInProgress
  extends Schema.TaggedError<IdempotentRequestInProgress>()("IdempotentRequestInProgress", {})
{
  override get message() {
    return "a request with this Idempotency-Key is still being processed; retry in a moment"
  }
}

/** Responses are replayed for 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60_000
/** A first request that dies without finishing frees its key after this long. */
export const IDEMPOTENCY_LOCK_MS = 60_000
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255

const printableAscii = /^[\x21-\x7e]+$/

/**
 * Whether a finished response is kept for replay: everything the operation decided, success or
 * refusal, but not a request that failed validation (400) or a failure of the service (5xx),
 * which the client may correct or retry with the same key.
 */
export const keepsResponse = (status: number): boolean => status !== 400 && status < 500

export interface IdempotentOutcome {
  readonly response: StoredResponse
  readonly replayed: boolean
}

/**
 * `Idempotency-Key`: the first response to a key is kept 24 hours and replayed to any repeat of the
 * same request (same method, route and body, given as `fingerprint`); the key with another request
 * is refused, and so is a repeat while the first is still running. Keys belong to the organization
 * and the credential that sent them.
 */
export class Idempotency extends Effect.Service<Idempotency>()("roster/Idempotency", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const store = yield* IdempotencyStore

    const scopeOf = (principal: Principal): string =>
      principal.credential.kind === "api_key"
        ? `${principal.organization.id}:key:${principal.credential.id}`
        : `${principal.organization.id}:user:${principal.credential.userId}`

    const run = operation("Idempotency.run")(function*<E, R>(
      principal: Principal,
      key: string,
      fingerprint: string,
      execute: Effect.Effect<StoredResponse, E, R>
    ) {
      if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !printableAscii.test(key)) {
        return yield* new InvalidInput({
          field: "Idempotency-Key",
          reason: reason("idempotencyKey", { max: MAX_IDEMPOTENCY_KEY_LENGTH })
        })
      }
      const storeKey = `idempotency:${scopeOf(principal)}:${key}`
      const claim = yield* store.claim(storeKey, fingerprint, IDEMPOTENCY_LOCK_MS)
      switch (claim._tag) {
        case "Running":
          return yield* (claim.fingerprint === fingerprint ? new IdempotentRequestInProgress() : new IdempotencyKeyReused())
        case "Completed":
          if (claim.fingerprint !== fingerprint) return yield* new IdempotencyKeyReused()
          return { response: claim.response, replayed: true } satisfies IdempotentOutcome
        case "Claimed":
          break
      }
      const exit = yield* Effect.exit(execute)
      if (Exit.isSuccess(exit) && keepsResponse(exit.value.status)) {
        yield* store.complete(storeKey, fingerprint, exit.value, IDEMPOTENCY_RETENTION_MS)
      } else {
        yield* store.release(storeKey)
      }
      const response = yield* exit
      return { response, replayed: false } satisfies IdempotentOutcome
    })

    return { run } as const
  })
}) {}
