import { Ids } from "@roster/application"
import { Effect, Layer } from "effect"
import { randomFillSync } from "node:crypto"

/** Random bytes drawn a few kilobytes at a time: one call to the system's generator per 256 ids. */
const makeRandomPool = (size = 4096) => {
  const pool = Buffer.alloc(size)
  let offset = size
  return (length: number): Buffer => {
    if (offset + length > size) {
      randomFillSync(pool)
      offset = 0
    }
    const bytes = Buffer.from(pool.subarray(offset, offset + length))
    offset += length
    return bytes
  }
}

/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids made within one
 * millisecond by this process still sort in the order they were made (a 12-bit counter in
 * `rand_a`), so new rows append to the end of primary-key indexes.
 */
export const makeUuidV7 = (): (() => string) => {
  let lastMs = 0
  let counter = 0
  const randomBytes = makeRandomPool()
  return () => {
    let ms = Date.now()
    if (ms <= lastMs) {
      counter += 1
      if (counter > 0xfff) {
        lastMs += 1
        counter = 0
      }
      ms = lastMs
    } else {
      lastMs = ms
      counter = 0
    }
    const bytes = randomBytes(16)
    bytes.writeUIntBE(ms, 0, 6)
    bytes[6] = 0x70 | (counter >> 8)
    bytes[7] = counter & 0xff
    bytes[8] = 0x80 | (bytes[8]! & 0x3f)
    const hex = bytes.toString("hex")
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  }
}

export const NodeIdsLive = Layer.sync(Ids, () => {
  const next = makeUuidV7()
  return {
    next: Effect.sync(next),
    take: (count) =>
      Effect.sync(() => {
        const ids = new Array<string>(count)
        for (let i = 0; i < count; i++) ids[i] = next()
        return ids
      })
  }
})
