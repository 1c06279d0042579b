/**
 * A template whose one filter works for seconds, and a way to send requests with it while the
 * service's `/health` is asked: the answers each timed, as clients see them.
 */
import { expect } from "vitest"
import { type Answer, call, type TestHttpServer } from "./http-server.js"

/** `sort` of the three million numbers a range made: 1.4 to 4 s in the event loop. */
export const runawayTemplate = "{% assign r = (1..3000000) %}{{ r | sort | size }}"

/**
 * Deadlines that catch a render held in the event loop, where one sort of the template takes 0.5 s
 * on a quiet machine and 1.4 to 4 s on a busy one, and eight take their sum. The figures asked for
 * are 1 s and 50 ms, met on a quiet machine; these leave room for a machine shared with other work,
 * where `/health` beside eight ordinary previews takes a few hundred ms too.
 */
export const PREVIEW_DEADLINE_MS = 3_000
export const HEALTH_DEADLINE_MS = 1_000

export interface Timed {
  readonly answer: Answer
  /** From the request to the whole answer, in milliseconds. */
  readonly ms: number
}

const timed = async (request: () => Promise<Answer>): Promise<Timed> => {
  const started = performance.now()
  const answer = await request()
  return { answer, ms: performance.now() - started }
}

/**
 * Sends every request at once and asks `GET /health` every 20 ms until all are answered (at least
 * once): the requests' answers, and how long each `/health` took.
 */
export const besideHealth = async (
  server: Pick<TestHttpServer, "baseUrl">,
  requests: ReadonlyArray<() => Promise<Answer>>
): Promise<{ readonly answers: ReadonlyArray<Timed>; readonly health: ReadonlyArray<number> }> => {
  let pending = requests.length
  const answers = Promise.all(requests.map((request) => timed(request).finally(() => pending--)))
  const health: Array<number> = []
  do {
    const { answer, ms } = await timed(() => call(server, "GET", "/health"))
    expect(answer.status, answer.text).toBe(200)
    health.push(ms)
    await new Promise((resolve) => setTimeout(resolve, 20))
  } while (pending > 0)
  return { answers: await answers, health }
}
