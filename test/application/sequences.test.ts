/**
 * Sequences' use cases and engine in memory, on the test clock: waits until a local time of day
 * keep to the subscriber's zone across a change to daylight saving time.
 */
import { expect, it } from "@effect/vitest"
import {
  ApiKeys,
  Ids,
  MessageRepository,
  Organizations,
  OutgoingMailConfig,
  SequenceEngine,
  SequenceRepository,
  Sequences,
  SubscriberRepository,
  TagAssignments,
  TemplateRepository
} from "@roster/application"
import { decodeSteps, EmailAddress, EmailTemplate, Slug, Subscriber, SubscriberId, TemplateId } from "@roster/domain"
import { Effect, Either, Layer, Option, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { InProcessWorkSignalLive, MemoryPersistenceLive } from "../../adapters/in-process/index.js"
import { makeJoseTokenSigner } from "../../adapters/jose/index.js"
import { LiquidTemplateEngineLive } from "../../adapters/liquid/index.js"
import { CryptoLive } from "../../adapters/node/index.js"
import { givenTag } from "../contract/fixtures.js"

const layer = Layer.mergeAll(Sequences.Default, SequenceEngine.Default, Organizations.Default, ApiKeys.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(
    MemoryPersistenceLive,
    CryptoLive,
    makeJoseTokenSigner(new Uint8Array(32).fill(7)),
    LiquidTemplateEngineLive,
    InProcessWorkSignalLive,
    Layer.succeed(OutgoingMailConfig, { defaultFrom: "x@example.com", publicBaseUrl: "http://roster.test", unsubscribeMailto: null })
  ))
)

