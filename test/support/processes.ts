import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"

/** The service's own processes, started as an operator starts them, for end-to-end tests. */

const root = fileURLToPath(new URL("../..", import.meta.url))

/** The environment of a started process: nothing of the test runner's configuration leaks in. */
const baseEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_FORMAT: "json", LOG_LEVEL: "warning" }
  return env
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** The compiled program of `apps/<app>`, as `npm run <app>` starts it (the global setup builds it). */
const program = (app: string) => `dist/${app}.mjs`

/** Runs `apps/<app>` to its end. */
export const run = (app: string, args: ReadonlyArray<string>, env: Record<string, string>): Promise<Finished> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [program(app), ...args], {
      cwd: root,
      env: { ...baseEnv(), ...env }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

export interface Running {
  readonly url: string
  readonly output: () => string
  /** Sends SIGTERM and waits for the exit code. */
  readonly stop: () => Promise<number | null>
}

/** Starts `apps/<app>` on a free port and waits until `/ready` answers 200. */
export const start = (app: string, env: Record<string, string>): Promise<Running> => startUntil(app, env, "/ready")

/** Starts `apps/<app>` on a free port and waits until `/health` answers 200 (whether or not it is ready). */
export const startUntilHealthy = (app: string, env: Record<string, string>): Promise<Running> =>
  startUntil(app, env, "/health")

const startUntil = async (app: string, env: Record<string, string>, probe: string): Promise<Running> => {
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, [program(app)], {
    cwd: root,
    env: { ...baseEnv(), ...env, PORT: String(port), HOST: "127.0.0.1" }
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  // A first start on a new data folder makes its database; on a busy machine that takes a while.
  const deadline = Date.now() + 90_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`apps/${app} exited during start:\n${output}`)
    const ready = await fetch(`${url}${probe}`).then((r) => r.ok, () => false)
    if (ready) break
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`apps/${app} did not become ready:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    output: () => output,
    stop: () => {
      child.kill("SIGTERM")
      return exited
    }
  }
}

export interface RunningWorker {
  /** Everything the worker wrote, stdout and stderr, so far. */
  readonly output: () => string
  /** The process id, for the test's own messages. */
  readonly pid: number
  /** Sends SIGTERM and waits for the exit code (null when a signal ended it). */
  readonly stop: () => Promise<number | null>
  /** Sends SIGKILL and waits until the process is gone. */
  readonly kill: () => Promise<void>
  /** Resolves with the exit code once the process ended, however it ended. */
  readonly exited: Promise<number | null>
}

/**
 * Starts the worker, which opens no port, and waits until its log says "worker started"
 * (it logs at info level for that; LOG_LEVEL in `env` wins).
 */
export const startWorker = async (env: Record<string, string>): Promise<RunningWorker> => {
  const child: ChildProcess = spawn(process.execPath, [program("worker")], {
    cwd: root,
    env: { ...baseEnv(), LOG_LEVEL: "info", ...env }
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const gone = () => child.exitCode !== null || child.signalCode !== null
  const kill = async () => {
    if (!gone()) child.kill("SIGKILL")
    await exited
  }
  for (let attempt = 0; !output.includes("worker started"); attempt++) {
    if (gone()) throw new Error(`apps/worker exited during start:\n${output}`)
    if (attempt > 300) {
      await kill()
      throw new Error(`apps/worker did not start within 30 seconds:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    output: () => output,
    pid: child.pid!,
    stop: () => {
      if (!gone()) child.kill("SIGTERM")
      return exited
    },
    kill,
    exited
  }
}

/** Calls the API with a key, and a JSON body when given; the answer's JSON body is read as `A`. */
export const callApi = async <A>(url: string, key: string, method: string, body?: unknown) => {
  const response = await fetch(url, {
    method,
    headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text.length > 0 ? JSON.parse(text) as A : undefined }
}
