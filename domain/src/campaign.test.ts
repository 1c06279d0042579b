import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Option } from "effect"
import {
  activityWindow,
  type CampaignAction,
  campaignActionFrom,
  campaignActions,
  campaignEnded,
  campaignMoves,
  type CampaignStatus,
  campaignStatuses,
  canCampaign,
  MAX_ACTIVITY_BUCKETS,
  nextCampaignStatus,
  transitionCampaign
} from "./campaign.js"
import { CampaignId } from "./ids.js"
import { CampaignStateConflict } from "./errors.js"

/**
 * The moves DESIGN.md allows, written out here on their own so that a change to the table in
 * campaign.ts has to be a change to the design too: draft -> scheduled -> sending -> sent, cancel
 * from scheduled or sending, a send with failures (or stopped by the plan) ends failed, and retry
 * sends a failed campaign again. Only drafts and scheduled campaigns are edited.
 */
const allowedByDesign: ReadonlyArray<readonly [CampaignStatus, CampaignAction, CampaignStatus]> = [
  ["draft", "update", "draft"],
  ["scheduled", "update", "scheduled"],
  ["scheduled", "unschedule", "draft"],
  ["draft", "schedule", "scheduled"],
  ["draft", "send", "sending"],
  ["scheduled", "start", "sending"],
  ["scheduled", "fail", "failed"],
  ["sending", "complete", "sent"],
  ["sending", "fail", "failed"],
  ["scheduled", "cancel", "cancelled"],
  ["sending", "cancel", "cancelled"],
  ["failed", "retry", "sending"]
]

const designNext = (from: CampaignStatus, action: CampaignAction): CampaignStatus | undefined =>
  allowedByDesign.find(([f, a]) => f === from && a === action)?.[2]

const everyCombination = campaignStatuses.flatMap((status) => campaignActions.map((action) => ({ status, action })))

const status = fc.constantFrom(...campaignStatuses)
const action = fc.constantFrom(...campaignActions)
const id = CampaignId.make("0190a000-0000-7000-8000-000000000001")

