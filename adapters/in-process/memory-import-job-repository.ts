import { type DraftKey, ImportJobRepository } from "@roster/application"
import { emailKey, type ImportJob, MAX_REPORTED_PROBLEMS, type RowProblem } from "@roster/domain"
import { Array, Effect, Layer, Option, Stream } from "effect"
import { MemoryStore, type StoredImportJob, type Tables } from "./memory-store.js"
import { changeHeld, claimDue } from "./memory-work-queue.js"
import { compareBy, instant, isAfter } from "./ordering.js"

/** A problem as it is kept: the row's address only when it has one. */
const storedProblem = (p: RowProblem): RowProblem => ({
  line: p.line,
  field: p.field,
  reason: p.reason,
  problem: p.problem,
  ...(p.email === undefined ? {} : { email: p.email })
})

/** Changes the import by `f`, unless `f` leaves it as it is (undefined); whether it changed. */
const change = (t: Tables, id: string, f: (stored: StoredImportJob) => StoredImportJob | undefined): boolean => {
  const stored = t.importJobs.get(id)
  if (stored === undefined) return false
  const changed = f(stored)
  if (changed === undefined) return false
  t.importJobs.set(id, changed)
  return true
}

/** Changes the running import by `f` while it is still the worker's that claimed it with `leaseToken`; whether it did. */
const whileHeld = (t: Tables, id: string, leaseToken: string, f: (stored: StoredImportJob) => StoredImportJob): boolean =>
  changeHeld(t.importJobs, { token: leaseToken, tokenOf: (stored) => stored.leaseToken, keys: [id], where: running }, f).length > 0

const running = (stored: StoredImportJob) => stored.job.status === "running"

/** The draft the key names, if there is one. */
const draftOf = (t: Tables, key: DraftKey): StoredImportJob | undefined => {
  const stored = t.importJobs.get(key.id)
  return stored !== undefined && stored.draft !== null && stored.draft.heldBy === key.heldBy &&
      stored.job.organizationId === key.organizationId && stored.job.status === "receiving"
    ? stored
    : undefined
}

const createdAt = (job: ImportJob): number => job.createdAt.getTime()
const oldestFirst = compareBy(createdAt, "asc")

