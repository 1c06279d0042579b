import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A webhook receiver on 127.0.0.1 for process tests: it records every request it gets and answers
 * as the test scripts it, by default 204 at once.
 */

/** One request as it arrived. */
export interface ReceivedRequest {
  /** 1 for the first request this receiver got. */
  readonly number: number
  readonly method: string
  readonly path: string
  /** Lower-case names, as node:http gives them. */
  readonly headers: Readonly<Record<string, string>>
  /** The body exactly as sent, for signature checks. */
  readonly rawBody: string
  /** `webhook-id`, or "" when the request had none. */
  readonly webhookId: string
  /** When the whole body had arrived (`Date.now()`). */
  readonly arrivedAt: number
  /** When the answer was sent; undefined while it is held, or when the client left first. */
  readonly answeredAt: number | undefined
  /** The status answered; undefined until answered. */
  readonly answeredStatus: number | undefined
}

/** How to answer a request. */
export interface Answer {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly body?: string | undefined
  /** Wait this long before answering. */
  readonly delayMs?: number | undefined
  /** Do not answer until {@link WebhookReceiver.release} (the delay, if any, counts from then). */
  readonly hold?: boolean | undefined
}

export type Script = (request: ReceivedRequest) => Answer

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/webhooks`, the URL to register. */
  readonly url: string
  /** Every request so far, in arrival order. */
  readonly requests: () => ReadonlyArray<ReceivedRequest>
  /** The distinct webhook-ids seen so far. */
  readonly ids: () => ReadonlySet<string>
  /** The distinct webhook-ids that were answered 2xx. */
  readonly idsAnswered2xx: () => ReadonlySet<string>
  /** Answers the next requests this way. */
  readonly script: (script: Script) => void
  /** Answers every held request (as its answer says, after its delay) and holds no more of them. */
  readonly release: () => void
  /** Closes the connections of held requests without answering them; later ones are held again if scripted so. */
  readonly dropHeld: () => void
  /** Waits until `predicate` holds, polling every 100 ms, or fails after `timeoutMs` naming `what`. */
  readonly waitFor: (predicate: () => boolean, what: string | (() => string), timeoutMs?: number) => Promise<void>
  /** Waits until `count` distinct webhook-ids arrived. */
  readonly waitForIds: (count: number, timeoutMs?: number) => Promise<void>
  /** Waits until `count` distinct webhook-ids were answered 2xx. */
  readonly waitForAnswered: (count: number, timeoutMs?: number) => Promise<void>
  readonly close: () => Promise<void>
}

const is2xx = (status: number | undefined) => status !== undefined && status >= 200 && status < 300

/** Polls `predicate` every 100 ms until it holds, or throws after `timeoutMs`. */
export const waitUntil = async (
  predicate: () => boolean | Promise<boolean>,
  what: string | (() => string),
  timeoutMs = 20_000
) => {
  const deadline = Date.now() + timeoutMs
  while (!(await predicate())) {
    if (Date.now() > deadline) {
      throw new Error(`${typeof what === "string" ? what : what()}: not within ${timeoutMs / 1000} s`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

export const startWebhookReceiver = async (initial: Script = () => ({ status: 204 })): Promise<WebhookReceiver> => {
  let script = initial
  let releaseAll = false
  const received: Array<ReceivedRequest & { answeredAt: number | undefined; answeredStatus: number | undefined }> = []
  const held: Array<{ readonly answer: () => void; readonly drop: () => void }> = []

  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
      }
      const entry = {
        number: received.length + 1,
        method: request.method ?? "",
        path: request.url ?? "",
        headers,
        rawBody: Buffer.concat(chunks).toString("utf8"),
        webhookId: headers["webhook-id"] ?? "",
        arrivedAt: Date.now(),
        answeredAt: undefined as number | undefined,
        answeredStatus: undefined as number | undefined
      }
      received.push(entry)
      const answer = script(entry)
      const respond = () => {
        if (response.destroyed || request.socket.destroyed) return
        response.writeHead(answer.status, { ...answer.headers })
        response.end(answer.body ?? "", () => {
          entry.answeredAt = Date.now()
          entry.answeredStatus = answer.status
        })
      }
      const afterDelay = () => (answer.delayMs ?? 0) > 0 ? void setTimeout(respond, answer.delayMs) : respond()
      if (answer.hold === true && !releaseAll) held.push({ answer: afterDelay, drop: () => request.socket.destroy() })
      else afterDelay()
    })
  })
  // Workers are killed with requests open; their sockets close under us.
  server.on("clientError", (_error, socket) => socket.destroy())
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  const ids = () => new Set(received.map((r) => r.webhookId).filter((id) => id !== ""))
  const idsAnswered2xx = () => new Set(received.filter((r) => is2xx(r.answeredStatus)).map((r) => r.webhookId))

  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    requests: () => [...received],
    ids,
    idsAnswered2xx,
    script: (next) => {
      script = next
    },
    release: () => {
      releaseAll = true
      for (const request of held.splice(0)) request.answer()
    },
    dropHeld: () => {
      for (const request of held.splice(0)) request.drop()
    },
    waitFor: (predicate, what, timeoutMs) => waitUntil(predicate, what, timeoutMs),
    waitForIds: (count, timeoutMs) =>
      waitUntil(() => ids().size >= count, () => `${count} distinct webhook-ids (saw ${ids().size})`, timeoutMs),
    waitForAnswered: (count, timeoutMs) =>
      waitUntil(
        () => idsAnswered2xx().size >= count,
        () => `${count} webhook-ids answered 2xx (${idsAnswered2xx().size} were)`,
        timeoutMs
      ),
    close: () =>
      new Promise<void>((resolve) => {
        for (const request of held.splice(0)) request.drop()
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}
