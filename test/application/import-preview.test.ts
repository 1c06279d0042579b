import { describe, expect, it } from "@effect/vitest"
import { IMPORT_PART_BYTES, ImportJobRepository, ImportJobs, SubscriberExports, SubscriberImports } from "@roster/application"
import { Effect, Layer, Stream } from "effect"
import { CsvParseReaderLive } from "../../adapters/csv/index.js"
import { keyFor, openOrganization, UseCasesInMemory } from "./test-kit.js"

const inMemory = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provide(
    self,
    Layer.mergeAll(ImportJobs.Default.pipe(Layer.provideMerge(SubscriberImports.Default)), SubscriberExports.Default).pipe(
      Layer.provideMerge(Layer.merge(UseCasesInMemory, CsvParseReaderLive))
    )
  )

const bytesOf = (text: string) => Stream.make(new TextEncoder().encode(text))

describe("an import's preview", () => {
  it.effect("reads the header as the import lays it out, the first rows, how many there are and where the file breaks", () =>
    inMemory(Effect.gen(function*() {
      const { principal } = yield* openOrganization()
      const imports = yield* ImportJobs
      const preview = yield* imports.preview(principal, {
        bytes: bytesOf("E-mail,Given Name,metadata.plan,Rating\na@example.com,Ada,pro,5\nb@example.com,Bob,,4\nc@example.com,Cy,,3\n"),
        rows: 2
      })
      expect(preview.header).toStrictEqual(["E-mail", "Given Name", "metadata.plan", "Rating"])
      expect(preview.layout).toMatchObject({ email: 0, firstName: 1, metadata: [["plan", 2]], ignored: ["Rating"] })
      expect(preview.rows.map((record) => [record.line, record.cells[0]])).toStrictEqual([[2, "a@example.com"], [3, "b@example.com"]])
      expect(preview.rowCount).toBe(3)
      expect(preview.failure).toBeNull()

      const broken = yield* imports.preview(principal, { bytes: bytesOf("email\na@example.com\n\"b@example.com\n"), rows: 5 })
      expect(broken.rowCount).toBe(1)
      expect(broken.failure).toMatchObject({ _tag: "ImportRefused", line: 3 })
    })))

  it.effect("refuses an empty file, one without an email column, an unknown encoding, and a key that may not import", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const imports = yield* ImportJobs
      expect(yield* Effect.flip(imports.preview(principal, { bytes: bytesOf(""), rows: 5 })))
        .toMatchObject({ _tag: "ImportRefused", problem: "the file is empty" })
      expect(yield* Effect.flip(imports.preview(principal, { bytes: bytesOf("name\nAda\n"), rows: 5 })))
        .toMatchObject({ _tag: "ImportRefused", line: 1 })
      expect(yield* Effect.flip(imports.preview(principal, { bytes: bytesOf("email\n"), encoding: "klingon", rows: 5 })))
        .toMatchObject({ _tag: "InvalidInput", field: "encoding" })
      const reader = yield* keyFor(organization.id, ["subscribers:read"])
      expect(yield* Effect.flip(imports.preview(reader, { bytes: bytesOf("email\n"), rows: 5 })))
        .toMatchObject({ _tag: "MissingScope" })
    })))
})

describe("an upload", () => {
  it.effect("given up while its parts still came in is refused, naming the file, and leaves nothing behind", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const imports = yield* ImportJobs
      const jobs = yield* ImportJobRepository
      const line = new TextEncoder().encode("someone@example.com\n")
      const firstPart = new Uint8Array(IMPORT_PART_BYTES)
      for (let at = 0; at + line.length <= firstPart.length; at += line.length) firstPart.set(line, at)
      // Between the first part and the next, the clean-up gives up every upload still coming in.
      const bytes = Stream.concat(
        Stream.make(firstPart),
        Stream.fromEffect(jobs.discardAbandoned(new Date(Date.now() + 86_400_000))).pipe(
          Stream.flatMap(() => Stream.make(line, line))
        )
      )
      const refused = yield* Effect.flip(imports.start(principal, { fileName: "slow.csv", bytes, maxBytes: 10 * IMPORT_PART_BYTES, resubscribe: false }))
      expect(refused).toMatchObject({ _tag: "InvalidInput", field: "file" })
      expect(yield* jobs.count(organization.id)).toBe(0)
    })))
})

describe("an export for a principal", () => {
  it.effect("is the organization's export, for a key that may read subscribers, and refused to one that may not", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const exports = yield* SubscriberExports
      expect((yield* exports.openFor(principal, {})).subscriberCount).toBe(0)
      const tagsOnly = yield* keyFor(organization.id, ["tags:read"])
      expect(yield* Effect.flip(exports.openFor(tagsOnly, {}))).toMatchObject({ _tag: "MissingScope" })
    })))
})
