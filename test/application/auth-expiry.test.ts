/**
 * The two lifetimes of signing in, to the millisecond, on the TestClock: a magic link is good
 * for 15 minutes, a session for 7 days. The HTTP suites move a real server's clock in whole
 * minutes; here the Auth use case runs over the in-memory adapters and the same token signer
 * and rate limiter as the server, with time under the test's hand.
 */
import { AuthMail, Auth, type SignInLinkMail } from "@roster/application"
import { EmailAddress, MAGIC_LINK_LIFETIME, SESSION_LIFETIME } from "@roster/domain"
import { describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Queue, TestClock } from "effect"
import { randomBytes } from "node:crypto"
import { CryptoLive } from "../../adapters/node/index.js"
import { InProcessRateLimiterLive, MemoryPersistenceLive } from "../../adapters/in-process/index.js"
import { makeJoseTokenSigner } from "../../adapters/jose/index.js"

/** Sign-in emails, as the use case hands them over. */
class Outbox extends Context.Tag("test/SignInOutbox")<Outbox, Queue.Queue<SignInLinkMail>>() {}

const OutboxLive = Layer.effect(Outbox, Queue.unbounded<SignInLinkMail>())

const CapturedAuthMailLive = Layer.effect(
  AuthMail,
  Effect.map(Outbox, (outbox) =>
    AuthMail.of({ sendSignInLink: (mail) => Queue.offer(outbox, mail), sendInvitation: (mail) => Queue.offer(outbox, mail) }))
)

const AuthLive = Auth.Default.pipe(
  Layer.provide(
    Layer.mergeAll(
      MemoryPersistenceLive,
      CryptoLive,
      makeJoseTokenSigner(randomBytes(32)),
      InProcessRateLimiterLive,
      CapturedAuthMailLive
    )
  ),
  Layer.provideMerge(OutboxLive)
)

/** Asks for a link and reads its token from the email. */
const linkFor = (address: string) =>
  Effect.gen(function*() {
    const auth = yield* Auth
    yield* auth.requestSignInLink(EmailAddress.make(address), "en", "192.0.2.10")
    const mail = yield* Queue.take(yield* Outbox)
    expect(mail.to).toBe(address)
    return mail.token
  })

const justBefore = (lifetime: Duration.Duration) => Duration.subtract(lifetime, Duration.millis(1))

describe("a magic link", () => {
  it.effect("signs in until the last millisecond of its 15 minutes", () =>
    Effect.gen(function*() {
      const token = yield* linkFor("early@example.com")
      yield* TestClock.adjust(justBefore(MAGIC_LINK_LIFETIME))
      const signedIn = yield* (yield* Auth).verify(token)
      expect(signedIn.user.email).toBe("early@example.com")
    }).pipe(Effect.provide(AuthLive)))

  it.effect("is MagicLinkExpired from its 15th minute on, and stays so", () =>
    Effect.gen(function*() {
      const token = yield* linkFor("late@example.com")
      yield* TestClock.adjust(MAGIC_LINK_LIFETIME)
      const auth = yield* Auth
      expect((yield* Effect.flip(auth.verify(token)))._tag).toBe("MagicLinkExpired")
      yield* TestClock.adjust("1 day")
      expect((yield* Effect.flip(auth.verify(token)))._tag).toBe("MagicLinkExpired")
    }).pipe(Effect.provide(AuthLive)))

  it.effect("used within its time is MagicLinkAlreadyUsed afterwards, also once it would have expired", () =>
    Effect.gen(function*() {
      const token = yield* linkFor("twice@example.com")
      const auth = yield* Auth
      yield* auth.verify(token)
      expect((yield* Effect.flip(auth.verify(token)))._tag).toBe("MagicLinkAlreadyUsed")
      yield* TestClock.adjust(MAGIC_LINK_LIFETIME)
      expect((yield* Effect.flip(auth.verify(token)))._tag).toBe("MagicLinkAlreadyUsed")
    }).pipe(Effect.provide(AuthLive)))
})

describe("a session", () => {
  it.effect("lasts 7 days from signing in, to the second, then is Unauthenticated", () =>
    Effect.gen(function*() {
      const auth = yield* Auth
      const { expiresAt, sessionToken, user } = yield* auth.verify(yield* linkFor("week@example.com"))
      expect(expiresAt.getTime()).toBe(Duration.toMillis(SESSION_LIFETIME))
      // Token times are whole seconds: the last second of the week still counts.
      yield* TestClock.adjust(Duration.subtract(SESSION_LIFETIME, Duration.seconds(1)))
      expect((yield* auth.sessionUser(sessionToken)).user.id).toBe(user.id)
      yield* TestClock.adjust("1 second")
      const ended = yield* Effect.flip(auth.sessionUser(sessionToken))
      expect(ended._tag).toBe("Unauthenticated")
    }).pipe(Effect.provide(AuthLive)))
})
