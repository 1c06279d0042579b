/**
 * A local HTTP server that speaks the part of Resend's API the mailer uses: `POST /emails` with a
 * Bearer key and a JSON body, answered with `{id}` or with an error body `{statusCode, name,
 * message}` as Resend sends them. Each answer is scripted; the server keeps what it was sent.
 */
import { Effect, type Scope } from "effect"
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface SeenRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: unknown
}

type Reply =
  | { readonly status: number; readonly json: unknown }
  | { readonly status: number; readonly raw: string; readonly contentType: string }

/** What the server answers to one request: a status and a body, or no answer at all. */
export type Answer = Reply | "hang"

export const accepted = (id: string): Reply => ({ status: 200, json: { id } })

/** An error answer in Resend's shape. */
export const resendError = (status: number, name: string, message: string): Reply => ({
  status,
  json: { statusCode: status, name, message }
})

export interface ResendStub {
  /** `http://127.0.0.1:<port>`, to pass as the mailer's base URL. */
  readonly baseUrl: string
  readonly requests: ReadonlyArray<SeenRequest>
}

/**
 * Serves the answers in order, repeating the last one, for as long as the scope lasts.
 * A request that is not `POST /emails` with `Authorization: Bearer <apiKey>` gets the 401 or 404
 * Resend would answer.
 */
export const startResendStub = (
  answers: ReadonlyArray<Answer>,
  options: { readonly apiKey?: string } = {}
): Effect.Effect<ResendStub, never, Scope.Scope> =>
  Effect.gen(function*() {
    const requests: Array<SeenRequest> = []
    const hanging = new Set<ServerResponse>()
    const apiKey = options.apiKey ?? "re_test_key"
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let body: unknown = text
        try {
          body = JSON.parse(text)
        } catch {
          // Kept as text.
        }
        const path = req.url ?? "/"
        requests.push({ method: req.method ?? "", path, headers: req.headers, body })
        const send = (answer: Reply) => {
          if ("json" in answer) {
            res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.json))
          } else {
            res.writeHead(answer.status, { "content-type": answer.contentType }).end(answer.raw)
          }
        }
        if (req.headers.authorization !== `Bearer ${apiKey}`) {
          return send(resendError(401, "invalid_api_key", "API key is invalid"))
        }
        if (req.method !== "POST" || path !== "/emails") return send(resendError(404, "not_found", "not found"))
        const answer = answers[Math.min(requests.length - 1, answers.length - 1)] ?? accepted("email_default")
        if (answer === "hang") {
          hanging.add(res)
          return
        }
        send(answer)
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          for (const res of hanging) res.destroy()
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const { port } = server.address() as AddressInfo
    return { baseUrl: `http://127.0.0.1:${port}`, requests }
  })

/** A base URL where nothing listens: a port that was free a moment ago. */
export const unreachableBaseUrl: Effect.Effect<string> = Effect.async<string>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(`http://127.0.0.1:${port}`)))
  })
})
