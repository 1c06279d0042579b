/**
 * Requests sent while `npm start` is still starting: each is refused (nothing listens yet) or
 * answered, never left waiting. A server that listened before its routes were built took such
 * connections and never answered them.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { freePort } from "../support/processes.js"

const root = fileURLToPath(new URL("../..", import.meta.url))

describe("requests during the start", () => {
  it("are refused or answered, and none waits, from the first moment until the service is ready", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-start-"))
    const port = await freePort()
    const child = spawn(process.execPath, ["dist/start.mjs"], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warning", DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" }
    })
    const outcomes = { refused: 0, answered: 0, unanswered: 0 }
    try {
      const sent: Array<Promise<void>> = []
      let ready = false
      const startedAt = Date.now()
      // One request every 20 ms until one is answered 200; each may wait 10 s for its answer.
      while (!ready && Date.now() - startedAt < 90_000 && child.exitCode === null) {
        sent.push(
          fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(10_000) }).then(
            (response) => {
              outcomes.answered++
              if (response.ok) ready = true
            },
            (error: Error) => void (error.name === "TimeoutError" ? outcomes.unanswered++ : outcomes.refused++)
          )
        )
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await Promise.all(sent)
      expect(ready).toBe(true)
      expect(outcomes.refused).toBeGreaterThan(0)
      expect(outcomes.unanswered).toBe(0)
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve))
        child.kill("SIGTERM")
        await exited
      }
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