it.effect("a wait until 09:00 in the subscriber's zone comes at 09:00 there on each day, across the change to summer time", () =>
  Effect.gen(function*() {
    // Friday 27 March 2026, 11:00 in Berlin; clocks go forward early on Sunday the 29th.
    yield* TestClock.setTime(Date.parse("2026-03-27T10:00:00.000Z"))
    const ids = yield* Ids
    const organization = yield* (yield* Organizations).create({ name: "Acme", slug: Slug.make(`acme-${yield* ids.next}`) })
    const { key } = yield* (yield* ApiKeys).create({ organizationId: organization.id, name: "k", scopes: ["*"], environment: "live" })
    const principal = yield* Effect.orDie((yield* ApiKeys).authenticate(key))
    const at = new Date("2026-03-27T10:00:00.000Z")
    const template = new EmailTemplate({
      id: TemplateId.make(randomUUID()),
      organizationId: organization.id,
      name: "Morning",
      subject: "Good morning",
      html: null,
      text: "Hi",
      createdAt: at,
      updatedAt: at
    })
    yield* (yield* TemplateRepository).insert(template)
    const inBerlin = new Subscriber({
      id: SubscriberId.make(randomUUID()),
      organizationId: organization.id,
      email: EmailAddress.make("ada@example.com"),
      status: "active",
      metadata: { tz: "Europe/Berlin" },
      firstName: null,
      lastName: null,
      createdAt: at,
      updatedAt: at
    })
    // No zone of their own (or none that is one): the sequence's, New York's.
    const elsewhere = new Subscriber({ ...inBerlin, id: SubscriberId.make(randomUUID()), email: EmailAddress.make("bo@example.com"), metadata: { tz: "Nowhere/Else" } })
    for (const s of [inBerlin, elsewhere]) yield* (yield* SubscriberRepository).insert(s).pipe(Effect.orDie)

    const sequences = yield* Sequences
    const nine = { wait: { until: "09:00", time_zone_field: "tz" } }
    const sequence = yield* sequences.create(principal, {
      name: "Mornings",
      entry: { event: "api" },
      timeZone: "America/New_York",
      steps: Either.getOrThrow(decodeSteps([nine, { name: "first", send_email: { template_id: template.id } }, nine, { name: "second", send_email: { template_id: template.id } }]))
    })
    yield* sequences.activate(principal, sequence.id)
    yield* sequences.enroll(principal, sequence.id, inBerlin.id)
    yield* sequences.enroll(principal, sequence.id, elsewhere.id)

    const engine = yield* SequenceEngine
    const repository = yield* SequenceRepository
    const enrollmentOf = (subscriber: Subscriber) =>
      Effect.map(repository.findEnrollment(organization.id, sequence.id, subscriber.id), Option.getOrThrow)
    const nextRun = (subscriber: Subscriber) => Effect.map(enrollmentOf(subscriber), (e) => e.nextRunAt?.toISOString())

    expect(yield* engine.runDue(10)).toBe(2)
    // Saturday 09:00 in Berlin is 08:00 UTC (winter time); in New York, 13:00 UTC (summer time since 8 March).
    expect(yield* nextRun(inBerlin)).toBe("2026-03-28T08:00:00.000Z")
    expect(yield* nextRun(elsewhere)).toBe("2026-03-27T13:00:00.000Z")

    yield* TestClock.setTime(Date.parse("2026-03-28T07:59:59.000Z"))
    expect(yield* engine.runDue(10)).toBe(1)
    expect(yield* nextRun(inBerlin)).toBe("2026-03-28T08:00:00.000Z")
    yield* TestClock.setTime(Date.parse("2026-03-28T08:00:00.000Z"))
    expect(yield* engine.runDue(10)).toBe(1)
    // Sunday 09:00 in Berlin is 07:00 UTC: summer time began at 01:00 UTC.
    expect(yield* nextRun(inBerlin)).toBe("2026-03-29T07:00:00.000Z")
    yield* TestClock.setTime(Date.parse("2026-03-29T07:00:00.000Z"))
    expect(yield* engine.runDue(10)).toBeGreaterThanOrEqual(1)
    const done = yield* enrollmentOf(inBerlin)
    expect(done).toMatchObject({ state: "completed", stepName: "second", nextRunAt: null })
    const runs = yield* repository.runsOf(done.id)
    expect(runs.map((r) => [r.step, r.at.toISOString()])).toStrictEqual([
      ["step_1", "2026-03-28T08:00:00.000Z"],
      ["first", "2026-03-28T08:00:00.000Z"],
      ["step_3", "2026-03-29T07:00:00.000Z"],
      ["second", "2026-03-29T07:00:00.000Z"]
    ])
    const messages = yield* MessageRepository
    for (const run of runs.filter((r) => r.messageId !== null)) {
      expect(Option.map(yield* messages.findById(organization.id, run.messageId!), (m) => m.subject)).toStrictEqual(Option.some("Good morning"))
    }
    expect(runs.filter((r) => r.messageId !== null)).toHaveLength(2)
  }).pipe(Effect.provide(layer)))

