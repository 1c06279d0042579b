import { assert, expect, layer } from "@effect/vitest"
import { MagicLinkRepository } from "@roster/application"
import { MagicLink } from "@roster/domain"
import { Effect, Option } from "effect"
import { aMagicLink, instant, type PersistenceLayer } from "./fixtures.js"

const justBefore = (at: Date): Date => new Date(at.getTime() - 1)

export const magicLinkRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("MagicLinkRepository", (it) => {
    it.effect("stores a link and finds it by the hash of its token", () =>
      Effect.gen(function*() {
        const magicLinks = yield* MagicLinkRepository
        const link = aMagicLink({ locale: "de", createdAt: instant(30) })
        yield* magicLinks.insert(link)
        expect(Option.getOrThrow(yield* magicLinks.findByHash(link.tokenHash))).toStrictEqual(link)
        assert.isTrue(Option.isNone(yield* magicLinks.findByHash(aMagicLink().tokenHash)))
      }))

    it.effect("a link is consumed once: marked used at that moment, and refused afterwards", () =>
      Effect.gen(function*() {
        const magicLinks = yield* MagicLinkRepository
        const link = aMagicLink()
        yield* magicLinks.insert(link)
        const used = new MagicLink({ ...link, consumedAt: instant(60) })
        expect(Option.getOrThrow(yield* magicLinks.consume(link.tokenHash, instant(60)))).toStrictEqual(used)
        assert.isTrue(Option.isNone(yield* magicLinks.consume(link.tokenHash, instant(61))))
        expect(Option.getOrThrow(yield* magicLinks.findByHash(link.tokenHash))).toStrictEqual(used)
      }))

    it.effect("a link is refused from the moment it expires, and is still found", () =>
      Effect.gen(function*() {
        const magicLinks = yield* MagicLinkRepository
        const link = aMagicLink()
        yield* magicLinks.insert(link)
        assert.isTrue(Option.isNone(yield* magicLinks.consume(link.tokenHash, link.expiresAt)))
        assert.isTrue(Option.isNone(yield* magicLinks.consume(link.tokenHash, instant(3600))))
        expect(Option.getOrThrow(yield* magicLinks.findByHash(link.tokenHash))).toStrictEqual(link)

        const consumed = yield* magicLinks.consume(link.tokenHash, justBefore(link.expiresAt))
        expect(Option.getOrThrow(consumed).consumedAt).toStrictEqual(justBefore(link.expiresAt))
      }))

    it.effect("a link nobody asked for is not consumed", () =>
      Effect.gen(function*() {
        const magicLinks = yield* MagicLinkRepository
        const unknown = aMagicLink()
        assert.isTrue(Option.isNone(yield* magicLinks.consume(unknown.tokenHash, instant(1))))
        assert.isTrue(Option.isNone(yield* magicLinks.findByHash(unknown.tokenHash)))
      }))

    it.effect("of 20 concurrent consumers of one link, exactly one gets it", () =>
      Effect.gen(function*() {
        const magicLinks = yield* MagicLinkRepository
        const link = aMagicLink()
        yield* magicLinks.insert(link)
        const outcomes = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) => magicLinks.consume(link.tokenHash, instant(60 + i)),
          { concurrency: "unbounded" }
        )
        const winners = outcomes.filter(Option.isSome)
        expect(winners).toHaveLength(1)
        expect(Option.getOrThrow(yield* magicLinks.findByHash(link.tokenHash)).consumedAt).toStrictEqual(
          winners[0]!.value.consumedAt
        )
      }))
  })
