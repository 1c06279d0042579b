import { assert, expect, layer } from "@effect/vitest"
import {
  ImportJobRepository,
  type ImportProgress,
  ImportJobs,
  type Principal,
  SubscriberImports,
  SubscriberRepository,
  UnitOfWork
} from "@roster/application"
import {
  importFailure,
  ImportId,
  type ImportJob,
  MAX_REPORTED_PROBLEMS,
  noImportCounts,
  type OrganizationId,
  reason,
  rowProblem,
  type RowProblem,
  type UserId
} from "@roster/domain"
import { Chunk, Clock, Effect, Exit, Fiber, Layer, Option, Stream, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { CsvParseReaderLive } from "../../adapters/csv/index.js"
import { NodeIdsLive } from "../../adapters/node/index.js"
import {
  anEraOfItsOwn,
  deletingAfterwards,
  givenImportJob,
  givenOrganization,
  givenSubscriber,
  givenUser,
  instant,
  type PersistenceLayer
} from "./fixtures.js"

const bytes = (text: string) => new TextEncoder().encode(text)

const fileText = (id: ImportId) =>
  Effect.flatMap(ImportJobRepository, (jobs) =>
    Stream.runCollect(jobs.file(id)).pipe(
      Effect.map((parts) => [...parts].map((part) => new TextDecoder().decode(part)))
    ))

const problemsFrom = (line: number, count: number): ReadonlyArray<RowProblem> =>
  Array.from({ length: count }, (_, i) => rowProblem(line + i, "email", reason("cellEmpty")))

const progress = (fields: Partial<ImportProgress> & Pick<ImportProgress, "at" | "leaseUntil">): ImportProgress => ({
  recordsDone: 0,
  counts: noImportCounts,
  problems: [],
  ignoredColumns: [],
  ...fields
})

const jobsOver = (persistence: PersistenceLayer) =>
  ImportJobs.Default.pipe(
    Layer.provideMerge(SubscriberImports.Default),
    Layer.provideMerge(Layer.mergeAll(persistence, NodeIdsLive, CsvParseReaderLive))
  )

const principalOf = (organizationId: OrganizationId): Principal => ({
  organization: { id: organizationId, tier: "enterprise", isPlatformAdmin: false, requestsPerMinute: null },
  scopes: ["*"],
  credential: { kind: "api_key", id: randomUUID() as never, environment: "test" }
})

/** A person signed in to the organization's dashboard. */
const personIn = (organizationId: OrganizationId, userId: UserId): Principal => ({
  ...principalOf(organizationId),
  credential: { kind: "session", userId, role: "member", sessionId: randomUUID() }
})

/**
 * Imports sent over HTTP, as every database keeps them: their files a part at a time, claimed by
 * one worker at a time (another takes over once the lease runs out), their progress added batch by
 * batch in the batch's transaction, and nothing of them seen by other organizations.
 */
export const importJobRepositoryContract = (persistence: PersistenceLayer) => {
  layer(persistence)("ImportJobRepository", (it) => {
    it.effect("keeps an upload's file in order; only once it is all there is the import listed", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const [organization, other] = [yield* givenOrganization(), yield* givenOrganization()]
        yield* Effect.gen(function*() {
          const job = yield* givenImportJob(organization.id, { status: "receiving" })
          yield* jobs.appendPart(job.id, 0, bytes("email\nada@example.com\n"), instant(0))
          yield* jobs.appendPart(job.id, 1, bytes("grace@example.com\n"), instant(0))
          yield* jobs.appendPart(job.id, 2, new Uint8Array([0, 255, 10]), instant(0))
          expect(yield* fileText(job.id)).toStrictEqual(["email\nada@example.com\n", "grace@example.com\n", "\u0000\uFFFD\n"])
          const raw = yield* Stream.runCollect((yield* ImportJobRepository).file(job.id))
          expect([...Chunk.unsafeGet(raw, 2)]).toStrictEqual([0, 255, 10])

          expect(yield* jobs.find(organization.id, job.id)).toStrictEqual(Option.some(job))
          expect(yield* jobs.list({ organizationId: organization.id, limit: 10 })).toStrictEqual([])
          expect(yield* jobs.count(organization.id)).toBe(0)

          yield* jobs.markQueued(job.id, 43, instant(5))
          const queued = { ...job, status: "queued" as const, byteSize: 43, updatedAt: instant(5) }
          expect(yield* jobs.find(organization.id, job.id)).toStrictEqual(Option.some(queued))
          expect(yield* jobs.list({ organizationId: organization.id, limit: 10 })).toStrictEqual([queued])
          expect(yield* jobs.count(organization.id)).toBe(1)

          // Another organization sees nothing of it, but whose it is can be told.
          assert.isTrue(Option.isNone(yield* jobs.find(other.id, job.id)))
          expect(yield* jobs.list({ organizationId: other.id, limit: 10 })).toStrictEqual([])
          expect(yield* jobs.count(other.id)).toBe(0)
          expect(yield* jobs.organizationOf(job.id)).toStrictEqual(Option.some(organization.id))
          assert.isTrue(Option.isNone(yield* jobs.organizationOf(ImportId.make(randomUUID()))))
          expect(yield* fileText(ImportId.make(randomUUID()))).toStrictEqual([])
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("lists an organization's imports newest first, by keyset position or from an offset", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const made: Array<ImportJob> = []
          // Two at the same instant: the id decides between them.
          for (const at of [1, 2, 2, 3, 4]) made.push(yield* givenImportJob(organization.id, { createdAt: instant(at) }))
          yield* givenImportJob(organization.id, { createdAt: instant(5), status: "receiving" })
          const newestFirst = [...made].sort((a, b) =>
            b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
          )
          expect(yield* jobs.list({ organizationId: organization.id, limit: 10 })).toStrictEqual(newestFirst)
          expect(yield* jobs.count(organization.id)).toBe(5)
          const second = newestFirst[1]!
          expect(
            yield* jobs.list({
              organizationId: organization.id,
              limit: 2,
              after: { value: second.createdAt.toISOString(), id: second.id }
            })
          ).toStrictEqual(newestFirst.slice(2, 4))
          expect(yield* jobs.list({ organizationId: organization.id, limit: 2, offset: 3 })).toStrictEqual(newestFirst.slice(3, 5))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("claims the oldest waiting import first, each once, and a running one again once its lease ran out", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const newer = yield* givenImportJob(organization.id, { createdAt: era(2) })
          const older = yield* givenImportJob(organization.id, { createdAt: era(1) })
          yield* givenImportJob(organization.id, { createdAt: era(0), status: "receiving" })
          yield* givenImportJob(organization.id, { createdAt: era(0), status: "completed" })

          const first = yield* jobs.claim(era(10), era(40), randomUUID())
          expect(first).toStrictEqual(Option.some({ ...older, status: "running", startedAt: era(10), updatedAt: era(10) }))
          const second = yield* jobs.claim(era(11), era(41), randomUUID())
          expect(Option.map(second, (job) => job.id)).toStrictEqual(Option.some(newer.id))
          // Both are held: nothing else is due before the leases run out.
          expect(Option.map(yield* jobs.claim(era(39), era(69), randomUUID()), (job) => job.organizationId)).not.toStrictEqual(
            Option.some(organization.id)
          )

          // The first worker's lease ran out: another takes the import over, started when it first was.
          const takenOver = yield* jobs.claim(era(40), era(70), randomUUID())
          expect(takenOver).toStrictEqual(Option.some({ ...older, status: "running", startedAt: era(10), updatedAt: era(40) }))
          expect(Option.map(yield* jobs.claim(era(41), era(71), randomUUID()), (job) => job.id)).toStrictEqual(Option.some(newer.id))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("two workers claiming at once never take the same import", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const made = [yield* givenImportJob(organization.id, { createdAt: era(1) }), yield* givenImportJob(organization.id, { createdAt: era(2) })]
          const claimed = yield* Effect.all([jobs.claim(era(10), era(40), randomUUID()), jobs.claim(era(10), era(40), randomUUID())], { concurrency: 2 })
          expect(claimed.map((job) => Option.getOrThrow(job).id).sort()).toStrictEqual(made.map((job) => job.id).sort())
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("adds a batch's progress: counts and records replaced, problems kept in file order up to the most reported, all counted", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const job = yield* givenImportJob(organization.id, { createdAt: era(0) })
          const worker = randomUUID()
          yield* jobs.claim(era(1), era(31), worker)
          const counts = { ...noImportCounts, rows: 1500, created: 10, failed: MAX_REPORTED_PROBLEMS - 10 }
          yield* jobs.saveProgress(job.id, worker, progress({
            recordsDone: 1501,
            counts,
            problems: problemsFrom(2, MAX_REPORTED_PROBLEMS - 10),
            ignoredColumns: ["Member Rating"],
            at: era(2),
            leaseUntil: era(32)
          }))
          const later = { ...noImportCounts, rows: 3000, created: 2000, failed: MAX_REPORTED_PROBLEMS + 20 }
          const withAddress = rowProblem(2000, "status", reason("statusOneOf", { statuses: "active" }), "ada@example.com")
          yield* jobs.saveProgress(job.id, worker, progress({
            recordsDone: 3001,
            counts: later,
            problems: [withAddress, ...problemsFrom(2001, 29)],
            ignoredColumns: ["Member Rating"],
            at: era(3),
            leaseUntil: era(33)
          }))
          const saved = Option.getOrThrow(yield* jobs.find(organization.id, job.id))
          expect(saved).toStrictEqual({
            ...job,
            status: "running",
            startedAt: era(1),
            updatedAt: era(3),
            recordsDone: 3001,
            counts: later,
            problems: [...problemsFrom(2, MAX_REPORTED_PROBLEMS - 10), withAddress, ...problemsFrom(2001, 9)],
            problemCount: MAX_REPORTED_PROBLEMS + 20,
            ignoredColumns: ["Member Rating"]
          })
          // Full: later problems are only counted.
          yield* jobs.saveProgress(job.id, worker, progress({ recordsDone: 3002, counts: later, problems: problemsFrom(3001, 1), at: era(4), leaseUntil: era(34) }))
          const full = Option.getOrThrow(yield* jobs.find(organization.id, job.id))
          expect(full.problems).toStrictEqual(saved.problems)
          expect(full.problemCount).toBe(MAX_REPORTED_PROBLEMS + 21)
          // The lease moved with the progress: it is not due before era(34).
          expect(Option.map(yield* jobs.claim(era(33), era(63), randomUUID()), (j) => j.id)).not.toStrictEqual(Option.some(job.id))
          expect(Option.map(yield* jobs.claim(era(34), era(64), randomUUID()), (j) => j.id)).toStrictEqual(Option.some(job.id))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("progress saved in a transaction that fails is not kept", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const job = yield* givenImportJob(organization.id, { createdAt: era(0) })
          const worker = randomUUID()
          yield* jobs.claim(era(1), era(31), worker)
          const exit = yield* (yield* UnitOfWork).transaction(Effect.zipRight(
            jobs.saveProgress(job.id, worker, progress({ recordsDone: 10, problems: problemsFrom(2, 3), at: era(2), leaseUntil: era(32) })),
            Effect.fail("the batch failed")
          )).pipe(Effect.exit)
          expect(exit).toStrictEqual(Exit.fail("the batch failed"))
          const kept = Option.getOrThrow(yield* jobs.find(organization.id, job.id))
          expect([kept.recordsDone, kept.problemCount, kept.problems, kept.updatedAt]).toStrictEqual([0, 0, [], era(1)])
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a worker whose import was taken over can no longer save its progress, finish it or release it", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const job = yield* givenImportJob(organization.id, { createdAt: era(0) })
          const slow = randomUUID()
          yield* jobs.claim(era(1), era(31), slow)
          // Past its lease, but nobody took the import over: it is still the slow worker's.
          expect(yield* jobs.saveProgress(job.id, slow, progress({ recordsDone: 3, problems: problemsFrom(2, 1), at: era(35), leaseUntil: era(65) })))
            .toBe(true)

          const next = randomUUID()
          expect(Option.map(yield* jobs.claim(era(65), era(95), next), (j) => j.id)).toStrictEqual(Option.some(job.id))
          const takenOver = Option.getOrThrow(yield* jobs.find(organization.id, job.id))
          // The slow worker's late batch, its progress and its end change nothing.
          expect(yield* jobs.saveProgress(job.id, slow, progress({ recordsDone: 9, problems: problemsFrom(3, 2), at: era(66), leaseUntil: era(96) })))
            .toBe(false)
          expect(yield* jobs.finish(job.id, slow, null, era(67))).toBe(false)
          expect(yield* jobs.release(job.id, slow)).toBe(false)
          expect(yield* jobs.find(organization.id, job.id)).toStrictEqual(Option.some(takenOver))
          expect([takenOver.status, takenOver.recordsDone, takenOver.problemCount]).toStrictEqual(["running", 3, 1])
          // Nor does it make the import due again: the new lease holds.
          expect(Option.map(yield* jobs.claim(era(94), era(124), randomUUID()), (j) => j.id)).not.toStrictEqual(Option.some(job.id))

          // The worker that took it over goes on.
          expect(yield* jobs.saveProgress(job.id, next, progress({ recordsDone: 9, problems: problemsFrom(3, 2), at: era(68), leaseUntil: era(98) })))
            .toBe(true)
          expect(yield* jobs.finish(job.id, next, null, era(69))).toBe(true)
          const done = Option.getOrThrow(yield* jobs.find(organization.id, job.id))
          expect([done.status, done.recordsDone, done.problemCount, done.finishedAt]).toStrictEqual(["completed", 9, 3, era(69)])
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a late batch of a worker whose import was taken over is rolled back with its progress", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const job = yield* givenImportJob(organization.id, { createdAt: era(0) })
          const slow = randomUUID()
          yield* jobs.claim(era(1), era(31), slow)
          yield* jobs.claim(era(31), era(61), randomUUID())
          // The batch's write and its progress, as a run writes them: the progress refused, the batch goes too.
          const exit = yield* (yield* UnitOfWork).transaction(Effect.gen(function*() {
            yield* givenSubscriber(organization.id, { email: "late@example.com" })
            const saved = yield* jobs.saveProgress(job.id, slow, progress({ recordsDone: 2, at: era(32), leaseUntil: era(62) }))
            if (!saved) return yield* Effect.fail("taken over")
          })).pipe(Effect.exit)
          expect(exit).toStrictEqual(Exit.fail("taken over"))
          expect(yield* subscribers.count(organization.id, {})).toBe(0)
          expect(Option.getOrThrow(yield* jobs.find(organization.id, job.id)).recordsDone).toBe(0)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a released import goes back to the queue with its progress; a finished one forgets its file", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const job = yield* givenImportJob(organization.id, { createdAt: era(0), status: "receiving" })
          yield* jobs.appendPart(job.id, 0, bytes("email\n"), instant(0))
          yield* jobs.markQueued(job.id, 6, era(0))
          const worker = randomUUID()
          yield* jobs.claim(era(1), era(31), worker)
          const counts = { ...noImportCounts, rows: 2, created: 2 }
          expect(yield* jobs.saveProgress(job.id, worker, progress({ recordsDone: 3, counts, at: era(2), leaseUntil: era(32) }))).toBe(true)
          expect(yield* jobs.release(job.id, worker)).toBe(true)
          const released = Option.getOrThrow(yield* jobs.find(organization.id, job.id))
          expect([released.status, released.recordsDone, released.counts, released.startedAt]).toStrictEqual(["queued", 3, counts, era(1)])

          // Another worker takes it at once, where the first stopped.
          const next = randomUUID()
          const again = Option.getOrThrow(yield* jobs.claim(era(3), era(33), next))
          expect([again.id, again.recordsDone, again.counts]).toStrictEqual([job.id, 3, counts])
          expect(yield* fileText(job.id)).toStrictEqual(["email\n"])

          expect(yield* jobs.finish(job.id, next, null, era(4))).toBe(true)
          const done = Option.getOrThrow(yield* jobs.find(organization.id, job.id))
          expect(done).toStrictEqual({ ...again, status: "completed", finishedAt: era(4), updatedAt: era(4) })
          expect(yield* fileText(job.id)).toStrictEqual([])
          // Finished imports are never claimed, nor released, nor changed by a late batch.
          expect(yield* jobs.release(job.id, next)).toBe(false)
          expect(yield* jobs.saveProgress(job.id, next, progress({ recordsDone: 99, at: era(5), leaseUntil: era(35) }))).toBe(false)
          expect(yield* jobs.finish(job.id, next, importFailure(null, reason("fileEmpty")), era(5))).toBe(false)
          expect(yield* jobs.find(organization.id, job.id)).toStrictEqual(Option.some(done))
          expect(Option.map(yield* jobs.claim(era(100), era(130), randomUUID()), (j) => j.id)).not.toStrictEqual(Option.some(job.id))

          const broken = yield* givenImportJob(organization.id, { createdAt: era(6) })
          const third = randomUUID()
          yield* jobs.claim(era(7), era(37), third)
          expect(yield* jobs.finish(broken.id, third, importFailure(12, reason("quoteNotClosed")), era(8))).toBe(true)
          const failed = Option.getOrThrow(yield* jobs.find(organization.id, broken.id))
          expect([failed.status, failed.failure, failed.finishedAt]).toStrictEqual(["failed", {
            line: 12,
            reason: reason("quoteNotClosed"),
            problem: "a quoted cell starts on this line and is never closed"
          }, era(8)])
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("forgets addresses in the problem rows of the organization's imports, in any letter case; other rows and organizations keep theirs", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const [organization, other] = [yield* givenOrganization(), yield* givenOrganization()]
        yield* Effect.gen(function*() {
          const active = reason("statusOneOf", { statuses: "active" })
          const ada = (line: number) => rowProblem(line, "status", active, "Ada@Example.com")
          const grace = rowProblem(3, "tags", reason("rowTooManyTags", { max: 50 }), "grace@example.com")
          const blank = rowProblem(4, "email", reason("cellEmpty"))
          const named = yield* givenImportJob(organization.id, { status: "completed", problems: [ada(2), grace, blank, ada(9)], problemCount: 4 })
          const unnamed = yield* givenImportJob(organization.id, { status: "completed", problems: [grace], problemCount: 1 })
          const elsewhere = yield* givenImportJob(other.id, { status: "completed", problems: [ada(2)], problemCount: 1 })

          expect(yield* jobs.forgetAddresses(organization.id, ["ada@example.COM", "nobody@example.com"])).toBe(1)
          const forgotten = Option.getOrThrow(yield* jobs.find(organization.id, named.id))
          const withoutAddress = (line: number) => rowProblem(line, "status", active)
          expect(forgotten).toStrictEqual({ ...named, problems: [withoutAddress(2), grace, blank, withoutAddress(9)] })
          expect(yield* jobs.find(organization.id, unnamed.id)).toStrictEqual(Option.some(unnamed))
          expect(yield* jobs.find(other.id, elsewhere.id)).toStrictEqual(Option.some(elsewhere))
          // Nothing left to forget, or nothing asked.
          expect(yield* jobs.forgetAddresses(organization.id, ["ada@example.com"])).toBe(0)
          expect(yield* jobs.forgetAddresses(organization.id, [])).toBe(0)
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("drops the problem rows of imports that ended before a time, a batch at a time; their counts stay", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        // Ended before every other test's imports: this test's are the first dropped.
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const problems = problemsFrom(2, 3)
          const ended = (at: number, status: "completed" | "failed") =>
            givenImportJob(organization.id, { status, problems, problemCount: 3, finishedAt: era(at), counts: { ...noImportCounts, rows: 3, failed: 3 } })
          const old = [yield* ended(10, "completed"), yield* ended(20, "failed")]
          const recent = yield* ended(100, "completed")
          const running = yield* givenImportJob(organization.id, { status: "running", problems, problemCount: 3 })

          expect(yield* jobs.dropProblems(era(50), 1)).toBe(1)
          expect(yield* jobs.dropProblems(era(50), 10)).toBeGreaterThanOrEqual(1)
          for (const job of old) {
            expect(yield* jobs.find(organization.id, job.id)).toStrictEqual(Option.some({ ...job, problems: [] }))
          }
          expect(yield* jobs.find(organization.id, recent.id)).toStrictEqual(Option.some(recent))
          expect(yield* jobs.find(organization.id, running.id)).toStrictEqual(Option.some(running))
          expect(yield* jobs.dropProblems(era(50), 10)).toBe(0)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("gives up uploads that stopped coming in, with their parts; queued imports and recent uploads stay", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const broken = yield* givenImportJob(organization.id, { status: "receiving", updatedAt: instant(10) })
          yield* jobs.appendPart(broken.id, 0, bytes("email\n"), instant(0))
          const coming = yield* givenImportJob(organization.id, { status: "receiving", updatedAt: instant(100) })
          const queued = yield* givenImportJob(organization.id, { status: "queued", updatedAt: instant(10) })
          const discarded = yield* jobs.discardAbandoned(instant(50))
          expect(discarded).toBeGreaterThanOrEqual(1)
          assert.isTrue(Option.isNone(yield* jobs.find(organization.id, broken.id)))
          expect(yield* fileText(broken.id)).toStrictEqual([])
          assert.isTrue(Option.isSome(yield* jobs.find(organization.id, coming.id)))
          assert.isTrue(Option.isSome(yield* jobs.find(organization.id, queued.id)))

          yield* jobs.discard(coming.id)
          assert.isTrue(Option.isNone(yield* jobs.find(organization.id, coming.id)))
          assert.isTrue(Option.isNone(yield* jobs.organizationOf(coming.id)))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("an upload whose parts keep coming is not given up; a part for an upload given up is refused and kept nowhere", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const slow = yield* givenImportJob(organization.id, { status: "receiving", updatedAt: instant(10) })
          expect(yield* jobs.appendPart(slow.id, 0, bytes("email\n"), instant(60))).toBe(true)
          yield* jobs.discardAbandoned(instant(50))
          expect(Option.getOrThrow(yield* jobs.find(organization.id, slow.id)).updatedAt).toStrictEqual(instant(60))
          expect(yield* fileText(slow.id)).toStrictEqual(["email\n"])

          yield* jobs.discardAbandoned(instant(70))
          assert.isTrue(Option.isNone(yield* jobs.find(organization.id, slow.id)))
          expect(yield* jobs.appendPart(slow.id, 1, bytes("ada@example.com\n"), instant(80))).toBe(false)
          expect(yield* fileText(slow.id)).toStrictEqual([])

          const queued = yield* givenImportJob(organization.id, { status: "queued", updatedAt: instant(10) })
          expect(yield* jobs.appendPart(queued.id, 0, bytes("email\n"), instant(80))).toBe(false)
          expect(yield* fileText(queued.id)).toStrictEqual([])
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a draft waits, its file all there, for the person who uploaded it: never claimed nor listed, found by them alone", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const [organization, other] = [yield* givenOrganization(), yield* givenOrganization()]
        const [ada, grace] = [yield* givenUser(), yield* givenUser()]
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const job = yield* givenImportJob(organization.id, { status: "receiving", createdAt: era(0), updatedAt: era(0) })
          yield* jobs.appendPart(job.id, 0, bytes("email\nada@example.com\n"), instant(0))
          const key = { organizationId: organization.id, heldBy: ada.id, id: job.id }
          // Under way, it is no draft yet.
          assert.isTrue(Option.isNone(yield* jobs.findDraft(key)))

          yield* jobs.markDraft(job.id, ada.id, 22, era(5))
          const draft = { ...job, byteSize: 22, updatedAt: era(5) }
          expect(yield* jobs.findDraft(key)).toStrictEqual(Option.some(draft))
          expect(yield* jobs.find(organization.id, job.id)).toStrictEqual(Option.some(draft))
          expect(yield* fileText(job.id)).toStrictEqual(["email\nada@example.com\n"])
          // Nobody else finds it: another person, no person, another organization, another id.
          for (const stranger of [{ ...key, heldBy: grace.id }, { ...key, heldBy: null }, { ...key, organizationId: other.id }, { ...key, id: ImportId.make(randomUUID()) }]) {
            assert.isTrue(Option.isNone(yield* jobs.findDraft(stranger)))
            expect(yield* jobs.discardDraft(stranger)).toBe(false)
            assert.isTrue(Option.isNone(yield* jobs.queueDraft(stranger, job.options, era(6))))
          }
          // No worker takes it, though it is older than an import waiting; no list shows it.
          const waiting = yield* givenImportJob(organization.id, { createdAt: era(1) })
          expect(Option.map(yield* jobs.claim(era(10), era(40), randomUUID()), (claimed) => claimed.id)).toStrictEqual(Option.some(waiting.id))
          expect((yield* jobs.list({ organizationId: organization.id, limit: 10 })).map((listed) => listed.id)).toStrictEqual([waiting.id])
          expect(yield* jobs.count(organization.id)).toBe(1)
          expect(yield* jobs.findDraft(key)).toStrictEqual(Option.some(draft))
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("a draft started waits for a worker with the options chosen, once; a draft given up is gone with its file", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        const ada = yield* givenUser()
        const era = anEraOfItsOwn()
        yield* Effect.gen(function*() {
          const started = yield* givenImportJob(organization.id, { status: "receiving", createdAt: era(0), updatedAt: era(0) })
          yield* jobs.appendPart(started.id, 0, bytes("email\n"), instant(0))
          yield* jobs.markDraft(started.id, ada.id, 6, era(1))
          const key = { organizationId: organization.id, heldBy: ada.id, id: started.id }
          const options = { resubscribe: true, createTags: false, encoding: "windows-1252" }
          const queued = { ...started, status: "queued" as const, byteSize: 6, options, updatedAt: era(2) }
          expect(yield* jobs.queueDraft(key, options, era(2))).toStrictEqual(Option.some(queued))
          expect(yield* jobs.find(organization.id, started.id)).toStrictEqual(Option.some(queued))
          // Started, it is a draft no more: neither started again nor given up as one.
          assert.isTrue(Option.isNone(yield* jobs.findDraft(key)))
          assert.isTrue(Option.isNone(yield* jobs.queueDraft(key, options, era(3))))
          expect(yield* jobs.discardDraft(key)).toBe(false)
          expect(yield* jobs.list({ organizationId: organization.id, limit: 10 })).toStrictEqual([queued])
          const claimed = yield* jobs.claim(era(10), era(40), randomUUID())
          expect(Option.map(claimed, (job) => [job.id, job.options])).toStrictEqual(Option.some([started.id, options]))
          expect(yield* fileText(started.id)).toStrictEqual(["email\n"])

          // One held by no person (uploaded with an API key) is found by no person only.
          const given = yield* givenImportJob(organization.id, { status: "receiving", createdAt: era(0), updatedAt: era(0) })
          yield* jobs.appendPart(given.id, 0, bytes("email\n"), instant(0))
          yield* jobs.markDraft(given.id, null, 6, era(1))
          const givenKey = { organizationId: organization.id, heldBy: null, id: given.id }
          expect(yield* jobs.discardDraft({ ...givenKey, heldBy: ada.id })).toBe(false)
          expect(yield* jobs.discardDraft(givenKey)).toBe(true)
          assert.isTrue(Option.isNone(yield* jobs.find(organization.id, given.id)))
          expect(yield* fileText(given.id)).toStrictEqual([])
          expect(yield* jobs.discardDraft(givenKey)).toBe(false)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a draft nobody started is given up with uploads that broke off, by when its file came in", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        const ada = yield* givenUser()
        yield* Effect.gen(function*() {
          const draftAt = (at: number) =>
            Effect.gen(function*() {
              // Its upload began long before its file was all there.
              const job = yield* givenImportJob(organization.id, { status: "receiving", updatedAt: instant(0) })
              yield* jobs.appendPart(job.id, 0, bytes("email\n"), instant(0))
              yield* jobs.markDraft(job.id, ada.id, 6, instant(at))
              return { organizationId: organization.id, heldBy: ada.id, id: job.id }
            })
          const old = yield* draftAt(10)
          const recent = yield* draftAt(100)
          expect(yield* jobs.discardAbandoned(instant(50))).toBeGreaterThanOrEqual(1)
          assert.isTrue(Option.isNone(yield* jobs.findDraft(old)))
          expect(yield* fileText(old.id)).toStrictEqual([])
          assert.isTrue(Option.isSome(yield* jobs.findDraft(recent)))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("an organization's imports and their files go with it", () =>
      Effect.gen(function*() {
        const jobs = yield* ImportJobRepository
        const [deleted, kept] = [yield* givenOrganization(), yield* givenOrganization()]
        yield* Effect.gen(function*() {
          const gone = yield* givenImportJob(deleted.id, { status: "receiving", updatedAt: instant(0) })
          yield* jobs.appendPart(gone.id, 0, bytes("email\n"), instant(0))
          const stays = yield* givenImportJob(kept.id, { status: "receiving", updatedAt: instant(0) })
          yield* jobs.appendPart(stays.id, 0, bytes("email\n"), instant(0))
          yield* deletingAfterwards([deleted.id])(Effect.void)
          assert.isTrue(Option.isNone(yield* jobs.organizationOf(gone.id)))
          expect(yield* fileText(gone.id)).toStrictEqual([])
          expect(yield* jobs.count(deleted.id)).toBe(0)
          expect(yield* jobs.find(kept.id, stays.id)).toStrictEqual(Option.some(stays))
          expect(yield* fileText(stays.id)).toStrictEqual(["email\n"])
        }).pipe(deletingAfterwards([kept.id]))
      }))
  })

  layer(jobsOver(persistence))("ImportJobs over the repository", (it) => {
    const csv = (lines: ReadonlyArray<string>) => Stream.make(bytes(lines.map((line) => `${line}\n`).join("")))

    /** Runs imports until none is waiting; a leftover of another test is run too (it belongs to nobody here). */
    const runAll = Effect.flatMap(ImportJobs, (imports) =>
      Effect.iterate(1, { while: (ran) => ran > 0, body: () => imports.runNext(30_000) }))

    it.effect("an upload is kept, queued and run to its end by a worker, its problems reported by line", () =>
      Effect.gen(function*() {
        const imports = yield* ImportJobs
        const organization = yield* givenOrganization({ tier: "enterprise" })
        yield* Effect.gen(function*() {
          const principal = principalOf(organization.id)
          const started = yield* imports.start(principal, {
            fileName: "list.csv",
            bytes: csv(["email,first_name,Member Rating", "ada@example.com,Ada,5", "not an address,Bob,3", "grace@example.com,Grace,4"]),
            resubscribe: false,
            maxBytes: 1024
          })
          expect([started.status, started.fileName, started.byteSize]).toStrictEqual(["queued", "list.csv", 100])
          yield* runAll
          const done = yield* imports.get(principal, started.id)
          expect(done.status).toBe("completed")
          expect(done.counts).toStrictEqual({ ...noImportCounts, rows: 3, created: 2, failed: 1 })
          expect(done.problems).toStrictEqual([{ line: 3, field: "email", reason: expect.any(Object), problem: expect.any(String) }])
          expect([done.problemCount, done.ignoredColumns, done.recordsDone]).toStrictEqual([1, ["Member Rating"], 4])
          const subscribers = yield* SubscriberRepository
          expect(yield* subscribers.count(organization.id, {})).toBe(2)
          expect(yield* fileText(started.id)).toStrictEqual([])
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a file over the limit, or one that breaks off, leaves nothing behind", () =>
      Effect.gen(function*() {
        const imports = yield* ImportJobs
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const principal = principalOf(organization.id)
          const tooLarge = yield* imports.start(principal, {
            fileName: null,
            bytes: Stream.make(bytes("email\n"), bytes("ada@example.com\n")),
            resubscribe: false,
            maxBytes: 10
          }).pipe(Effect.exit)
          expect(tooLarge).toStrictEqual(Exit.fail(expect.objectContaining({ _tag: "UploadTooLarge", maxBytes: 10 })))
          const broken = yield* imports.start(principal, {
            fileName: null,
            bytes: Stream.concat(Stream.make(bytes("email\n")), Stream.fail("the connection closed")),
            resubscribe: false,
            maxBytes: 1024
          }).pipe(Effect.exit)
          expect(broken).toStrictEqual(Exit.fail("the connection closed"))
          expect(yield* jobs.count(organization.id)).toBe(0)
          // Not even as an upload in progress.
          expect(yield* jobs.discardAbandoned(new Date(Date.UTC(2100, 0, 1)))).toBe(0)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a draft is previewed and started by the person who uploaded it, with the options they chose, and run by a worker", () =>
      Effect.gen(function*() {
        const imports = yield* ImportJobs
        const organization = yield* givenOrganization({ tier: "enterprise" })
        const [ada, grace] = [yield* givenUser(), yield* givenUser()]
        yield* Effect.gen(function*() {
          const uploader = personIn(organization.id, ada.id)
          const draft = yield* imports.draft(uploader, {
            fileName: "list.csv",
            bytes: csv(["email,first_name,Member Rating", "ada@example.com,Ada,5", "not an address,Bob,3", "grace@example.com,Grace,4"]),
            maxBytes: 1024
          })
          expect([draft.status, draft.fileName, draft.byteSize]).toStrictEqual(["receiving", "list.csv", 100])
          // A worker passes it by.
          yield* runAll
          const { job, preview } = yield* imports.previewDraft(uploader, draft.id, 1)
          expect(job).toStrictEqual(draft)
          expect([preview.header, preview.rowCount, preview.rows.map((row) => row.line)]).toStrictEqual([
            ["email", "first_name", "Member Rating"],
            3,
            [2]
          ])

          // Another person of the organization, or an API key of it, has no such draft.
          for (const other of [personIn(organization.id, grace.id), principalOf(organization.id)]) {
            expect(yield* Effect.flip(imports.previewDraft(other, draft.id, 1))).toMatchObject({ _tag: "ResourceNotFound", resource: "import" })
            expect(yield* Effect.flip(imports.startDraft(other, draft.id, { resubscribe: false }))).toMatchObject({ _tag: "ResourceNotFound" })
            yield* imports.discardDraft(other, draft.id)
          }

          const started = yield* imports.startDraft(uploader, draft.id, { resubscribe: true })
          expect([started.status, started.options.resubscribe, started.byteSize]).toStrictEqual(["queued", true, 100])
          // Once.
          expect(yield* Effect.flip(imports.startDraft(uploader, draft.id, { resubscribe: true }))).toMatchObject({ _tag: "ResourceNotFound" })
          expect(yield* Effect.flip(imports.previewDraft(uploader, draft.id, 1))).toMatchObject({ _tag: "ResourceNotFound" })
          yield* runAll
          const done = yield* imports.get(uploader, draft.id)
          expect([done.status, done.counts]).toStrictEqual(["completed", { ...noImportCounts, rows: 3, created: 2, failed: 1 }])
          expect(yield* fileText(draft.id)).toStrictEqual([])
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a draft can be started for an hour after its file came in; then it is gone, and the workers' clean-up takes it", () =>
      Effect.gen(function*() {
        const imports = yield* ImportJobs
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        const ada = yield* givenUser()
        yield* Effect.gen(function*() {
          const uploader = personIn(organization.id, ada.id)
          // The test clock starts in 1970: the workers' clean-up finds no other test's upload so old.
          const draftNow = imports.draft(uploader, { fileName: null, bytes: csv(["email", "ada@example.com"]), maxBytes: 1024 })
          const kept = yield* draftNow
          const late = yield* draftNow
          yield* TestClock.adjust("59 minutes")
          yield* runAll
          expect((yield* imports.previewDraft(uploader, kept.id, 5)).job.id).toBe(kept.id)
          expect((yield* imports.startDraft(uploader, kept.id, { resubscribe: false })).status).toBe("queued")
          yield* TestClock.adjust("1 minute")
          expect(yield* Effect.flip(imports.previewDraft(uploader, late.id, 5))).toMatchObject({ _tag: "ResourceNotFound" })
          expect(yield* Effect.flip(imports.startDraft(uploader, late.id, { resubscribe: false }))).toMatchObject({ _tag: "ResourceNotFound" })
          yield* TestClock.adjust("1 second")
          yield* runAll
          assert.isTrue(Option.isNone(yield* jobs.find(organization.id, late.id)))
          expect(yield* fileText(late.id)).toStrictEqual([])
          expect((yield* imports.get(uploader, kept.id)).status).toBe("completed")
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a draft over the limit, or whose upload breaks off or stalls, leaves nothing behind; one given up is gone", () =>
      Effect.gen(function*() {
        const imports = yield* ImportJobs
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization()
        const ada = yield* givenUser()
        yield* Effect.gen(function*() {
          const uploader = personIn(organization.id, ada.id)
          const tooLarge = yield* imports.draft(uploader, { fileName: null, bytes: csv(["email", "ada@example.com"]), maxBytes: 10 }).pipe(Effect.exit)
          expect(tooLarge).toStrictEqual(Exit.fail(expect.objectContaining({ _tag: "UploadTooLarge", maxBytes: 10 })))
          const stalled = yield* imports.draft(uploader, {
            fileName: null,
            bytes: Stream.concat(Stream.make(bytes("email\n")), Stream.fail("stalled" as const)),
            maxBytes: 1024
          }).pipe(Effect.exit)
          expect(stalled).toStrictEqual(Exit.fail("stalled"))
          expect(yield* jobs.discardAbandoned(new Date(Date.UTC(2100, 0, 1)))).toBe(0)

          const given = yield* imports.draft(uploader, { fileName: null, bytes: csv(["email", "ada@example.com"]), maxBytes: 1024 })
          yield* imports.discardDraft(uploader, given.id)
          assert.isTrue(Option.isNone(yield* jobs.find(organization.id, given.id)))
          expect(yield* Effect.flip(imports.startDraft(uploader, given.id, { resubscribe: false }))).toMatchObject({ _tag: "ResourceNotFound" })
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a run whose import another worker took over keeps nothing of its batch and leaves the import to that worker", () =>
      Effect.gen(function*() {
        const imports = yield* ImportJobs
        const jobs = yield* ImportJobRepository
        const organization = yield* givenOrganization({ tier: "enterprise" })
        yield* Effect.gen(function*() {
          const principal = principalOf(organization.id)
          const started = yield* imports.start(principal, {
            fileName: null,
            bytes: csv(["email", "ada@example.com", "grace@example.com"]),
            resubscribe: false,
            maxBytes: 1024
          })
          // This run is slower than its lease: by the time it reads the file, another worker has the import.
          const other = randomUUID()
          const takenOver: Array<Option.Option<ImportId>> = []
          const slowRepository = ImportJobRepository.of({
            ...jobs,
            file: (id) =>
              Stream.unwrap(Effect.gen(function*() {
                const at = yield* Clock.currentTimeMillis
                takenOver.push(Option.map(yield* jobs.claim(new Date(at + 30_001), new Date(at + 60_000), other), (job) => job.id))
                return jobs.file(id)
              }))
          })
          const ran = yield* Effect.flatMap(ImportJobs, (slow) => slow.runNext(30_000)).pipe(
            Effect.provide(ImportJobs.Default),
            Effect.provideService(ImportJobRepository, slowRepository)
          )
          expect([ran, takenOver]).toStrictEqual([1, [Option.some(started.id)]])
          // Its batch was rolled back, and the import is neither finished nor released: it is the other worker's.
          const left = yield* imports.get(principal, started.id)
          expect([left.status, left.recordsDone, left.counts]).toStrictEqual(["running", 0, noImportCounts])
          expect(yield* (yield* SubscriberRepository).count(organization.id, {})).toBe(0)
          expect(yield* fileText(started.id)).not.toStrictEqual([])

          // The other worker hands it back; the next run imports every row once.
          expect(yield* jobs.release(started.id, other)).toBe(true)
          yield* runAll
          const done = yield* imports.get(principal, started.id)
          expect([done.status, done.counts]).toStrictEqual(["completed", { ...noImportCounts, rows: 2, created: 2 }])
          expect(yield* (yield* SubscriberRepository).count(organization.id, {})).toBe(2)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("an ended import's problem rows are dropped once they are 30 days old; its counts stay", () =>
      Effect.gen(function*() {
        const imports = yield* ImportJobs
        const organization = yield* givenOrganization()
        const era = anEraOfItsOwn()
        const day = 24 * 3_600
        yield* Effect.gen(function*() {
          const principal = principalOf(organization.id)
          const ended = (at: number) =>
            givenImportJob(organization.id, { status: "completed", problems: problemsFrom(2, 2), problemCount: 2, finishedAt: era(at) })
          const old = yield* ended(0)
          const recent = yield* ended(day + 1)
          yield* TestClock.setTime(era(31 * day).getTime())
          expect(yield* imports.pruneProblems(100)).toBeGreaterThanOrEqual(1)
          const dropped = yield* imports.get(principal, old.id)
          expect([dropped.problems, dropped.problemCount]).toStrictEqual([[], 2])
          expect((yield* imports.get(principal, recent.id)).problems).toStrictEqual(problemsFrom(2, 2))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("an import stopped between batches goes back to the queue and is finished by the next run without counting twice", () =>
      Effect.gen(function*() {
        const imports = yield* ImportJobs
        const organization = yield* givenOrganization({ tier: "enterprise" })
        yield* Effect.gen(function*() {
          const principal = principalOf(organization.id)
          const rows = Array.from({ length: 6_000 }, (_, i) => `reader${i}@example.com`)
          const started = yield* imports.start(principal, { fileName: null, bytes: csv(["email", ...rows]), resubscribe: false, maxBytes: 1 << 20 })
          // The first batch is written, then the run is stopped.
          const run = yield* Effect.fork(imports.runNext(30_000))
          for (let polls = 0; polls < 100_000; polls++) {
            if ((yield* imports.get(principal, started.id)).recordsDone > 0) break
            yield* Effect.yieldNow()
          }
          yield* Fiber.interrupt(run)
          const stopped = yield* imports.get(principal, started.id)
          // Stopped after the batch in hand, which it saved: back in the queue, part done.
          expect(stopped.status).toBe("queued")
          expect(stopped.recordsDone).toBeGreaterThan(0)
          expect(stopped.recordsDone).toBeLessThan(6_001)
          expect(stopped.counts.created).toBe(stopped.recordsDone - 1)
          yield* runAll
          const done = yield* imports.get(principal, started.id)
          expect([done.status, done.counts.rows, done.counts.created, done.problemCount]).toStrictEqual(["completed", 6_000, 6_000, 0])
          expect(yield* (yield* SubscriberRepository).count(organization.id, {})).toBe(6_000)
        }).pipe(deletingAfterwards([organization.id]))
      }))
  })
}
