import { describe, expect, it } from "@effect/vitest"
import { IdempotencyStore, RateLimiter } from "@roster/application"
import { Chunk, Clock, Context, Effect, Fiber, Layer, Logger, Option, Redacted, TestClock } from "effect"
import { createServer, type Socket } from "node:net"
import { makeRedisClient, RedisIdempotencyStoreLive, RedisRateLimiterLive } from "../../adapters/redis/index.js"
import { REDIS_CALL_TIMEOUT_MS } from "../../adapters/redis/redis-call.js"

const RATE_WARNING = "Rate limits are not enforced while Redis does not answer"
const IDEMPOTENCY_WARNING = "Idempotency keys are not honoured while Redis does not answer"

/** Both Redis adapters over one client of Redis at `url`. */
const adaptersAt = (url: string) =>
  Layer.merge(RedisRateLimiterLive, RedisIdempotencyStoreLive).pipe(Layer.provide(makeRedisClient(Redacted.make(url))))

/** Nothing listens on port 1. */
const CLOSED_PORT = "redis://127.0.0.1:1"

const response = { status: 201, headers: {}, body: "{}" }

/** Real time passes (for sockets), whatever clock the test runs on. */
const realPause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 10)))

/**
 * Runs the call on the test clock against a Redis that never answers: once the call's timer is
 * set, the call is still waiting a millisecond short of the call timeout, and has its answer at
 * the timeout. The answer.
 */
const answeredAtTheTimeout = <A, E>(call: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(call)
    while (Chunk.isEmpty(yield* TestClock.sleeps())) yield* realPause
    yield* TestClock.adjust(REDIS_CALL_TIMEOUT_MS - 1)
    for (let i = 0; i < 5; i++) yield* realPause
    expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
    yield* TestClock.adjust(1)
    return yield* Fiber.join(fiber)
  })

/** The warnings logged while the layer is in use, by their message. */
const capturingWarnings = () => {
  const warnings: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    if (logLevel._tag !== "Warning") return
    const parts = Array.isArray(message) ? message : [message]
    warnings.push(String(parts[0]))
  })
  return { warnings, layer: Logger.replace(Logger.defaultLogger, logger) }
}

/**
 * A server that accepts the connection and greets like Redis (the client's handshake and ready
 * check pass) but then never answers a command: a Redis that hangs.
 */
const hangingRedis = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly close: () => void }>((resume) => {
    const sockets = new Set<Socket>()
    const server = createServer((socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      socket.on("data", (chunk) => {
        for (const [, name] of chunk.toString("latin1").matchAll(/\*\d+\r\n\$\d+\r\n([^\r]*)\r\n/g)) {
          const command = name!.toLowerCase()
          if (command === "client") socket.write("+OK\r\n")
          else if (command === "info") {
            const info = "# Server\r\nredis_version:7.0.0\r\nloading:0\r\n"
            socket.write(`$${Buffer.byteLength(info)}\r\n${info}\r\n`)
          } else if (command === "quit") socket.destroy()
          // Every other command is swallowed.
        }
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({
        url: `redis://127.0.0.1:${port}`,
        close: () => {
          for (const socket of sockets) socket.destroy()
          server.close()
        }
      }))
    })
  }),
  (server) => Effect.sync(server.close)
)

describe("Redis that cannot be reached", () => {
  it.live("lets every request through, with the whole limit remaining", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      const before = yield* Clock.currentTimeMillis
      const result = yield* limiter.consume("rate:organization:closed", 5, 60_000)
      expect(result).toMatchObject({ allowed: true, limit: 5, remaining: 5 })
      expect(result.resetAt.getTime()).toBeGreaterThanOrEqual(before + 60_000)
      for (let i = 0; i < 10; i++) expect((yield* limiter.consume("rate:organization:closed", 5, 60_000)).allowed).toBe(true)
    }).pipe(Effect.provide(adaptersAt(CLOSED_PORT))))

  it.live("an adaptive rate is at its most, whatever is asked of it", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      const pace = { max: 4, min: 0.1, step: 0.2, settleMs: 500, forgetMs: 60_000 }
      expect(yield* limiter.slowDown("email-provider:pace", pace)).toBe(4)
      expect(yield* limiter.rateOf("email-provider:pace", pace)).toBe(4)
      expect(yield* limiter.speedUp("email-provider:pace", pace)).toBe(4)
    }).pipe(Effect.provide(adaptersAt(CLOSED_PORT))))

  it.live("grants every claim and keeps nothing", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      expect(yield* store.claim("idempotency:closed", "POST /subscribers a", 60_000)).toEqual({ _tag: "Claimed" })
      yield* store.complete("idempotency:closed", "POST /subscribers a", response, 60_000)
      expect(yield* store.claim("idempotency:closed", "POST /subscribers a", 60_000)).toEqual({ _tag: "Claimed" })
      yield* store.release("idempotency:closed")
    }).pipe(Effect.provide(adaptersAt(CLOSED_PORT))))

  it.effect("warns at most once every 30 seconds, not at every request", () => {
    const { layer, warnings } = capturingWarnings()
    const count = (message: string) => warnings.filter((w) => w === message).length
    return Effect.gen(function*() {
      const limiter = yield* RateLimiter
      const store = yield* IdempotencyStore
      for (let i = 0; i < 5; i++) {
        yield* limiter.consume("rate:organization:closed", 5, 60_000)
        yield* store.claim("idempotency:closed", "POST /subscribers a", 60_000)
        yield* store.release("idempotency:closed")
      }
      expect([count(RATE_WARNING), count(IDEMPOTENCY_WARNING)]).toEqual([1, 1])
      yield* TestClock.adjust(29_000)
      yield* limiter.consume("rate:organization:closed", 5, 60_000)
      yield* store.claim("idempotency:closed", "POST /subscribers a", 60_000)
      expect([count(RATE_WARNING), count(IDEMPOTENCY_WARNING)]).toEqual([1, 1])
      yield* TestClock.adjust(1_000)
      yield* limiter.consume("rate:organization:closed", 5, 60_000)
      yield* store.claim("idempotency:closed", "POST /subscribers a", 60_000)
      expect([count(RATE_WARNING), count(IDEMPOTENCY_WARNING)]).toEqual([2, 2])
    }).pipe(Effect.provide(adaptersAt(CLOSED_PORT)), Effect.provide(layer))
  })
})

describe("Redis that does not answer", () => {
  it.scoped("a request waits for it the call timeout and no longer, then goes on without it", () =>
    Effect.gen(function*() {
      const server = yield* hangingRedis
      const adapters = yield* Layer.build(adaptersAt(server.url))
      const [limiter, store] = [Context.get(adapters, RateLimiter), Context.get(adapters, IdempotencyStore)]
      const consumed = yield* answeredAtTheTimeout(limiter.consume("rate:organization:hanging", 5, 60_000))
      expect(consumed).toMatchObject({ allowed: true, limit: 5, remaining: 5 })

      expect(yield* answeredAtTheTimeout(store.claim("idempotency:hanging", "POST /subscribers a", 60_000)))
        .toEqual({ _tag: "Claimed" })
      yield* answeredAtTheTimeout(store.complete("idempotency:hanging", "POST /subscribers a", response, 60_000))
    }))
})
