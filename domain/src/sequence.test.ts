import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { DomainEvent } from "./events.js"
import { EventId, OrganizationId, TagId } from "./ids.js"
import {
  decodeEntry,
  decodeSteps,
  durationSeconds,
  entersOn,
  exitOf,
  instantOfWallTime,
  isTimeZone,
  nextLocalTime,
  SequenceSteps,
  stepToJson,
  successorsOf
} from "./sequence.js"

const template = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
const tag = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a11"

const problemsOf = (input: unknown) =>
  Either.match(decodeSteps(input), {
    onLeft: (problems) => problems.map((p) => `${p.path.map((k) => typeof k === "number" ? `[${k}]` : `.${String(k)}`).join("").slice(1).replace(/\.\[/g, "[")}: ${p.message}`),
    onRight: () => []
  })

describe("ISO 8601 durations", () => {
  it("reads weeks, days, hours, minutes and seconds", () => {
    expect(durationSeconds("PT30S")).toBe(30)
    expect(durationSeconds("PT1S")).toBe(1)
    expect(durationSeconds("P3D")).toBe(3 * 86_400)
    expect(durationSeconds("P1W")).toBe(7 * 86_400)
    expect(durationSeconds("P1DT12H30M5S")).toBe(86_400 + 12 * 3_600 + 30 * 60 + 5)
  })

  it("refuses what is not one, years and months, nothing, less than a second and more than a year", () => {
    expect(durationSeconds("3 days")).toMatch(/ISO 8601/)
    expect(durationSeconds("P")).toMatch(/ISO 8601/)
    expect(durationSeconds("PT")).toMatch(/ISO 8601/)
    expect(durationSeconds("P1DT")).toMatch(/ISO 8601/)
    expect(durationSeconds("PT0.5S")).toMatch(/ISO 8601/)
    expect(durationSeconds("P1M")).toMatch(/years and months/)
    expect(durationSeconds("P1Y")).toMatch(/years and months/)
    expect(durationSeconds("PT0S")).toMatch(/at least one second/)
    expect(durationSeconds("P366D")).toMatch(/at most a year/)
  })
})

