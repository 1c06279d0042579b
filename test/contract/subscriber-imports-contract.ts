import { assert, expect, layer } from "@effect/vitest"
import {
  IMPORT_BATCH_SIZE,
  type ImportBatchReport,
  OrganizationRepository,
  Outbox,
  type ImportBatch,
  SubscriberImports,
  SubscriberImportStore,
  type SubscriberImportOptions,
  SubscriberRepository,
  TagAssignments,
  TagRepository
} from "@roster/application"
import {
  DomainEvent,
  EventId,
  MAX_TAGS_PER_ORGANIZATION,
  type Organization,
  planLimits,
  reason,
  type Subscriber,
  type Tag
} from "@roster/domain"
import { randomUUID } from "node:crypto"
import { Effect, Layer, Option, Stream } from "effect"
import { CsvParseReaderLive } from "../../adapters/csv/index.js"
import { NodeIdsLive } from "../../adapters/node/index.js"
import { aSubscriber, aTag, givenOrganization, givenSubscriber, givenTag, instant, type PersistenceLayer } from "./fixtures.js"

const importsOver = (persistence: PersistenceLayer) =>
  SubscriberImports.Default.pipe(Layer.provideMerge(Layer.mergeAll(persistence, NodeIdsLive, CsvParseReaderLive)))

const options: SubscriberImportOptions = { resubscribe: false, createTags: true, encoding: "utf-8" }

const bytesOf = (text: string) => Stream.make(new TextEncoder().encode(text))

const importCsv = (organization: Organization, text: string, given: Partial<SubscriberImportOptions> = {}, more: {
  readonly skipRecords?: number
  readonly checkpoint?: (report: ImportBatchReport) => Effect.Effect<void>
} = {}) =>
  Effect.flatMap(SubscriberImports, (imports) =>
    imports.run(bytesOf(text), { organization, options: { ...options, ...given }, ...more }))

const byEmail = (organization: Organization, address: string) =>
  Effect.flatMap(SubscriberRepository, (subscribers) =>
    Effect.map(subscribers.findByEmail(organization.id, address), Option.getOrThrow))

const tagNamesOf = (organization: Organization, id: string) =>
  Effect.flatMap(TagAssignments, (assignments) =>
    Effect.map(assignments.tagsOf(organization.id, [id as never]), (map) => (map.get(id as never) ?? []).map((t) => t.tag.name).sort()))

const countOf = (organization: Organization) =>
  Effect.flatMap(OrganizationRepository, (organizations) =>
    Effect.map(organizations.findById(organization.id), (found) => Option.getOrThrow(found).subscriberCount))

const eventsOf = (organization: Organization) =>
  Effect.flatMap(Outbox, (outbox) => outbox.recorded(organization.id))

/** A batch making `creates`, each with `tag` and a `subscriber.created` event. */
const batchOf = (organization: Organization, creates: ReadonlyArray<Subscriber>, tag: Tag): ImportBatch => ({
  organizationId: organization.id,
  creates,
  updates: [],
  attachments: creates.map((s) => ({ subscriberId: s.id, tagIds: [tag.id] })),
  events: creates.map((s) => ({
    event: new DomainEvent({
      id: EventId.make(randomUUID()),
      organizationId: organization.id,
      type: "subscriber.created",
      occurredAt: instant(5),
      data: { subscriber: { id: s.id, email: s.email }, source: "import" }
    }),
    subscriberId: s.id,
    tagId: null
  })),
  max: null,
  at: instant(5)
})

