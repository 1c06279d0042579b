/**
 * A template whose one filter works for seconds, and a way to send requests with it while the
 * service's `/health` is asked. How fast they answer is measured by `bench/templates.ts`; the tests
 * hold what they answer and that `/health` answers beside them.
 */
import { expect } from "vitest"
import { type Answer, call, type TestHttpServer } from "./http-server.js"

/** `sort` of the three million numbers a range made: seconds in an event loop on a busy machine. */
export const runawayTemplate = "{% assign r = (1..3000000) %}{{ r | sort | size }}"

/**
 * Sends every request at once and asks `GET /health` every 20 ms until all are answered (at least
 * once), expecting each `/health` to be 200: the requests' answers, and how many `/health` answers
 * came while some request was still waiting for its own.
 */
export const besideHealth = async (
  server: Pick<TestHttpServer, "baseUrl">,
  requests: ReadonlyArray<() => Promise<Answer>>
): Promise<{ readonly answers: ReadonlyArray<Answer>; readonly healthWhileWaiting: number }> => {
  let pending = requests.length
  const answers = Promise.all(requests.map((request) => request().finally(() => pending--)))
  let healthWhileWaiting = 0
  do {
    const answer = await call(server, "GET", "/health")
    expect(answer.status, answer.text).toBe(200)
    if (pending > 0) healthWhileWaiting++
    await new Promise((resolve) => setTimeout(resolve, 20))
  } while (pending > 0)
  return { answers: await answers, healthWhileWaiting }
}