/** Imports sent over HTTP over the memory store, their files' parts with them. */
export const MemoryImportJobRepositoryLive = Layer.effect(
  ImportJobRepository,
  Effect.map(MemoryStore, (store) => {
    const listed = (t: Tables, organizationId: string) =>
      [...t.importJobs.values()]
        .map(({ job }) => job)
        .filter((job) => job.organizationId === organizationId && job.status !== "receiving")

    return ImportJobRepository.of({
      insert: (job) =>
        store.write((t) => {
          t.importJobs.set(job.id, { job: { ...job, problems: job.problems.map(storedProblem) }, parts: [], leaseUntil: null, leaseToken: null, draft: null })
        }),

      appendPart: (id, part, bytes, at) =>
        store.write((t) =>
          change(t, id, (stored) => {
            if (stored.job.status !== "receiving") return undefined
            const parts = [...stored.parts]
            parts[part] = bytes
            return { ...stored, parts, job: { ...stored.job, updatedAt: at } }
          })
        ),

      markQueued: (id, byteSize, at) =>
        store.write((t) =>
          change(t, id, (stored) =>
            stored.job.status !== "receiving"
              ? undefined
              : { ...stored, job: { ...stored.job, status: "queued", byteSize, updatedAt: at } })
        ),

      markDraft: (id, heldBy, byteSize, at) =>
        store.write((t) =>
          change(t, id, (stored) =>
            stored.job.status !== "receiving"
              ? undefined
              : { ...stored, job: { ...stored.job, byteSize, updatedAt: at }, draft: { heldBy } })
        ),

      findDraft: (key) => store.read((t) => Option.fromNullable(draftOf(t, key)?.job)),

      queueDraft: (key, options, at) =>
        store.write((t) => {
          const stored = draftOf(t, key)
          if (stored === undefined) return Option.none()
          const job: ImportJob = { ...stored.job, status: "queued", options, updatedAt: at }
          t.importJobs.set(job.id, { ...stored, job, draft: null })
          return Option.some(job)
        }),

      discardDraft: (key) => store.write((t) => draftOf(t, key) !== undefined && t.importJobs.delete(key.id)),

      discard: (id) => store.write((t) => void t.importJobs.delete(id)),

      discardAbandoned: (before) =>
        store.write((t) => {
          let discarded = 0
          for (const { job } of t.importJobs.values()) {
            if (job.status === "receiving" && job.updatedAt.getTime() < before.getTime()) {
              t.importJobs.delete(job.id)
              discarded++
            }
          }
          return discarded
        }),

      find: (organizationId, id) =>
        store.read((t) => Option.fromNullable(t.importJobs.get(id)?.job).pipe(Option.filter((job) => job.organizationId === organizationId))),

      organizationOf: (id) => store.read((t) => Option.fromNullable(t.importJobs.get(id)?.job.organizationId)),

      list: (query) =>
        store.read((t) => {
          const after = query.after && { value: instant(query.after.value), id: query.after.id }
          const offset = query.offset ?? 0
          return listed(t, query.organizationId)
            .filter((job) => after === undefined || isAfter(job, createdAt, after, "desc"))
            .sort(compareBy(createdAt, "desc"))
            .slice(offset, offset + query.limit)
        }),

      count: (organizationId) => store.read((t) => listed(t, organizationId).length),

      claim: (now, leaseUntil, leaseToken) =>
        store.write((t) =>
          Array.head(claimDue(t.importJobs, ({ job }) => job.id, {
            claimable: ({ job, leaseUntil: held }) =>
              job.status === "queued" || (job.status === "running" && held !== null && held.getTime() <= now.getTime()),
            order: (a, b) => oldestFirst(a.job, b.job),
            limit: 1
          }, (stored) => {
            const job: ImportJob = { ...stored.job, status: "running", startedAt: stored.job.startedAt ?? now, updatedAt: now }
            return [{ ...stored, job, leaseUntil, leaseToken }, job]
          }))
        ),

      file: (id) =>
        Stream.unfoldEffect(0, (part) =>
          store.read((t) =>
            Option.fromNullable(t.importJobs.get(id)?.parts[part]).pipe(Option.map((bytes) => [bytes, part + 1] as const))
          )),

      saveProgress: (id, leaseToken, progress) =>
        store.write((t) =>
          whileHeld(t, id, leaseToken, (stored) => {
            const room = Math.max(0, MAX_REPORTED_PROBLEMS - stored.job.problems.length)
            const job: ImportJob = {
              ...stored.job,
              recordsDone: progress.recordsDone,
              counts: progress.counts,
              problems: [...stored.job.problems, ...progress.problems.slice(0, room).map(storedProblem)],
              problemCount: stored.job.problemCount + progress.problems.length,
              ignoredColumns: progress.ignoredColumns,
              updatedAt: progress.at
            }
            return { ...stored, job, leaseUntil: progress.leaseUntil }
          })
        ),

      finish: (id, leaseToken, failure, at) =>
        store.write((t) =>
          whileHeld(t, id, leaseToken, (stored) => ({
            job: {
              ...stored.job,
              status: failure === null ? "completed" : "failed",
              failure: failure === null ? null : { line: failure.line, reason: failure.reason, problem: failure.problem },
              finishedAt: at,
              updatedAt: at
            },
            parts: [],
            leaseUntil: null,
            leaseToken: null,
            draft: null
          }))
        ),

      release: (id, leaseToken) =>
        store.write((t) =>
          whileHeld(t, id, leaseToken, (stored) => ({ ...stored, job: { ...stored.job, status: "queued" }, leaseUntil: null, leaseToken: null }))
        ),

      forgetAddresses: (organizationId, addresses) =>
        store.write((t) => {
          const forgotten = new Set(addresses.map(emailKey))
          const named = (p: RowProblem) => p.email !== undefined && forgotten.has(emailKey(p.email))
          let changed = 0
          for (const stored of t.importJobs.values()) {
            if (stored.job.organizationId !== organizationId || !stored.job.problems.some(named)) continue
            const problems = stored.job.problems.map((p) => named(p) ? { line: p.line, field: p.field, reason: p.reason, problem: p.problem } : p)
            t.importJobs.set(stored.job.id, { ...stored, job: { ...stored.job, problems } })
            changed++
          }
          return changed
        }),

      dropProblems: (before, limit) =>
        store.write((t) => {
          let dropped = 0
          for (const stored of t.importJobs.values()) {
            if (dropped >= limit) break
            const { finishedAt, problems } = stored.job
            if (finishedAt === null || finishedAt.getTime() >= before.getTime() || problems.length === 0) continue
            t.importJobs.set(stored.job.id, { ...stored, job: { ...stored.job, problems: [] } })
            dropped++
          }
          return dropped
        })
    })
  })
)
