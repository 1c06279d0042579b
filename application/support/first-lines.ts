/**
 * The line each text (an email key) was first seen on, for a file of millions of rows in a few
 * tens of megabytes: texts are kept as 64-bit hashes (two independent 32-bit halves) in a flat
 * open-addressing table, never as strings. Two different texts share a hash about once in 2^64
 * pairs; a million rows make about 2^39 pairs.
 */
export class FirstLines {
  private hashes = new Uint32Array(2 * 1024)
  private lines = new Uint32Array(1024)
  private size = 0

  /** The line `text` was first seen on, if it was seen; otherwise it is now seen on `line`. */
  firstOr(text: string, line: number): number | undefined {
    if ((this.size + 1) * 2 > this.lines.length) this.grow()
    const [a, b] = hash(text)
    const mask = this.lines.length - 1
    for (let slot = a & mask; ; slot = (slot + 1) & mask) {
      const seen = this.lines[slot]!
      if (seen === 0) {
        this.hashes[2 * slot] = a
        this.hashes[2 * slot + 1] = b
        this.lines[slot] = line
        this.size++
        return undefined
      }
      if (this.hashes[2 * slot] === a && this.hashes[2 * slot + 1] === b) return seen
    }
  }

  private grow() {
    const { hashes, lines } = this
    this.hashes = new Uint32Array(hashes.length * 2)
    this.lines = new Uint32Array(lines.length * 2)
    const mask = this.lines.length - 1
    for (let old = 0; old < lines.length; old++) {
      const line = lines[old]!
      if (line === 0) continue
      const a = hashes[2 * old]!
      let slot = a & mask
      while (this.lines[slot] !== 0) slot = (slot + 1) & mask
      this.hashes[2 * slot] = a
      this.hashes[2 * slot + 1] = hashes[2 * old + 1]!
      this.lines[slot] = line
    }
  }
}

/** Two 32-bit hashes of a text's UTF-16 code units (cyrb53's mixing, two seeds kept apart). */
const hash = (text: string): readonly [number, number] => {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return [h1 >>> 0, h2 >>> 0]
}