it.effect("branches on a tag, a segment filter and a click, add and remove tags, and record each step once", () =>
  Effect.gen(function*() {
    yield* TestClock.setTime(Date.parse("2026-05-04T10:00:00.000Z"))
    const ids = yield* Ids
    const organization = yield* (yield* Organizations).create({ name: "Acme", slug: Slug.make(`acme-${yield* ids.next}`) })
    const { key } = yield* (yield* ApiKeys).create({ organizationId: organization.id, name: "k", scopes: ["*"], environment: "live" })
    const principal = yield* Effect.orDie((yield* ApiKeys).authenticate(key))
    const at = new Date("2026-05-04T10:00:00.000Z")
    const vip = yield* givenTag(organization.id)
    const done = yield* givenTag(organization.id)
    const reader = new Subscriber({
      id: SubscriberId.make(randomUUID()),
      organizationId: organization.id,
      email: EmailAddress.make("cy@example.com"),
      status: "active",
      metadata: { plan: "pro" },
      firstName: null,
      lastName: null,
      createdAt: at,
      updatedAt: at
    })
    yield* (yield* SubscriberRepository).insert(reader).pipe(Effect.orDie)
    yield* (yield* TagAssignments).attach(organization.id, reader.id, [vip.id], at, 10)

    const sequences = yield* Sequences
    const sequence = yield* sequences.create(principal, {
      name: "Branches",
      entry: { event: "api" },
      steps: Either.getOrThrow(decodeSteps([
        { name: "is_vip", branch: { if: { has_tag: vip.id }, go_to: "pro_check", else_go_to: "not_taken" } },
        { name: "not_taken", end: true },
        { name: "pro_check", branch: { if: { filter: { field: "metadata.plan", op: "eq", value: "free" } }, go_to: "not_taken" } },
        { name: "clicked", branch: { if: { clicked_previous_email: true }, go_to: "not_taken" } },
        { name: "tag", add_tag: { tag_id: done.id } },
        { name: "untag", remove_tag: { tag_id: vip.id } }
      ]))
    })
    yield* sequences.activate(principal, sequence.id)
    const enrollment = yield* sequences.enroll(principal, sequence.id, reader.id)
    yield* (yield* SequenceEngine).runDue(10)
    expect(yield* (yield* SequenceEngine).runDue(10)).toBe(0)
    const repository = yield* SequenceRepository
    expect((yield* repository.runsOf(enrollment.id)).map((r) => r.step)).toStrictEqual(["is_vip", "pro_check", "clicked", "tag", "untag"])
    expect(Option.getOrThrow(yield* repository.findEnrollment(organization.id, sequence.id, reader.id)))
      .toMatchObject({ state: "completed", stepName: "untag", nextRunAt: null })
    const carried = (yield* (yield* TagAssignments).tagsOf(organization.id, [reader.id])).get(reader.id) ?? []
    expect(carried.map((s) => s.tag.id)).toStrictEqual([done.id])
    const figures = yield* sequences.figures(principal, sequence.id)
    expect(figures.map((f) => [f.step, f.entered, f.completed])).toStrictEqual([
      ["is_vip", 1, 1],
      ["not_taken", 0, 0],
      ["pro_check", 1, 1],
      ["clicked", 1, 1],
      ["tag", 1, 1],
      ["untag", 1, 1]
    ])
  }).pipe(Effect.provide(layer)))

it.effect("a sequence whose template was deleted since it was saved is not activated, and the refusal names steps", () =>
  Effect.gen(function*() {
    const ids = yield* Ids
    const organization = yield* (yield* Organizations).create({ name: "Acme", slug: Slug.make(`acme-${yield* ids.next}`) })
    const { key } = yield* (yield* ApiKeys).create({ organizationId: organization.id, name: "k", scopes: ["*"], environment: "live" })
    const principal = yield* Effect.orDie((yield* ApiKeys).authenticate(key))
    const at = new Date("2026-03-27T10:00:00.000Z")
    const template = new EmailTemplate({
      id: TemplateId.make(randomUUID()),
      organizationId: organization.id,
      name: "Hello",
      subject: "Hello",
      html: null,
      text: "Hi",
      createdAt: at,
      updatedAt: at
    })
    const templates = yield* TemplateRepository
    yield* templates.insert(template)
    const sequences = yield* Sequences
    const sequence = yield* sequences.create(principal, {
      name: "Hello",
      entry: { event: "api" },
      steps: Either.getOrThrow(decodeSteps([{ send_email: { template_id: template.id } }]))
    })
    yield* templates.delete(organization.id, template.id)
    const refused = yield* Effect.flip(sequences.activate(principal, sequence.id))
    expect(refused._tag).toBe("InvalidInput")
    expect(refused._tag === "InvalidInput" ? refused.field : "").toBe("steps")
    expect((yield* sequences.get(principal, sequence.id)).status).toBe("draft")
  }).pipe(Effect.provide(layer)))
