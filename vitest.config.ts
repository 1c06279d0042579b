import { configDefaults, defineConfig } from "vitest/config"
import SlowestFirstSequencer from "./test/support/slowest-first-sequencer.js"

/**
 * Workspace packages resolve to their TypeScript sources (the `@roster/source` export condition),
 * not to a build. Setting conditions replaces Vite's defaults, so those are listed after it.
 */
const sourceFirst = (defaults: ReadonlyArray<string>) => ["@roster/source", ...defaults]

/**
 * Suites that start nothing (no server, process, database server or browser) and keep no state of
 * their own between files: the domain's rules, the use cases on in-memory adapters, CSV,
 * tokens, the JSON log's request lines and the worker's jobs. They share one worker thread and
 * their modules are loaded once, not once per file. The sessions' expiry on the test clock runs
 * isolated: after the other suites in one thread its session comes out with another clock's time.
 */
const inMemory = [
  "domain/**/*.test.ts",
  "application/**/*.test.ts",
  "test/application/!(auth-expiry).test.ts",
  "test/csv/**/*.test.ts",
  "test/dashboard/**/*.test.ts",
  "test/tokens/**/*.test.ts",
  "test/apps/logging.test.ts",
  "test/worker/billing-job.test.ts",
  "test/worker/erasure-job.test.ts",
  "test/worker/job-runner.test.ts",
  "test/worker/webhook-jobs.test.ts"
]

/**
 * Suites that start servers in the test's own process and nothing outside it (no process, database
 * server or browser), and read nothing from the global setup: the real HTTP server over in-memory
 * adapters (test/support/http-server.ts), and the adapters that speak HTTP against fakes of
 * Resend, Stripe and webhook receivers on free ports. Each file's servers are its own and closed
 * by it, so the files share one worker thread and its loaded modules, as the in-memory suites do:
 * the application's modules and the OpenAPI documents' checkers are loaded and built once, not
 * once per file. Suites on the test clock run isolated, as the sessions' expiry does: after other
 * suites in one thread, the in-process rate limiter's windows come out with another clock's time.
 */
const inProcessServers = [
  // Not data-errors (PostgreSQL), openapi-lint (a process) nor the direct lane's two (one reads Redis).
  "test/http/!(data-errors|openapi-lint).test.ts",
  "test/http/reference/!(direct-lane*).test.ts",
  "test/http/overview/*.test.ts",
  // Not the import screen on two instances (PostgreSQL).
  "test/http/dashboard/!(imports-across-instances).test.ts",
  "test/mail/*.test.ts",
  "test/stripe/*.test.ts",
  "test/webhooks/!(recording-webhook-transport).test.ts",
  "test/persistence/memory.test.ts",
  "test/persistence/template-files.test.ts",
  "test/worker/domain-check-job.test.ts",
  "test/apps/cli-csv.test.ts",
  "test/apps/config.test.ts",
  "test/apps/mailer.test.ts",
  "test/package/readme-architecture.test.ts"
]

/**
 * Suites that need a module graph of their own, beside the servers' suites, which share one per
 * fork: on the test clock (the sessions' expiry, the in-process rate limiter and idempotency
 * store, Redis's fail-open warnings, the recording webhook transport) or timing a pool of render
 * threads the process keeps. They start nothing outside their process and read nothing from the
 * global setup.
 */
const isolated = [
  "test/application/auth-expiry.test.ts",
  "test/liquid/template-engine.test.ts",
  "test/rate-limit/in-process-rate-limiter.test.ts",
  "test/redis/in-process-idempotency-store.test.ts",
  "test/redis/redis-fail-open.test.ts",
  "test/webhooks/recording-webhook-transport.test.ts"
]

export default defineConfig({
  resolve: { conditions: sourceFirst(["module", "browser", "development|production"]) },
  ssr: { resolve: { conditions: sourceFirst(["module", "node", "development|production"]) } },
  test: {
    reporters: ["default", "./test/support/closing-line-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    poolOptions: {
      // Two files at a time, also on two cores: the slowest files mostly wait on the processes they
      // start, each suite of those has a database of its own, and contract suites isolate their rows.
      // One pool of forks serves every project, and these options are its own (a project's are
      // not read by it): a fork runs file after file of one project, and is replaced between
      // projects, so each isolated suite is a project of its own.
      forks: { maxForks: 2, minForks: 1, isolate: false },
      // The in-memory suites, then the in-process servers' suites, one after the other beside the
      // two forks, without a fresh module graph each.
      threads: { maxThreads: 1, minThreads: 1, isolate: false }
    },
    // The slowest files first (test/support/slowest-first-sequencer.ts), so the run does not end
    // waiting on one of them.
    sequence: { concurrent: false, sequencer: SlowestFirstSequencer },
    projects: [
      {
        extends: true,
        test: { name: "in-memory", include: inMemory, pool: "threads" }
      },
      {
        extends: true,
        test: {
          name: "in-process servers",
          include: inProcessServers,
          // Every answer of the test servers is checked against the OpenAPI document of its form.
          setupFiles: ["test/support/conformance-setup.ts"],
          pool: "threads"
        }
      },
      {
        extends: true,
        test: {
          name: "servers",
          include: ["domain/**/*.test.ts", "application/**/*.test.ts", "adapters/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...inMemory, ...inProcessServers, ...isolated],
          globalSetup: ["test/support/global-setup.ts"],
          // Every answer of the test servers is checked against the OpenAPI document of its form.
          setupFiles: ["test/support/conformance-setup.ts"],
          // A fork loads the application's modules once for all the files it runs, not once per
          // file (the forks' `isolate: false` above): each file's servers, databases and processes
          // are its own, and closed by it.
          pool: "forks"
        }
      },
      ...isolated.map((file) => ({
        extends: true as const,
        test: { name: `isolated: ${file}`, include: [file], pool: "forks" as const }
      }))
    ]
  }
})
