/**
 * The servers whose answers are checked against the OpenAPI document of their form: those the
 * test support starts. Kept on `globalThis` so that the setup module and the test's own modules
 * see one list whatever module instance they load.
 */
import type { WireForm } from "./openapi-conformance.js"

const key = Symbol.for("roster.test.conformance-servers")

/** Form of the server at each origin (`http://127.0.0.1:<port>`). */
export const watchedServers = (): Map<string, WireForm> => {
  const global = globalThis as { [key]?: Map<string, WireForm> }
  return (global[key] ??= new Map())
}

/** From now on, the answers of the server at `baseUrl` are checked against `form`'s document. */
export const watchServer = (baseUrl: string, form: WireForm): void => {
  watchedServers().set(new URL(baseUrl).origin, form)
}

/** The server at `baseUrl` is gone; its port may serve another form next. */
export const unwatchServer = (baseUrl: string): void => {
  watchedServers().delete(new URL(baseUrl).origin)
}
