import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"
import { Effect } from "effect"

/**
 * The dashboard's script and stylesheet, served at addresses that carry a hash of their content
 * (`/app/assets/dashboard.3f9a1c2e.js`), so browsers may keep them for a year and still never run
 * a stale one. A built service reads them from `dist/dashboard/`, where scripts/build.mjs wrote
 * them beside the program; run from the sources, the server makes them when it starts.
 */

export interface DashboardAsset {
  /** The address it is served at. */
  readonly path: string
  readonly contentType: string
  readonly body: string
}

export interface DashboardAssets {
  readonly script: DashboardAsset
  readonly style: DashboardAsset
}

export const ASSETS_PREFIX = "/app/assets/"

const asset = (name: string, extension: string, contentType: string, body: string): DashboardAsset => ({
  path: `${ASSETS_PREFIX}${name}.${createHash("sha256").update(body).digest("hex").slice(0, 12)}.${extension}`,
  contentType,
  body
})

const built = (directory: URL) =>
  Effect.tryPromise(() =>
    Promise.all([
      readFile(new URL("dashboard.js", directory), "utf8"),
      readFile(new URL("dashboard.css", directory), "utf8")
    ])
  ).pipe(Effect.map(([script, style]) => ({ script, style })))

const fromSources = Effect.tryPromise(async () => {
  const [{ buildDashboardAssets }, esbuild] = await Promise.all([import("./client/build-assets.mjs"), import("esbuild")])
  return await buildDashboardAssets(esbuild)
})

/** The assets: the build's, else made from the sources; a service that has neither does not start. */
export const loadDashboardAssets: Effect.Effect<DashboardAssets> = built(new URL("./dashboard/", import.meta.url)).pipe(
  Effect.orElse(() => fromSources),
  Effect.map(({ script, style }) => ({
    script: asset("dashboard", "js", "text/javascript; charset=utf-8", script),
    style: asset("dashboard", "css", "text/css; charset=utf-8", style)
  })),
  Effect.orDie
)