describe("sequence steps", () => {
  it("decodes every kind of step, names them by position when unnamed, and gives them back as given", () => {
    const input = [
      { name: "welcome", send_email: { template_id: template } },
      { wait: "P3D" },
      { branch: { if: { opened_previous_email: true }, go_to: "tips" } },
      { wait: { until: "09:30", weekdays: ["sat", "mon"], time_zone_field: "tz" } },
      { name: "tips", send_email: { template_id: template, kind: "transactional", data: { n: 1 } } },
      { add_tag: { tag_id: tag } },
      { branch: { if: { has_tag: tag }, go_to: "done", else_go_to: "done" } },
      { branch: { if: { filter: { field: "status", op: "eq", value: "active" } }, go_to: "done" } },
      { branch: { if: { clicked_previous_email: true }, go_to: "done" } },
      { remove_tag: { tag_id: tag } },
      { name: "done", end: true }
    ]
    const steps = Either.getOrThrow(decodeSteps(input))
    expect(steps.map((s) => `${s.name}:${s.type}`)).toStrictEqual([
      "welcome:send_email",
      "step_2:wait",
      "step_3:branch",
      "step_4:wait_until",
      "tips:send_email",
      "step_6:add_tag",
      "step_7:branch",
      "step_8:branch",
      "step_9:branch",
      "step_10:remove_tag",
      "done:end"
    ])
    expect(steps[1]).toMatchObject({ seconds: 259_200 })
    expect(steps[3]).toMatchObject({ hour: 9, minute: 30, weekdays: ["mon", "sat"], timeZoneField: "tz" })
    expect(steps[0]).toMatchObject({ kind: "marketing", data: {} })
    expect(stepToJson(steps[1]!)).toStrictEqual({ name: "step_2", wait: "P3D" })
    expect(stepToJson(steps[6]!)).toStrictEqual({ name: "step_7", branch: { if: { has_tag: tag }, go_to: "done", else_go_to: "done" } })
    // What is shown reads back as the same steps.
    expect(Either.getOrThrow(decodeSteps(steps.map(stepToJson)))).toStrictEqual(steps)
    expect(successorsOf(steps, 2)).toStrictEqual([4, 3])
    expect(successorsOf(steps, 10)).toStrictEqual([])
  })

  it("names the path of every bad step", () => {
    expect(problemsOf("nope")).toStrictEqual(["steps: must be an array of steps, not \"nope\""])
    expect(problemsOf([])).toStrictEqual(["steps: must hold at least one step"])
    expect(problemsOf(Array.from({ length: 51 }, () => ({ end: true })))).toStrictEqual(["steps: must hold at most 50 steps"])
    expect(problemsOf([
      { send_email: { template_id: template } },
      { wait: "P1M" },
      { wait: "PT0S" },
      { wait: { until: "25:00" } },
      { wait: { until: "09:00", weekdays: ["someday"] } },
      { send_email: { template_id: "x", kind: "loud" } },
      { add_tag: {} },
      { end: true, wait: "P1D" },
      { name: "has space", end: true },
      { branch: { if: { opened_previous_email: false }, go_to: "a" } },
      { branch: { if: { filter: { field: "status", op: "eq", value: "gone" } }, go_to: "a" } },
      { send_email: { template_id: template }, color: "red" },
      42
    ])).toStrictEqual([
      "steps[1].wait: years and months vary in length; give days or weeks (P30D), hours, minutes or seconds",
      "steps[2].wait: must be at least one second (PT1S)",
      "steps[3].wait.until: must be a time of day as HH:MM, 24-hour (09:30)",
      "steps[4].wait.weekdays: must be a non-empty array of mon, tue, wed, thu, fri, sat, sun",
      "steps[5].send_email.template_id: must be a UUID",
      "steps[5].send_email.kind: must be marketing or transactional",
      "steps[6].add_tag.tag_id: must be a UUID",
      "steps[7]: must hold exactly one of send_email, wait, branch, add_tag, remove_tag, end, not wait and end",
      "steps[8].name: must be 1 to 63 letters, digits, _ or -, starting with a letter or digit",
      "steps[9].branch.if.opened_previous_email: must be true",
      "steps[10].branch.if.filter.value: must be one of active, unsubscribed, bounced, complained",
      "steps[11].color: is not a field here; allowed: name, send_email",
      "steps[12]: must be an object with one of send_email, wait, branch, add_tag, remove_tag, end, not 42"
    ])
  })

  it("refuses a branch to no step, names used twice, and a loop without a wait", () => {
    expect(problemsOf([
      { name: "a", end: true },
      { name: "a", end: true }
    ])).toStrictEqual(["steps[1].name: names step 0 (steps[0]) too; names must differ"])
    expect(problemsOf([
      { branch: { if: { opened_previous_email: true }, go_to: "nowhere" } }
    ])).toStrictEqual(["steps[0].branch.go_to: names no step of this sequence: 'nowhere'"])
    expect(problemsOf([
      { name: "top", send_email: { template_id: template } },
      { add_tag: { tag_id: tag } },
      { branch: { if: { has_tag: tag }, go_to: "top" } }
    ])).toStrictEqual(["steps[2].branch.go_to: makes a loop with no wait in it; put a wait step in the loop"])
    // With a wait inside, the loop is a drip.
    expect(problemsOf([
      { name: "top", send_email: { template_id: template } },
      { wait: "P7D" },
      { branch: { if: { has_tag: tag }, go_to: "top" } }
    ])).toStrictEqual([])
  })

  it("fails as a schema with issues that name the path under steps", () => {
    const decoded = Schema.decodeUnknownEither(Schema.Struct({ steps: SequenceSteps }))({ steps: [{ wait: "soon" }] })
    assertLeft(decoded)
    expect(ParseResult.ArrayFormatter.formatErrorSync(decoded.left)).toStrictEqual([
      { _tag: "Type", path: ["steps", 0, "wait"], message: "must be an ISO 8601 duration such as PT30S, PT2H, P3D or P1DT12H" }
    ])
  })
})

function assertLeft<R, L>(either: Either.Either<R, L>): asserts either is Either.Left<L, R> {
  expect(Either.isLeft(either)).toBe(true)
}