describe("the campaign transition table", () => {
  it("lists each (state, action) once, and every state and action it names exists", () => {
    const keys = campaignMoves.map((move) => `${move.from}/${move.action}`)
    expect(new Set(keys).size).toBe(keys.length)
    for (const move of campaignMoves) {
      expect(campaignStatuses).toContain(move.from)
      expect(campaignStatuses).toContain(move.to)
      expect(campaignActions).toContain(move.action)
      expect(move.why.length).toBeGreaterThan(0)
    }
    // Every action is some move's.
    for (const a of campaignActions) expect(campaignActionFrom(a).length).toBeGreaterThan(0)
  })

  it("says what the design says, state by state and action by action", () => {
    expect(everyCombination).toHaveLength(6 * 9)
    for (const { action, status } of everyCombination) {
      expect({ status, action, next: Option.getOrUndefined(nextCampaignStatus(status, action)) })
        .toEqual({ status, action, next: designNext(status, action) })
    }
  })

  it("leaves the worker's moves to the worker and the client's to clients", () => {
    for (const move of campaignMoves) {
      expect({ action: move.action, by: move.by }).toEqual({
        action: move.action,
        by: ["start", "complete", "fail"].includes(move.action) ? "worker" : "client"
      })
    }
  })

  it.prop(
    "transitionCampaign allows exactly the listed moves, and a refusal names the states the action starts from",
    [fc.constantFrom(...everyCombination)],
    ([{ action, status }]) => {
      const result = transitionCampaign({ id, status }, action)
      const next = designNext(status, action)
      expect(canCampaign(action, status)).toBe(next !== undefined)
      if (next !== undefined) {
        expect(result).toEqual(Either.right(next))
      } else {
        if (Either.isRight(result)) expect.fail(`${action} from ${status} should be refused`)
        expect(result.left).toBeInstanceOf(CampaignStateConflict)
        expect(result.left).toMatchObject({ id, status, action, allowed: campaignActionFrom(action) })
        expect(result.left.allowed).not.toContain(status)
      }
    },
    { fastCheck: { examples: everyCombination.map((combination) => [combination] as [typeof combination]) } }
  )

  it.prop(
    "along any series of actions from a draft, a campaign moves only by listed moves, and a sent or cancelled one moves no more",
    [fc.array(action, { maxLength: 40 })],
    ([actions]) => {
      let current: CampaignStatus = "draft"
      let sent = false
      for (const a of actions) {
        const next: CampaignStatus = Either.getOrElse(transitionCampaign({ id, status: current }, a), () => current)
        if (next !== current || designNext(current, a) !== undefined) expect(designNext(current, a)).toBe(next)
        if (current === "sent" || current === "cancelled") expect(next).toBe(current)
        // A campaign gets to sending by a send, its time coming, or a retry; once sent, it is never edited again.
        if (next === "sending" && current !== "sending") expect(["send", "start", "retry"]).toContain(a)
        if (sent) expect(["draft", "scheduled"]).not.toContain(next)
        if (next === "sending") sent = true
        current = next
      }
    }
  )

  it.prop(
    "every state is reached from a draft, and every send can end",
    [status],
    ([target]) => {
      const reached = new Set<CampaignStatus>(["draft"])
      for (let grown = true; grown;) {
        grown = false
        for (const move of campaignMoves) {
          if (reached.has(move.from) && !reached.has(move.to)) {
            reached.add(move.to)
            grown = true
          }
        }
      }
      expect(reached.has(target)).toBe(true)
      // From any state, some series of moves reaches an ended one.
      const ends = new Set(campaignStatuses.filter(campaignEnded))
      for (let grown = true; grown;) {
        grown = false
        for (const move of campaignMoves) {
          if (ends.has(move.to) && !ends.has(move.from)) {
            ends.add(move.from)
            grown = true
          }
        }
      }
      expect(ends.has(target)).toBe(true)
    }
  )

  it("a client's send from any state but draft names the client's word and draft", () => {
    const refused = transitionCampaign({ id, status: "sending" }, "schedule", "send")
    expect(Either.isLeft(refused) && refused.left.message).toBe(
      `campaign ${id} is sending; send needs a campaign that is draft`
    )
  })
})

describe("a campaign's figures over time", () => {
  const start = new Date("2026-11-01T09:00:00Z")
  const after = (ms: number) => new Date(start.getTime() + ms)

  it("are counted from its start to now in the shortest usual step that needs at most 48, one step at least", () => {
    expect(activityWindow(start, start)).toEqual({ since: start, stepMs: 300_000, buckets: 1 })
    expect(activityWindow(start, after(301_000))).toEqual({ since: start, stepMs: 300_000, buckets: 2 })
    expect(activityWindow(start, after(3 * 3_600_000))).toEqual({ since: start, stepMs: 300_000, buckets: 36 })
    expect(activityWindow(start, after(5 * 3_600_000))).toEqual({ since: start, stepMs: 900_000, buckets: 20 })
    expect(activityWindow(start, after(2 * 86_400_000))).toEqual({ since: start, stepMs: 3_600_000, buckets: 48 })
    expect(activityWindow(start, after(30 * 86_400_000))).toEqual({ since: start, stepMs: 86_400_000, buckets: 30 })
    // Years on, a week a step, and never more steps than a chart shows.
    expect(activityWindow(start, after(3 * 365 * 86_400_000))).toEqual({ since: start, stepMs: 7 * 86_400_000, buckets: MAX_ACTIVITY_BUCKETS })
  })

  it("cover the time from its start to now, whenever now is", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 300 * 86_400_000 }), (elapsed) => {
      const window = activityWindow(start, after(elapsed))
      expect(window.buckets).toBeGreaterThanOrEqual(1)
      expect(window.buckets).toBeLessThanOrEqual(MAX_ACTIVITY_BUCKETS)
      expect(window.buckets * window.stepMs).toBeGreaterThanOrEqual(elapsed)
      expect((window.buckets - 1) * window.stepMs).toBeLessThan(Math.max(elapsed, 1))
    }))
  })
})
