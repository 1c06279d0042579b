import { defineConfig } from "vitest/config"

/**
 * Workspace packages resolve to their TypeScript sources (the `@roster/source` export condition),
 * not to a build. Setting conditions replaces Vite's defaults, so those are listed after it.
 */
const sourceFirst = (defaults: ReadonlyArray<string>) => ["@roster/source", ...defaults]

export default defineConfig({
  resolve: { conditions: sourceFirst(["module", "browser", "development|production"]) },
  ssr: { resolve: { conditions: sourceFirst(["module", "node", "development|production"]) } },
  test: {
    include: ["domain/**/*.test.ts", "application/**/*.test.ts", "adapters/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // Every answer of the test servers is checked against the OpenAPI document of its form.
    setupFiles: ["test/support/conformance-setup.ts"],
    reporters: ["default", "./test/support/closing-line-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two files at a time, also on two cores: the slowest files mostly wait on the processes they
    // start, each suite of those has a database of its own, and contract suites isolate their rows.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    sequence: { concurrent: false }
  }
})