describe("entries and exits", () => {
  const organizationId = OrganizationId.make("0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a12")
  const event = (type: DomainEvent["type"], data: Record<string, unknown>) =>
    new DomainEvent({ id: EventId.make("0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a13"), organizationId, type, occurredAt: new Date(0), data })

  it("decodes entries and refuses unknown events and fields, naming them", () => {
    expect(Either.getOrThrow(decodeEntry({ event: "tag.subscribed", tag_id: tag }))).toStrictEqual({ event: "tag.subscribed", tagId: tag })
    expect(Either.getOrThrow(decodeEntry({ event: "subscriber.confirmed" }))).toStrictEqual({ event: "subscriber.confirmed", formId: null })
    expect(Either.getOrThrow(decodeEntry({ event: "api" }))).toStrictEqual({ event: "api" })
    expect(Either.flip(decodeEntry({ event: "soon" })).pipe(Either.getOrThrow)[0]!.path).toStrictEqual(["event"])
    expect(Either.flip(decodeEntry({ event: "segment.entered" })).pipe(Either.getOrThrow)[0]!.path).toStrictEqual(["segment_id"])
    expect(Either.flip(decodeEntry({ event: "api", tag_id: tag })).pipe(Either.getOrThrow)[0]!.path).toStrictEqual(["tag_id"])
  })

  it("enters on the events an entry names", () => {
    const created = event("subscriber.created", { subscriber: { id: "s" } })
    const tagged = event("tag.subscribed", { subscriber: { id: "s" }, tag: { id: tag } })
    const confirmed = event("subscriber.confirmed", { subscriber: { id: "s" }, form: { id: "f" } })
    expect(entersOn({ event: "subscriber.created" }, created)).toBe(true)
    expect(entersOn({ event: "subscriber.created" }, tagged)).toBe(false)
    expect(entersOn({ event: "tag.subscribed", tagId: null }, tagged)).toBe(true)
    expect(entersOn({ event: "tag.subscribed", tagId: TagId.make(tag) }, tagged)).toBe(true)
    expect(entersOn({ event: "tag.subscribed", tagId: TagId.make(template) }, tagged)).toBe(false)
    expect(entersOn({ event: "subscriber.confirmed", formId: null }, confirmed)).toBe(true)
    expect(entersOn({ event: "api" }, created)).toBe(false)
  })

  it("exits on unsubscribed, bounced, complained and the goal tag", () => {
    expect(exitOf("active", null, [tag])).toBeNull()
    expect(exitOf("unsubscribed", null, [])).toBe("unsubscribed")
    expect(exitOf("bounced", null, [])).toBe("bounced")
    expect(exitOf("complained", null, [])).toBe("complained")
    expect(exitOf("active", TagId.make(tag), [tag])).toBe("goal")
  })
})

describe("waits until a time of day", () => {
  it("knows time zones", () => {
    expect(isTimeZone("Europe/Berlin")).toBe(true)
    expect(isTimeZone("Mars/Olympus")).toBe(false)
  })

  it("takes the next day the time comes on, across a daylight-saving change", () => {
    const nine = { hour: 9, minute: 0, weekdays: [] }
    // Berlin moves from UTC+1 to UTC+2 on 29 March 2026.
    expect(nextLocalTime(new Date("2026-03-28T09:00:00Z"), nine, "Europe/Berlin")).toStrictEqual(new Date("2026-03-29T07:00:00Z"))
    expect(nextLocalTime(new Date("2026-03-28T07:00:00Z"), nine, "Europe/Berlin")).toStrictEqual(new Date("2026-03-28T08:00:00Z"))
    // And back on 25 October.
    expect(nextLocalTime(new Date("2026-10-24T08:00:00Z"), nine, "Europe/Berlin")).toStrictEqual(new Date("2026-10-25T08:00:00Z"))
  })

  it("keeps to the weekdays", () => {
    // 2026-11-27 is a Friday.
    const mondayMorning = { hour: 8, minute: 15, weekdays: ["mon" as const] }
    expect(nextLocalTime(new Date("2026-11-27T12:00:00Z"), mondayMorning, "America/New_York"))
      .toStrictEqual(new Date("2026-11-30T13:15:00Z"))
  })

  it("takes a skipped time an hour on and a doubled time at its first passing", () => {
    expect(instantOfWallTime({ year: 2026, month: 3, day: 29, hour: 2, minute: 30 }, "Europe/Berlin"))
      .toStrictEqual(new Date("2026-03-29T01:30:00Z"))
    expect(instantOfWallTime({ year: 2026, month: 10, day: 25, hour: 2, minute: 30 }, "Europe/Berlin"))
      .toStrictEqual(new Date("2026-10-25T00:30:00Z"))
  })
})
