import type { Answer } from "./http-server.js"

const uuids = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi
const instants = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g

/**
 * An answer as two servers can agree on it: ids and times masked, the headers that belong to it
 * (not the date, the request id or the rate-limit window's end).
 */
export const comparable = (answer: Answer) => {
  const headers: Record<string, string> = {}
  answer.headers.forEach((value, name) => {
    if (name !== "date" && name !== "x-request-id" && name !== "x-ratelimit-reset") headers[name] = value
  })
  // Compressed, the ids and times make the length vary.
  if (headers["content-encoding"] !== undefined) delete headers["content-length"]
  return {
    status: answer.status,
    headers,
    text: answer.text.replace(uuids, "<uuid>").replace(instants, "<instant>")
  }
}
