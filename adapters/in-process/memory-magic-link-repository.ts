import { MagicLinkRepository } from "@roster/application"
import { MagicLink } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore } from "./memory-store.js"

export const MemoryMagicLinkRepositoryLive = Layer.effect(
  MagicLinkRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    return MagicLinkRepository.of({
      insert: (link) => store.write((t) => void t.magicLinks.set(link.tokenHash, link)),
      // Writes take turns, so the check and the mark are one step: one consumer gets the link.
      consume: (tokenHash, now) =>
        store.write((t) => {
          const link = t.magicLinks.get(tokenHash)
          if (link === undefined || link.consumedAt !== null || link.expiresAt.getTime() <= now.getTime()) {
            return Option.none()
          }
          const consumed = new MagicLink({ ...link, consumedAt: now })
          t.magicLinks.set(tokenHash, consumed)
          return Option.some(consumed)
        }),
      findByHash: (tokenHash) => store.read((t) => Option.fromNullable(t.magicLinks.get(tokenHash)))
    })
  })
)