export const subscriberImportsContract = (persistence: PersistenceLayer) =>
  layer(importsOver(persistence))("SubscriberImports over the adapter", (it) => {
    it.effect("brings new subscribers in with their names, status, metadata and tags, counted, one event each", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const result = yield* importCsv(organization, [
          "Email Address,First Name,last_name,status,tags,metadata.plan,metadata.prefs,Member Rating",
          "ada@example.com,Ada,Lovelace,,\"Weekly, news\",pro,\"{\"\"digest\"\":true}\",5",
          "grace@example.com,Grace,,unsubscribed,weekly,,,2"
        ].join("\n"))
        expect(result.failure).toBeNull()
        expect(result.counts).toEqual({ rows: 2, created: 2, updated: 0, unchanged: 0, failed: 0, keptStatus: 0 })
        expect(result.ignoredColumns).toEqual(["Member Rating"])
        const ada = yield* byEmail(organization, "ada@example.com")
        expect(ada).toMatchObject({ firstName: "Ada", lastName: "Lovelace", status: "active", metadata: { plan: "pro", prefs: { digest: true } } })
        expect(yield* tagNamesOf(organization, ada.id)).toEqual(["Weekly", "news"])
        const grace = yield* byEmail(organization, "grace@example.com")
        expect(grace).toMatchObject({ firstName: "Grace", lastName: null, status: "unsubscribed", metadata: {} })
        expect(yield* tagNamesOf(organization, grace.id)).toEqual(["Weekly"])
        expect(yield* countOf(organization)).toBe(2)
        const weekly = Option.getOrThrow(yield* (yield* TagRepository).findByName(organization.id, "weekly"))
        expect(weekly.subscriberCount).toBe(2)
        const events = yield* eventsOf(organization)
        expect(events.map((e) => e.type)).toEqual(["subscriber.created", "subscriber.created"])
        expect(events[0]!.data).toMatchObject({ source: "import", subscriber: { email: "ada@example.com" } })
        expect((events[0]!.data.subscriber as { tags: ReadonlyArray<{ name: string }> }).tags.map((t) => t.name).sort()).toEqual(["Weekly", "news"])
      }))

    it.effect("updates the subscribers it finds by email, sets only the metadata keys it has, and adds tags", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const existing = yield* givenSubscriber(organization.id, { email: "Ada@Example.com", metadata: { plan: "free", city: "London" }, firstName: "A." })
        const vip = yield* givenTag(organization.id, { name: "VIP" })
        const result = yield* importCsv(organization, "email,first_name,tags,metadata.plan\nada@example.COM,Ada,vip,pro\n")
        expect(result.counts).toMatchObject({ rows: 1, created: 0, updated: 1 })
        const ada = yield* byEmail(organization, "ada@example.com")
        expect(ada).toMatchObject({ id: existing.id, email: "Ada@Example.com", firstName: "Ada", metadata: { plan: "pro", city: "London" } })
        expect(yield* tagNamesOf(organization, ada.id)).toEqual(["VIP"])
        const events = yield* eventsOf(organization)
        expect(events.map((e) => e.type)).toEqual(["subscriber.updated", "tag.subscribed"])
        expect(events[0]!.data).toMatchObject({ changed: ["metadata", "first_name"], source: "import" })
        expect(events[1]!.data).toMatchObject({ tag: { id: vip.id }, source: "import" })
        expect(yield* countOf(organization)).toBe(0) // the fixture's subscriber was not counted; the import counted none
      }))

    it.effect("changes nothing the second time a file is imported", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const csv = "email,first_name,tags,metadata.plan\nada@example.com,Ada,weekly,pro\ngrace@example.com,Grace,,\n"
        yield* importCsv(organization, csv)
        const before = yield* eventsOf(organization)
        const again = yield* importCsv(organization, csv)
        expect(again.counts).toEqual({ rows: 2, created: 0, updated: 0, unchanged: 2, failed: 0, keptStatus: 0 })
        expect(yield* eventsOf(organization)).toHaveLength(before.length)
        expect(yield* countOf(organization)).toBe(2)
      }))

    it.effect("never brings back an unsubscribed, bounced or complained subscriber unless told to resubscribe", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        for (const status of ["unsubscribed", "bounced", "complained"] as const) {
          yield* givenSubscriber(organization.id, { email: `${status}@example.com`, status })
        }
        yield* givenSubscriber(organization.id, { email: "leaving@example.com" })
        const csv = "email,status\nunsubscribed@example.com,active\nbounced@example.com,\ncomplained@example.com,active\nleaving@example.com,unsubscribed\n"
        const kept = yield* importCsv(organization, csv)
        expect(kept.counts).toMatchObject({ rows: 4, updated: 1, unchanged: 3, keptStatus: 2, failed: 0 })
        expect((yield* byEmail(organization, "unsubscribed@example.com")).status).toBe("unsubscribed")
        expect((yield* byEmail(organization, "complained@example.com")).status).toBe("complained")
        expect((yield* byEmail(organization, "leaving@example.com")).status).toBe("unsubscribed")
        const back = yield* importCsv(organization, csv, { resubscribe: true })
        expect(back.counts).toMatchObject({ updated: 3, unchanged: 1, keptStatus: 0 })
        for (const address of ["unsubscribed", "bounced", "complained"]) {
          expect((yield* byEmail(organization, `${address}@example.com`)).status).toBe("active")
        }
        expect((yield* byEmail(organization, "leaving@example.com")).status).toBe("unsubscribed")
      }))

    it.effect("reports each bad row with its line and field, and carries on with the rest", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const result = yield* importCsv(organization, [
          "email,first_name,status,metadata.note",
          "not-an-address,Ann,,",
          "bob@example.com,Bob,sleeping,",
          "cy@example.com,Cy,,x,extra",
          "",
          "dee@example.com,\"Dee\nDee\",,",
          "eve@example.com,Eve,,",
          "EVE@example.com,Eve again,,",
          `fay@example.com,${"F".repeat(101)},,`,
          "gus@example.com,Gus,,ok"
        ].join("\n"))
        expect(result.failure).toBeNull()
        expect(result.problems.map(({ field, line }) => ({ line, field }))).toEqual([
          { line: 2, field: "email" },
          { line: 3, field: "status" },
          { line: 4, field: "row" },
          { line: 6, field: "first_name" },
          { line: 9, field: "email" },
          { line: 10, field: "first_name" }
        ])
        expect(result.problems[4]!.problem).toBe("is also on line 8; only the first row with an address is imported")
        expect(result.problems[2]!.problem).toBe("has 5 cells where the header has 4 columns")
        expect(result.counts).toMatchObject({ rows: 8, created: 2, failed: 6 })
        expect(result.problemCount).toBe(6)
        expect((yield* byEmail(organization, "gus@example.com")).metadata).toEqual({ note: "ok" })
      }))

    it.effect("fills the plan to its limit and reports the rows it had no room for", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization({ tier: "free" })
        const limit = planLimits.free.maxSubscribers!
        yield* (yield* OrganizationRepository).reserveSubscriberSlots(organization.id, limit - 2, null)
        yield* givenSubscriber(organization.id, { email: "known@example.com" })
        const result = yield* importCsv(organization, "email,first_name\na@example.com,A\nknown@example.com,Known\nb@example.com,B\nc@example.com,C\n")
        expect(result.counts).toMatchObject({ rows: 4, created: 2, updated: 1, failed: 1 })
        expect(result.problems).toEqual([{
          line: 5,
          field: "row",
          reason: reason("rowPlanFull", { tier: "free", max: limit }),
          problem: `the organization's plan (free) holds at most ${limit} subscribers, and it is full`,
          email: "c@example.com"
        }])
        expect(yield* countOf(organization)).toBe(limit)
      }))

    it.effect("leaves subscribers who asked to be erased alone, and tag names alone when it may not make tags", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const leaving = yield* givenSubscriber(organization.id, { email: "gone@example.com" })
        yield* (yield* SubscriberRepository).requestErasure(organization.id, leaving.id, new Date())
        yield* givenTag(organization.id, { name: "known" })
        const result = yield* importCsv(
          organization,
          "email,first_name,tags\ngone@example.com,Gone,\nnew@example.com,New,\"known, unknown\"\nplain@example.com,Plain,known\n",
          { createTags: false }
        )
        expect(result.problems.map((p) => [p.line, p.field, p.problem])).toEqual([
          [2, "email", "the subscriber asked to be erased; an import does not bring them back"],
          [3, "tags", "no tag named 'unknown' in this organization, and making one needs the scope tags:write"]
        ])
        expect((yield* byEmail(organization, "gone@example.com")).firstName).toBeNull()
        expect(Option.isNone(yield* (yield* TagRepository).findByName(organization.id, "unknown"))).toBe(true)
        expect(yield* tagNamesOf(organization, (yield* byEmail(organization, "plain@example.com")).id)).toEqual(["known"])
      }))

    it.effect("refuses a file without an email column, or of too many columns, and an empty one", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const noEmail = yield* importCsv(organization, "name,phone\nAda,123\n")
        expect(noEmail.failure).toMatchObject({ line: 1, problem: "the first line must name the columns, one of them 'email'; it names 'name', 'phone'" })
        const wide = yield* importCsv(organization, `email,${Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(",")}\n`)
        expect(wide.failure?.problem).toBe("the header has 100001 columns; an import reads at most 200")
        const empty = yield* importCsv(organization, "")
        expect(empty.failure).toMatchObject({ line: null, problem: "the file is empty" })
        expect(yield* countOf(organization)).toBe(0)
      }))

    it.effect("keeps the rows before a line that breaks the file, and names that line", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const result = yield* importCsv(organization, "email,first_name\na@example.com,A\nb@example.com,\"B\nc@example.com,C\n")
        expect(result.failure).toMatchObject({ line: 3, problem: "a quoted cell starts on this line and is never closed" })
        expect(result.counts).toMatchObject({ rows: 1, created: 1 })
        expect((yield* byEmail(organization, "a@example.com")).firstName).toBe("A")
      }))

    it.effect("resumes after the records an earlier run is done with, still telling their addresses apart", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const csv = "email\na@example.com\nb@example.com\na@example.com\nc@example.com\n"
        const checkpoints: Array<number> = []
        const result = yield* importCsv(organization, csv, {}, {
          skipRecords: 3,
          checkpoint: (report) => Effect.sync(() => void checkpoints.push(report.recordsDone))
        })
        expect(result.counts).toMatchObject({ rows: 2, created: 1, failed: 1 })
        expect(result.problems[0]).toMatchObject({ line: 4, problem: "is also on line 2; only the first row with an address is imported" })
        expect(checkpoints).toEqual([5])
        assert.isTrue(Option.isNone(yield* (yield* SubscriberRepository).findByEmail(organization.id, "a@example.com")))
        expect((yield* byEmail(organization, "c@example.com")).status).toBe("active")
      }))

    it.effect("a batch naming an address made since it was read makes the others, and nothing of that one", () =>
      Effect.gen(function*() {
        const store = yield* SubscriberImportStore
        const organization = yield* givenOrganization()
        const tag = yield* givenTag(organization.id, { name: "Weekly" })
        yield* givenSubscriber(organization.id, { email: "taken@example.com" })
        const fresh = aSubscriber(organization.id, { email: "fresh@example.com", createdAt: instant(5) })
        const clash = aSubscriber(organization.id, { email: "taken@example.com", createdAt: instant(5) })
        const outcome = yield* store.write(yield* store.prepare(batchOf(organization, [fresh, clash], tag)))
        expect([[...outcome.created], [...outcome.conflicted], outcome.updated.size, outcome.overLimit.size])
          .toStrictEqual([[fresh.id], [clash.id], 0, 0])
        expect((yield* eventsOf(organization)).map((e) => (e.data.subscriber as { email: string }).email)).toStrictEqual(["fresh@example.com"])
        expect(yield* tagNamesOf(organization, fresh.id)).toEqual(["Weekly"])
        expect(Option.getOrThrow(yield* (yield* TagRepository).findById(organization.id, tag.id)).subscriberCount).toBe(1)
        expect(Option.isNone(yield* (yield* SubscriberRepository).findById(organization.id, clash.id))).toBe(true)
      }))

    it.effect("a batch naming a tag deleted since it was read makes its subscribers without that tag", () =>
      Effect.gen(function*() {
        const store = yield* SubscriberImportStore
        const organization = yield* givenOrganization()
        const gone = aTag(organization.id, { name: "Gone" })
        const subscribers = [aSubscriber(organization.id, { createdAt: instant(5) }), aSubscriber(organization.id, { createdAt: instant(5) })]
        const outcome = yield* store.write(yield* store.prepare(batchOf(organization, subscribers, gone)))
        expect([outcome.created.size, outcome.conflicted.size]).toStrictEqual([2, 0])
        expect(yield* eventsOf(organization)).toHaveLength(2)
        for (const s of subscribers) expect(yield* tagNamesOf(organization, s.id)).toEqual([])
        expect(yield* countOf(organization)).toBe(2)
      }))

    it.effect("makes the new tags a file names at once, up to the organization's tag limit, telling apart names of one slug", () =>
      Effect.gen(function*() {
        const tags = yield* TagRepository
        const organization = yield* givenOrganization()
        const held = Array.from({ length: MAX_TAGS_PER_ORGANIZATION - 2 }, () => aTag(organization.id))
        expect((yield* tags.insertMany(held, null)).every((outcome) => outcome === "stored")).toBe(true)
        const result = yield* importCsv(organization, [
          "email,tags",
          "ada@example.com,Déjà vu",
          "grace@example.com,Deja Vu!",
          "alan@example.com,Zed"
        ].join("\n"))
        expect(result.counts).toMatchObject({ rows: 3, created: 2, failed: 1 })
        expect(result.problems).toStrictEqual([{
          line: 4,
          field: "tags",
          reason: reason("rowTagsFull", { name: "Zed", max: MAX_TAGS_PER_ORGANIZATION }),
          problem: `no tag named 'Zed' in this organization, and it holds ${MAX_TAGS_PER_ORGANIZATION} tags, the most it may (tags_per_organization)`,
          email: "alan@example.com"
        }])
        const made = yield* tags.findByNames(organization.id, ["Déjà vu", "Deja Vu!"])
        const slugs = made.map((tag) => tag.slug).sort()
        expect(slugs[0]).toBe("deja-vu")
        expect(slugs[1]).toMatch(/^deja-vu-[0-9a-f]{6}$/)
        expect(yield* tags.count(organization.id)).toBe(MAX_TAGS_PER_ORGANIZATION)
      }))

    it.effect("writes a file of several batches, checkpointing after each", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization({ tier: "enterprise" })
        const rows = Array.from({ length: IMPORT_BATCH_SIZE + 10 }, (_, i) => `reader${i}@example.com,${i % 2 === 0 ? "even" : "odd"}`)
        const checkpoints: Array<number> = []
        const result = yield* importCsv(organization, `email,tags\n${rows.join("\n")}\n`, {}, {
          checkpoint: (report) => Effect.sync(() => void checkpoints.push(report.total.created))
        })
        expect(result.counts.created).toBe(IMPORT_BATCH_SIZE + 10)
        expect(checkpoints).toEqual([IMPORT_BATCH_SIZE - 1, IMPORT_BATCH_SIZE + 10])
        expect(yield* countOf(organization)).toBe(IMPORT_BATCH_SIZE + 10)
        const even = Option.getOrThrow(yield* (yield* TagRepository).findByName(organization.id, "even"))
        expect(even.subscriberCount).toBe((IMPORT_BATCH_SIZE + 10) / 2)
      }))
  })
